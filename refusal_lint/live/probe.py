"""`refusal-lint probe URL`: the spec's "Conformance (probed)" against a running agent.

Fetches the card (both well-known paths), runs the card checks on it, then sends one
provoking JSON-RPC request per rule that has a probe message and judges the answer
(RL400-RL408, DESIGN §8). Never contacts another host than the URL's, never sends more
than one request per rule, never retries.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

from refusal_lint import conformance
from refusal_lint.core import spec
from refusal_lint.core.errors import UsageError
from refusal_lint.core.model import Code, Finding, Loc, RuleSet
from refusal_lint.live import answers
from refusal_lint.live import stream as sse
from refusal_lint.live.codes import RL400, RL401
from refusal_lint.live.reach import (
    BINDINGS,
    Interface,
    Reach,
    interfaces,
    masked,
    pick_interface,
    request_for,
    secrets_of,
    without_password,
)
from refusal_lint.static.checks import card as card_checks
from refusal_lint.static.extract.data import cards as datacards
from refusal_lint.static.extract.data import jsonpos
from refusal_lint.static.extract.data.tree import TooDeep

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
MAX_BODY = 8 * 1024 * 1024
# Reach and the interfaces live in reach.py; the CLI, the fixture and tests name them from here.
__all__ = ["Interface", "ProbeResult", "Reach", "interfaces", "pick_interface", "probe"]


@dataclass
class ProbeResult:
    card_url: str = ""
    card: RuleSet | None = None
    agent_name: str = "agent"
    findings: list[Finding] = field(default_factory=list)
    protocol: str = ""


class _Unreachable(Exception):
    pass


def _client(
    host: str,
    timeout: float,
    transport: Any = None,
    headers: dict[str, str] | None = None,
    auth: tuple[str, str] | None = None,
) -> Any:
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
        auth=auth,
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


def probe(
    url: str,
    probes: dict[str, str],
    protocol: str | None,
    timeout: float,
    transport: Any = None,
    reach: Reach | None = None,
) -> ProbeResult:
    """Probe the agent at `url` (over `transport`, e.g. to an ASGI app in this process). What
    it sends as a secret (--header values, the URL's password) stands in no finding."""
    reach = reach or Reach()
    base = urlsplit(url if "://" in url else f"http://{url}")
    secrets, host = secrets_of(reach, base), base.hostname
    if base.scheme not in ("http", "https") or not host:
        raise UsageError(masked(f"{url}: not an http(s) URL", secrets))
    base, auth = without_password(base)
    for card_path in CARD_PATHS:  # the card's own URL given: the agent is where it stands
        if base.path.rstrip("/").endswith(card_path):
            base = base._replace(path=base.path.rstrip("/")[: -len(card_path)])
    result = ProbeResult()
    with _client(host, timeout, transport, dict(reach.headers), auth) as client:
        _run(client, base, probes, protocol, reach, result)
    result.card_url = masked(result.card_url, secrets)
    # An agent may echo what it was sent (an auth error quoting the token): never shown.
    result.findings = [
        dataclasses.replace(
            f,
            message=masked(f.message, secrets),
            loc=dataclasses.replace(f.loc, path=masked(f.loc.path, secrets)),
        )
        for f in result.findings
    ]
    return result


def _run(
    client: Any,
    base: SplitResult,
    probes: dict[str, str],
    protocol: str | None,
    reach: Reach,
    result: ProbeResult,
) -> None:
    root = urlunsplit((base.scheme, base.netloc, base.path.rstrip("/"), "", ""))
    fetched = _fetch_card(client, root, result)
    doc = _read_card(*fetched, result) if fetched is not None else None
    if doc is None or result.card is None:  # a finding says what stopped it (RL400, the card's)
        return
    iface = _interface(doc, base, reach, protocol, result)
    if iface is None:
        return
    rules = {r.rule_id: r.reason for r in result.card.rules}
    extensions = ", ".join(dict.fromkeys([spec.URI, *_required(doc), *reach.extensions]))
    streams = reach.stream and bool((doc.get("capabilities") or {}).get("streaming"))
    for rule_id, message in probes.items():
        result.findings += _probe_one(client, iface, rule_id, message, rules, extensions, False)
        if streams:
            result.findings += _probe_one(client, iface, rule_id, message, rules, extensions, True)


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
    card offers only bindings the probe does not speak, or not the one --binding asks."""
    advertised = interfaces(doc, base)
    iface = pick_interface(advertised, base, reach, protocol)
    if iface is None:
        spoken = ", ".join(sorted({i.binding for i in advertised}))
        said = (
            f"the card offers no {BINDINGS[reach.binding]} interface (asked by --binding {reach.binding});"
            f" it offers {spoken}"
            if reach.binding
            else f"the agent speaks only {spoken}, which the probe does not (it speaks JSONRPC and HTTP+JSON)"
        )
        result.findings.append(RL400.finding(Loc(result.card_url), said))
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
    url, body, headers = request_for(iface, message, extensions, stream)
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
            # DESIGN §8 makes it RL401; an auth error's status says what else it may be.
            auth = "; or the agent wants credentials: --header" if status in (401, 403) else ""
            return RL401, f"the refusal came back as an error (HTTP {status}{auth}): {what}"
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
