"""`refusal-lint probe URL`: the spec's "Conformance (probed)" against a running agent.

Fetches the card (both well-known paths), runs the card checks on it, then sends one
provoking JSON-RPC request per rule that has a probe message and judges the answer
(RL400-RL408, DESIGN §8). Never contacts another host than the URL's, never sends more
than one request per rule, never retries.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from refusal_lint import conformance
from refusal_lint.core import spec
from refusal_lint.core.errors import UsageError
from refusal_lint.core.model import Code, Finding, Loc, RuleSet
from refusal_lint.live import answers
from refusal_lint.live import stream as sse
from refusal_lint.live.codes import RL400, RL401
from refusal_lint.static.checks import card as card_checks
from refusal_lint.static.extract.data import cards as datacards
from refusal_lint.static.extract.data import jsonpos
from refusal_lint.static.extract.data.tree import TooDeep

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
MAX_BODY = 8 * 1024 * 1024


@dataclass
class ProbeResult:
    card_url: str = ""
    card: RuleSet | None = None
    agent_name: str = "agent"
    findings: list[Finding] = field(default_factory=list)
    protocol: str = ""


class _Unreachable(Exception):
    pass


def _client(host: str, timeout: float, transport: Any = None, headers: dict[str, str] | None = None) -> Any:
    try:
        import httpx
    except ImportError:
        raise UsageError("probe needs httpx: pip install 'refusal-lint[probe]'") from None

    def same_host(request: Any) -> None:
        if request.url.host != host:
            raise _Unreachable(f"refusing to contact {request.url.host}: the probe talks to {host} only")

    return httpx.Client(
        timeout=timeout,
        follow_redirects=True,
        max_redirects=3,
        verify=True,
        event_hooks={"request": [same_host]},
        transport=transport,
        headers={"User-Agent": "refusal-lint-probe", **(headers or {})},
    )


def _fetch(client: Any, method: str, url: str, *, tolerate: bool = False, **kw: Any) -> Any:
    """The response; _Unreachable for a failed request (and, unless `tolerate`, an HTTP error)."""
    with _reaching(url):
        # Within the timeout in all (sse.read_body), not only between two reads: a dripping agent too.
        deadline = time.monotonic() + client.timeout.read
        with client.stream(method, url, **kw) as streamed:
            response = sse.settled(streamed, sse.read_body(streamed, deadline, MAX_BODY))
    if response.status_code >= 400 and not tolerate:
        raise _Unreachable(f"{url}: HTTP {response.status_code}")
    return response


@contextlib.contextmanager
def _reaching(url: str) -> Iterator[None]:
    """A failed request, a timeout, an answer too long, as _Unreachable saying so."""
    import httpx

    try:
        yield
    except sse.TooLong as exc:
        raise _Unreachable(f"{url}: {exc}") from None
    except httpx.TimeoutException:
        raise _Unreachable(f"{url}: timed out") from None
    except httpx.HTTPError as exc:
        raise _Unreachable(f"{url}: {type(exc).__name__}: {exc}") from None


@dataclass(frozen=True)
class Reach:
    """How to reach a real agent (DESIGN §8 "Reach"): header values are sent, never shown."""

    headers: tuple[tuple[str, str], ...] = ()
    extensions: tuple[str, ...] = ()  # activated besides ours and the card's required ones
    binding: str | None = None  # "jsonrpc" | "http-json": else the card's preference
    stream: bool = True  # a second probe per rule over streaming, where the card says it streams


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


_BINDINGS = {"jsonrpc": "JSONRPC", "http-json": "HTTP+JSON"}


def pick_interface(
    found: list[Interface], base: Any, reach: Reach, forced_version: str | None
) -> Interface | None:
    """JSONRPC, then HTTP+JSON (or the one --binding names); within it the newest version
    (or --protocol's). None: the card offers only bindings the probe does not speak."""
    if not found:
        return Interface(_on_host("", base), "JSONRPC", forced_version or "1.0")
    wanted = [_BINDINGS[reach.binding]] if reach.binding else ["JSONRPC", "HTTP+JSON"]
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


def _request(
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


def probe(
    url: str,
    probes: dict[str, str],
    protocol: str | None,
    timeout: float,
    transport: Any = None,
    reach: Reach | None = None,
) -> ProbeResult:
    """Probe the agent at `url` (over `transport`, e.g. to an ASGI app in this process)."""
    reach = reach or Reach()
    base = urlsplit(url if "://" in url else f"http://{url}")
    if base.scheme not in ("http", "https") or not base.hostname:
        raise UsageError(f"{url}: not an http(s) URL")
    result = ProbeResult()
    root = urlunsplit((base.scheme, base.netloc, base.path.rstrip("/"), "", ""))
    with _client(base.hostname, timeout, transport, dict(reach.headers)) as client:
        fetched = _fetch_card(client, root, result)
        doc = _read_card(*fetched, result) if fetched is not None else None
        if doc is None or result.card is None:  # a finding says what stopped it (RL400, the card's)
            return result
        iface = _interface(doc, base, reach, protocol, result)
        if iface is None:
            return result
        rules = {r.rule_id: r.reason for r in result.card.rules}
        extensions = ", ".join(dict.fromkeys([spec.URI, *_required(doc), *reach.extensions]))
        streams = reach.stream and bool((doc.get("capabilities") or {}).get("streaming"))
        for rule_id, message in probes.items():
            result.findings += _probe_one(client, iface, rule_id, message, rules, extensions, False)
            if streams:
                result.findings += _probe_one(client, iface, rule_id, message, rules, extensions, True)
    return result


def _fetch_card(client: Any, root: str, result: ProbeResult) -> tuple[str, Any] | None:
    """The card's text and JSON, from the first well-known path that serves JSON; else None,
    and RL400 naming what each path answered."""
    errors = []
    for path in CARD_PATHS:
        result.card_url = root + path
        try:
            text = _fetch(client, "GET", result.card_url).text
            return text, json.loads(text)
        except _Unreachable as exc:
            errors.append(str(exc))
        except ValueError:
            errors.append(f"{result.card_url}: not JSON")
    result.card_url = root + CARD_PATHS[0]
    result.findings.append(RL400.finding(Loc(result.card_url), "; ".join(errors)))
    return None


def _read_card(text: str, card_doc: Any, result: ProbeResult) -> dict[str, Any] | None:
    """The card checks on the fetched card; its JSON when it declares a usable refusals
    extension (then `result.card` holds its rules), else None."""
    try:
        tree = jsonpos.parse(text, result.card_url)
    except (jsonpos.JsonError, TooDeep) as exc:
        result.findings.append(RL400.finding(Loc(result.card_url), f"the card is not readable JSON: {exc}"))
        return None
    decls = datacards.find_extensions(tree)
    result.findings += card_checks.check_decls(decls)
    cards = card_checks.rule_sets(decls)
    doc = card_doc if isinstance(card_doc, dict) else {}
    if isinstance(doc.get("name"), str):
        result.agent_name = doc["name"]
    if not cards or not cards[0].usable:
        if not cards:
            result.findings.append(
                RL400.finding(Loc(result.card_url), "the card does not declare the refusals extension")
            )
        return None
    result.card = cards[0]
    return doc


def _interface(
    doc: dict[str, Any], base: Any, reach: Reach, protocol: str | None, result: ProbeResult
) -> Interface | None:
    """The interface to probe (its version in `result.protocol`); None, and RL400, when the
    card offers only bindings the probe does not speak."""
    advertised = interfaces(doc, base)
    iface = pick_interface(advertised, base, reach, protocol)
    if iface is None:
        spoken = ", ".join(sorted({i.binding for i in advertised}))
        result.findings.append(
            RL400.finding(
                Loc(result.card_url),
                f"the agent speaks only {spoken}, which the probe does not (it speaks JSONRPC and HTTP+JSON)",
            )
        )
        return None
    result.protocol = iface.version
    return iface


def _required(card: dict[str, Any]) -> list[str]:
    """The URIs of the extensions the card marks required (an agent answers -32008 without)."""
    caps: dict[str, Any] = card["capabilities"] if isinstance(card.get("capabilities"), dict) else {}
    return [
        str(e["uri"])
        for e in caps.get("extensions") or []
        if isinstance(e, dict) and e.get("required") is True and isinstance(e.get("uri"), str)
    ]


def _probe_one(
    client: Any,
    iface: Interface,
    rule_id: str,
    message: str,
    rules: dict[str, str | None],
    extensions: str,
    stream: bool,
) -> list[Finding]:
    url, body, headers = _request(iface, message, extensions, stream)
    loc = Loc(url)
    how = " (streaming)" if stream else ""
    try:
        if stream:
            with _reaching(url):
                response, answer = sse.post(client, url, body, headers, MAX_BODY)
        else:
            response = _fetch(client, "POST", url, tolerate=True, json=body, headers=headers)
            answer = sse.json_of(response)
    except _Unreachable as exc:
        return [RL400.finding(loc, str(exc) + how, rule_id=rule_id)]
    # A streaming request answered with no event stream (an error envelope, or the whole
    # result at once, as the a2a-sdk sends a raised error) is judged as a plain answer is.
    events = stream and "event-stream" in response.headers.get("content-type", "")
    fault = _unjudged(response.status_code, answer, url, iface.binding, events)
    if fault is not None:
        code, said = fault
        return [code.finding(loc, said + how, rule_id=rule_id)]
    # The same judgement evals and tests use (refusal_lint.conformance, DESIGN §9).
    return [
        Finding(f.code, loc, f.message + how, rule_id=rule_id)
        for f in conformance.judge(answer, rules, rule=rule_id, protocol=iface.version)
    ]


def _unjudged(status: int, answer: Any, url: str, binding: str, events: bool) -> tuple[Code, str] | None:
    """What ends a rule's probe before its answer is judged (RL400, RL401), if anything:
    `answer` is the event list of a stream (`events`), else the body's JSON."""
    if status >= 400:
        # An error object (REST) or a JSON-RPC error envelope is the refusal sent as an
        # error; anything else (401 with {"detail": ...}, an HTML 502) did not reach the agent.
        if isinstance(answer, dict) and "error" in answer:
            err = answer["error"]
            what = err.get("message") if isinstance(err, dict) else err
            return RL401, f"the refusal came back as an error (HTTP {status}): {what}"
        return RL400, f"{url}: HTTP {status}"
    if events:
        if not answer or answers.cut_short(answer):
            return RL400, f"{url}: the stream {'ended before its answer' if answer else 'carried no event'}"
        return None
    if not isinstance(answer, dict):
        return RL400, f"{url}: the answer is not JSON"
    if binding == "JSONRPC" and "error" not in answer and "result" not in answer:
        return RL400, f"{url}: the envelope holds neither result nor error"
    return None
