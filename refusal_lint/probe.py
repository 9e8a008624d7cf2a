"""`refusal-lint probe URL`: the spec's "Conformance (probed)" against a running agent.

Fetches the card (both well-known paths), runs the card checks on it, then sends one
provoking JSON-RPC request per rule that has a probe message and judges the answer
(RL400-RL408, DESIGN §8). Never contacts another host than the URL's, never sends more
than one request per rule, never retries.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from refusal_lint import conformance, spec
from refusal_lint.checks import card as card_checks
from refusal_lint.errors import UsageError
from refusal_lint.extract import datacards, jsonpos
from refusal_lint.extract.tree import TooDeep
from refusal_lint.model import Card, Finding, Loc

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
MAX_BODY = 8 * 1024 * 1024


@dataclass
class ProbeResult:
    card_url: str = ""
    card: Card | None = None
    agent_name: str = "agent"
    findings: list[Finding] = field(default_factory=list)
    protocol: str = ""


class _Unreachable(Exception):
    pass


def _client(host: str, timeout: float, transport: Any = None) -> Any:
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
        headers={"User-Agent": "refusal-lint-probe"},
    )


def _fetch(client: Any, method: str, url: str, **kw: Any) -> Any:
    import httpx

    try:
        response = client.request(method, url, **kw)
    except _Unreachable:
        raise
    except httpx.TimeoutException:
        raise _Unreachable(f"{url}: timed out") from None
    except httpx.HTTPError as exc:
        raise _Unreachable(f"{url}: {type(exc).__name__}: {exc}") from None
    if response.status_code >= 400:
        raise _Unreachable(f"{url}: HTTP {response.status_code}")
    if len(response.content) > MAX_BODY:
        raise _Unreachable(f"{url}: answer larger than {MAX_BODY} bytes")
    return response


def _interface(card: dict[str, Any], base: Any, forced: str | None) -> tuple[str, str]:
    """(endpoint url on the URL's own host, protocol "1.0" | "0.3")."""
    url, protocol = "", ""
    for iface in card.get("supportedInterfaces") or []:
        if isinstance(iface, dict) and str(iface.get("protocolBinding", "JSONRPC")).upper() == "JSONRPC":
            url, protocol = str(iface.get("url", "")), "1.0"
            break
    if not url and isinstance(card.get("url"), str):
        url, protocol = card["url"], "0.3"
    protocol = forced or protocol or "1.0"
    parts = urlsplit(url) if url else base
    # The interface's path, on the probed URL's own scheme, host and port.
    return urlunsplit((base.scheme, base.netloc, parts.path or "/", parts.query, "")), protocol


def _request(message: str, protocol: str) -> tuple[dict[str, Any], dict[str, str]]:
    mid = str(uuid.uuid4())
    if protocol == "0.3":
        params = {
            "message": {
                "kind": "message",
                "messageId": mid,
                "role": "user",
                "parts": [{"kind": "text", "text": message}],
            }
        }
        return (
            {"jsonrpc": "2.0", "id": mid, "method": "message/send", "params": params},
            {"X-A2A-Extensions": spec.URI},
        )
    params = {"message": {"messageId": mid, "role": "ROLE_USER", "parts": [{"text": message}]}}
    return (
        {"jsonrpc": "2.0", "id": mid, "method": "SendMessage", "params": params},
        {"A2A-Version": "1.0", "A2A-Extensions": spec.URI},
    )


def probe(
    url: str, probes: dict[str, str], protocol: str | None, timeout: float, transport: Any = None
) -> ProbeResult:
    """Probe the agent at `url` (over `transport`, e.g. to an ASGI app in this process)."""
    base = urlsplit(url if "://" in url else f"http://{url}")
    if base.scheme not in ("http", "https") or not base.hostname:
        raise UsageError(f"{url}: not an http(s) URL")
    result = ProbeResult()
    root = urlunsplit((base.scheme, base.netloc, base.path.rstrip("/"), "", ""))
    with _client(base.hostname, timeout, transport) as client:
        card_doc: dict[str, Any] | None = None
        errors = []
        for path in CARD_PATHS:
            result.card_url = root + path
            try:
                response = _fetch(client, "GET", result.card_url)
                text = response.text
                card_doc = json.loads(text)
                break
            except _Unreachable as exc:
                errors.append(str(exc))
            except ValueError:
                errors.append(f"{result.card_url}: not JSON")
        if card_doc is None:
            result.card_url = root + CARD_PATHS[0]
            result.findings.append(Finding("RL400", Loc(result.card_url), "; ".join(errors)))
            return result
        try:
            tree = jsonpos.parse(text, result.card_url)
        except (jsonpos.JsonError, TooDeep) as exc:
            result.findings.append(
                Finding("RL400", Loc(result.card_url), f"the card is not readable JSON: {exc}")
            )
            return result
        found, cards = card_checks.check_decls(datacards.find_extensions(tree))
        result.findings += found
        if isinstance(card_doc, dict) and isinstance(card_doc.get("name"), str):
            result.agent_name = card_doc["name"]
        if not cards or not cards[0].usable:
            if not cards:
                result.findings.append(
                    Finding("RL400", Loc(result.card_url), "the card does not declare the refusals extension")
                )
            return result
        result.card = cards[0]
        rules = {r.rule_id: r.reason for r in result.card.rules}
        endpoint, result.protocol = _interface(card_doc if isinstance(card_doc, dict) else {}, base, protocol)
        for rule_id, message in probes.items():
            result.findings += _probe_one(client, endpoint, rule_id, message, rules, result.protocol)
    return result


def _probe_one(
    client: Any, endpoint: str, rule_id: str, message: str, rules: dict[str, str | None], protocol: str
) -> list[Finding]:
    loc = Loc(endpoint)
    body, headers = _request(message, protocol)
    try:
        response = _fetch(client, "POST", endpoint, json=body, headers=headers)
        envelope = response.json()
    except _Unreachable as exc:
        return [Finding("RL400", loc, str(exc), rule_id=rule_id)]
    except ValueError:
        return [Finding("RL400", loc, f"{endpoint}: the answer is not JSON", rule_id=rule_id)]
    if not isinstance(envelope, dict):
        return [Finding("RL400", loc, f"{endpoint}: the answer is not a JSON-RPC envelope", rule_id=rule_id)]
    if "error" not in envelope and "result" not in envelope:
        return [
            Finding("RL400", loc, f"{endpoint}: the envelope holds neither result nor error", rule_id=rule_id)
        ]
    # The same judgement evals and tests use (refusal_lint.conformance, DESIGN §9).
    return [
        Finding(f.code, loc, f.message, rule_id=rule_id)
        for f in conformance.judge(envelope, rules, rule=rule_id, protocol=protocol)
    ]
