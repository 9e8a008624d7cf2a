"""What the refusing stub knows without a server (DESIGN §10): the card it refuses by, the
rule a message gets, and the record of every request with the consumer faults (RL501) it
shows. Pure and thread-safe: the server (stub/app.py) calls it from its request handlers.

An unchanged retry (RL501) is the same call again: a message sent by the same kind of
method as an earlier refused one (`send`: v1.0 `SendMessage`, v0.3 `message/send`,
HTTP+JSON `message:send`; `stream`: `SendStreamingMessage`, `message/stream`,
`message:stream`; binding and protocol version do not matter) with Parts equal to its
Parts. The same Parts over the other kind are not a retry: a client (our own `probe`
among them, DESIGN §8) may ask the same thing once plainly and once streaming."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from refusal_lint import __version__
from refusal_lint.core import spec
from refusal_lint.core.errors import UsageError
from refusal_lint.core.model import Finding, Loc
from refusal_lint.core.prompttext import TOKEN
from refusal_lint.live.codes import RL501

JSONRPC_PATH = "/a2a"  # JSON-RPC v1.0 and v0.3 on one endpoint; HTTP+JSON at the root
CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")  # as probe fetches them
# Header values never written to a record: a client under test may send real credentials,
# under standard names or a vendor's (`X-Goog-Api-Key`, `Ocp-Apim-Subscription-Key`, `apikey`).
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
SECRET_WORDS = ("key", "auth", "token", "secret", "password", "session", "credential", "signature")
REDACTED = "<redacted>"
# The streaming send's name on each binding (v1.0 JSON-RPC, v0.3 JSON-RPC, HTTP+JSON's route).
STREAM_METHODS = frozenset({"SendStreamingMessage", "message/stream"})
STREAM_ROUTE = ":stream"


@dataclass(frozen=True)
class StubCard:
    """The card the stub serves and refuses by: rule id -> reason, in card order, and the
    `--rule-for TEXT=RULE` pairs, in the order given."""

    doc: dict[str, Any]
    rules: dict[str, str]
    rule_for: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        name = self.doc.get("name")
        return name if isinstance(name, str) and name else "refusing agent"

    def choose(self, text: str) -> tuple[str, str]:
        """(rule, why): the first --rule-for text the message contains (case-folded: the
        caller's own choice comes first), else the first card rule id, in card order, that
        stands in it as a whole token (DESIGN §2: `pii` is not named by `pii-export`, nor
        `seg-mix` by `seg-mixing`), else the card's first rule."""
        folded = text.casefold()
        for needle, rule in self.rule_for:
            if needle.casefold() in folded:
                return rule, f"the message contains `{needle}`"
        tokens = set(TOKEN.findall(folded))
        for rule in self.rules:
            if rule in tokens:
                return rule, f"the message names `{rule}`"
        return next(iter(self.rules)), "the message names no rule: the card's first rule"

    def served(self, base: str) -> dict[str, Any]:
        """The card as served at `base`: its interfaces replaced by the stub's own, in both
        card shapes (v1.0 `supportedInterfaces`; v0.3 `url` and `additionalInterfaces`, which
        v0.3 clients read), and streaming on, since the stub streams."""
        doc = copy.deepcopy(self.doc)
        rpc = base + JSONRPC_PATH
        doc["supportedInterfaces"] = [
            {"url": rpc, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": base, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            {"url": rpc, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            {"url": base, "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
        ]
        doc["url"] = rpc
        doc["preferredTransport"] = "JSONRPC"
        doc["protocolVersion"] = "0.3.0"
        doc["additionalInterfaces"] = [
            {"url": rpc, "transport": "JSONRPC"},
            {"url": base, "transport": "HTTP+JSON"},
        ]
        caps = doc["capabilities"]
        caps["streaming"] = True
        return doc


def read_card(path: str) -> Any:
    """A card file's data (JSON or YAML); UsageError (exit 2) when it cannot be read."""
    from refusal_lint.static.extract.data.yamlsafe import YamlError, load_plain

    try:
        with open(path, encoding="utf-8-sig") as fh:
            return load_plain(fh.read())
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the card: {exc}") from None
    except YamlError as exc:
        raise UsageError(f"{path}: the card is not valid JSON/YAML: {exc}") from None


def _card_doc(data: Any, source: str) -> dict[str, Any]:
    """An AgentCard dict; a bare params map (rule id -> reason) becomes a minimal card."""
    if not isinstance(data, dict):
        raise UsageError(f"{source}: not an AgentCard (a JSON/YAML object)")
    if "capabilities" in data or "name" in data:
        if not isinstance(data.get("capabilities"), dict):
            raise UsageError(f"{source}: the card has no `capabilities` object")
        return copy.deepcopy(data)
    return {
        "name": "Refusing agent",
        "description": "refusal-lint's refusing stub agent.",
        "version": "1.0.0",
        "capabilities": {
            "extensions": [
                {"uri": spec.URI, "required": False, "description": "Refusals.", "params": dict(data)}
            ]
        },
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "skills": [],
    }


def _rules(doc: dict[str, Any], source: str) -> dict[str, str]:
    """The card's rules, which must be conformant for the stub's refusals to be."""
    entries = [
        e
        for e in doc["capabilities"].get("extensions") or []
        if isinstance(e, dict) and e.get("uri") == spec.URI
    ]
    params = entries[0].get("params") if entries else None
    if not isinstance(params, dict) or not params:
        raise UsageError(
            f"{source}: the card advertises no refusal rules (the {spec.URI} extension's params)"
        )
    out: dict[str, str] = {}
    for rule, reason in params.items():
        if not isinstance(rule, str) or not spec.is_kebab(rule):
            raise UsageError(f"{source}: rule id `{rule}` is not kebab-case (refusal-lint rule RL105)")
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason or "\r" in reason:
            raise UsageError(f"{source}: the reason of `{rule}` is not one non-blank line (RL104, RL106)")
        out[rule] = reason
    return out


def stub_card(data: Any, rule_for: Iterable[tuple[str, str]] = (), source: str = "card") -> StubCard:
    """The stub's card from a card's data (or a params map) and the --rule-for pairs."""
    doc = _card_doc(data, source)
    rules = _rules(doc, source)
    pairs = tuple(rule_for)
    for text, rule in pairs:
        if rule not in rules:
            raise UsageError(f"--rule-for {text}={rule}: the card has no rule `{rule}` ({', '.join(rules)})")
        if not text:
            raise UsageError(f"--rule-for ={rule}: the text to look for is empty")
    return StubCard(doc, rules, pairs)


def rule_for_option(text: str) -> tuple[str, str]:
    """`TEXT=RULE` (the text may hold `=`; a rule id cannot)."""
    needle, sep, rule = text.rpartition("=")
    if not sep:
        raise UsageError(f"--rule-for {text}: give it as TEXT=RULE (e.g. zodiac=invalid-cut)")
    return needle, rule.strip()


def shown_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers as a record keeps them: names lower-cased, credentials' values redacted."""
    out = {}
    for name, value in headers.items():
        key = name.lower()
        secret = key in SECRET_HEADERS or any(w in key for w in SECRET_WORDS)
        out[key] = REDACTED if secret else value
    return out


def method_kind(method: str) -> str:
    """`stream` for a streaming send on any binding or version, else `send`: what makes two
    messages with equal Parts the same call (RL501)."""
    return "stream" if method in STREAM_METHODS or method.endswith(STREAM_ROUTE) else "send"


def message_text(parts: Iterable[Mapping[str, Any]]) -> str:
    """What a message says, for the rule choice: its text Parts, and its data Parts as JSON."""
    said = []
    for part in parts:
        if isinstance(part.get("text"), str):
            said.append(part["text"])
        elif "data" in part:
            said.append(json.dumps(part["data"], sort_keys=True))
    return "\n".join(said)


@dataclass(frozen=True)
class Request:
    """One request the stub received: a message it refused, or a card fetch."""

    index: int  # 1-based, in arrival order
    method: str  # SendMessage, message/stream, POST /message:send, GET /.well-known/agent-card.json
    path: str
    version: str  # "1.0" | "0.3"; "" for a card fetch
    headers: dict[str, str]  # as shown_headers keeps them
    parts: tuple[dict[str, Any], ...]  # the message's Parts (v1.0 JSON shape, whatever was sent)
    rule: str | None = None  # the rule it was refused with; None: not a message
    extension_active: bool = False  # the client activated the Refusals extension
    retry_of: int | None = None  # the index of the refused request it repeats unchanged (RL501)

    @property
    def refused(self) -> bool:
        return self.rule is not None

    @property
    def kind(self) -> str:
        """`send` or `stream` (method_kind); "" for a card fetch."""
        return method_kind(self.method) if self.refused else ""

    def repeats(self, kind: str, parts: tuple[dict[str, Any], ...]) -> bool:
        """Whether a message of `kind` with `parts` is this refused request sent again unchanged."""
        return self.refused and self.kind == kind and self.parts == parts

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "method": self.method,
            "kind": self.kind,
            "path": self.path,
            "version": self.version,
            "headers": self.headers,
            "parts": list(self.parts),
            "rule": self.rule,
            "extension_active": self.extension_active,
            "retry_of": self.retry_of,
        }


@dataclass
class Recorder:
    """Every request, in order, and the consumer faults among them (RL501: the same method
    kind and equal Parts as a request already refused)."""

    card: StubCard
    base: str
    _requests: list[Request] = field(default_factory=list)
    _faults: list[Finding] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def requests(self) -> list[Request]:
        with self._lock:
            return list(self._requests)

    @property
    def faults(self) -> list[Finding]:
        with self._lock:
            return list(self._faults)

    def card_fetch(self, path: str, headers: Mapping[str, str]) -> None:
        with self._lock:
            index = len(self._requests) + 1
            self._requests.append(Request(index, f"GET {path}", path, "", shown_headers(headers), ()))

    def message(
        self,
        method: str,
        path: str,
        version: str,
        headers: Mapping[str, str],
        parts: Iterable[dict[str, Any]],
        extensions: Iterable[str] = (),
    ) -> tuple[Request, str]:
        """Record a message and the rule it is refused with: (the request, why that rule).
        It is a retry (RL501) when an earlier refused request had the same method kind and
        equal Parts (the module's docstring)."""
        said = tuple(parts)
        kind = method_kind(method)
        rule, why = self.card.choose(message_text(said))
        with self._lock:
            index = len(self._requests) + 1
            earlier = next((r for r in self._requests if r.repeats(kind, said)), None)
            request = Request(
                index,
                method,
                path,
                version,
                shown_headers(headers),
                said,
                rule,
                spec.URI in set(extensions),
                earlier.index if earlier else None,
            )
            self._requests.append(request)
            if earlier is not None:
                self._faults.append(
                    RL501.finding(
                        Loc(self.base + path),
                        f"request {index} ({method}) sent again, unchanged, the message of request "
                        f"{earlier.index} ({earlier.method}), which was refused with rule `{earlier.rule}`",
                        rule_id=earlier.rule,
                    )
                )
        return request, why

    def record(self) -> dict[str, Any]:
        """What --record writes: the stub, every request, and the consumer faults."""
        from refusal_lint.codes import is_error
        from refusal_lint.report.jsonout import finding_dict

        requests, faults = self.requests, self.faults
        return {
            "tool": {"name": "refusal-lint", "version": __version__},
            "url": self.base,
            "agent": self.card.name,
            "rules": self.card.rules,
            "requests": [r.as_dict() for r in requests],
            "findings": [finding_dict(f) for f in faults],
            "summary": {
                "requests": len(requests),
                "refused": sum(r.refused for r in requests),
                "errors": sum(is_error(f.code) for f in faults),
            },
        }
