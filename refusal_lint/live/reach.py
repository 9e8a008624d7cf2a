"""How the probe reaches an agent (DESIGN §8 "Reach"): what the command line asks
(`Reach`), the interfaces a card advertises, the one probed, and the provoking request sent
to it; every URL on the probed URL's own host."""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit


@dataclass(frozen=True)
class Reach:
    """How to reach a real agent (DESIGN §8 "Reach"): header values are sent, never shown."""

    headers: tuple[tuple[str, str], ...] = ()
    extensions: tuple[str, ...] = ()  # activated besides ours and the card's required ones
    binding: str | None = None  # "jsonrpc" | "http-json": else the card's preference
    stream: bool = True  # a second probe per rule over streaming, where the card says it streams


MASK = "***"  # what a report shows for a secret the probe sent (as CI logs mask theirs)
# A shorter value ("1", "on", "yes") is no credential, and stands in too much text to mask.
SHORTEST_SECRET = 4


def secrets_of(reach: Reach, base: SplitResult) -> tuple[str, ...]:
    """What the probe sends that no report shows (DESIGN §8): each --header value, its
    credential after an auth scheme (`Bearer <token>`: an agent may echo the token alone),
    and the URL's password (as written, decoded, and as Basic auth); longest first, so each
    is masked whole."""
    found = {base.password or "", unquote(base.password or "")}
    if base.password is not None:  # and as Basic auth sends it (`without_password`)
        user = unquote(base.netloc.rpartition("@")[0].partition(":")[0])
        found.add(base64.b64encode(f"{user}:{unquote(base.password)}".encode()).decode())
    for _, value in reach.headers:
        found |= {value, value.partition(" ")[2].strip()}
    return tuple(sorted((s for s in found if len(s) >= SHORTEST_SECRET), key=len, reverse=True))


def masked(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text


def without_password(base: SplitResult) -> tuple[SplitResult, tuple[str, str] | None]:
    """The URL with no password in it, and the (user, password) to send as Basic auth, as
    the URL would have had it sent: every URL the probe shows is then free of it."""
    if base.password is None:
        return base, None
    userinfo, _, hostport = base.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    return base._replace(netloc=f"{user}@{hostport}"), (unquote(user), unquote(base.password))


@dataclass(frozen=True)
class Interface:
    url: str  # on the probed URL's own scheme, host and port
    binding: str  # JSONRPC | HTTP+JSON | GRPC | ...
    version: str  # "1.0" | "0.3"


def _version(value: Any, default: str) -> str:
    text = str(value or "")
    return "0.3" if text.startswith("0.") else "1.0" if text[:1].isdigit() else default


def _on_host(url: Any, base: Any) -> str:
    """An interface's path, on the probed URL's own scheme, host and port."""
    parts = urlsplit(url) if isinstance(url, str) and url else base
    return str(urlunsplit((base.scheme, base.netloc, parts.path or "/", parts.query, "")))


def interfaces(card: dict[str, Any], base: Any) -> list[Interface]:
    """Every interface a card advertises, v1.0 (`supportedInterfaces`) or v0.3 shape (`url`,
    `preferredTransport`, `additionalInterfaces`); a v1.0-shaped card may advertise 0.3."""
    out = []
    for iface in card.get("supportedInterfaces") or []:
        if isinstance(iface, dict):
            binding = str(iface.get("protocolBinding") or "JSONRPC").upper()
            version = _version(iface.get("protocolVersion"), "1.0")
            out.append(Interface(_on_host(iface.get("url"), base), binding, version))
    if isinstance(card.get("url"), str):
        version = _version(card.get("protocolVersion"), "0.3")
        out.append(
            Interface(
                _on_host(card["url"], base), str(card.get("preferredTransport") or "JSONRPC").upper(), version
            )
        )
        for iface in card.get("additionalInterfaces") or []:
            if isinstance(iface, dict):
                binding = str(iface.get("transport") or "JSONRPC").upper()
                out.append(Interface(_on_host(iface.get("url"), base), binding, version))
    return out


BINDINGS = {"jsonrpc": "JSONRPC", "http-json": "HTTP+JSON"}


def pick_interface(
    found: list[Interface], base: Any, reach: Reach, forced_version: str | None
) -> Interface | None:
    """JSONRPC, then HTTP+JSON (or the one --binding names); within it the newest version
    (or --protocol's). None: the card offers only bindings the probe does not speak."""
    if not found:
        return Interface(_on_host("", base), "JSONRPC", forced_version or "1.0")
    wanted = [BINDINGS[reach.binding]] if reach.binding else ["JSONRPC", "HTTP+JSON"]
    for binding in wanted:
        usable = [i for i in found if i.binding == binding]
        if forced_version and any(i.version == forced_version for i in usable):
            usable = [i for i in usable if i.version == forced_version]
        if usable:
            best = max(usable, key=lambda i: i.version)
            return Interface(best.url, best.binding, forced_version or best.version)
    return None


def _message(text: str, version: str) -> dict[str, Any]:
    mid = str(uuid.uuid4())
    if version == "0.3":
        return {
            "kind": "message",
            "messageId": mid,
            "role": "user",
            "parts": [{"kind": "text", "text": text}],
        }
    return {"messageId": mid, "role": "ROLE_USER", "parts": [{"text": text}]}


def request_for(
    iface: Interface, text: str, extensions: str, stream: bool
) -> tuple[str, dict[str, Any], dict[str, str]]:
    """(url, JSON body, headers) of one provoking request on this interface."""
    message = _message(text, iface.version)
    headers = (
        {"A2A-Version": "1.0", "A2A-Extensions": extensions}
        if iface.version == "1.0"
        else {"X-A2A-Extensions": extensions}
    )
    if stream:
        headers["Accept"] = "text/event-stream"
    if iface.binding == "HTTP+JSON":
        # As the official SDK serves and joins them: the interface url without its trailing
        # slash, then /message:send (v1.0) or /v1/message:send (v0.3).
        prefix = iface.url.rstrip("/") + ("/v1" if iface.version == "0.3" else "")
        url = f"{prefix}/message:{'stream' if stream else 'send'}"
        if iface.version == "0.3":
            # v0.3's HTTP+JSON is its protobuf's JSON: the message under `request`, its
            # Parts under `content`.
            rest = {"messageId": message["messageId"], "role": "ROLE_USER", "content": [{"text": text}]}
            return url, {"request": rest}, headers
        return url, {"message": message}, headers
    if iface.version == "0.3":
        method = "message/stream" if stream else "message/send"
    else:
        method = "SendStreamingMessage" if stream else "SendMessage"
    body = {"jsonrpc": "2.0", "id": message["messageId"], "method": method, "params": {"message": message}}
    return iface.url, body, headers
