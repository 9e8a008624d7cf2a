"""Judge an A2A answer against Refusals v1 — for evals, tests and consumers (DESIGN §9).

The spec makes a refusal typed data "so callers can pre-filter their requests, workbenches
can render the refusal visibly, and evals can assert it". This is that assertion, as
plain functions: no network, and no a2a-sdk import unless you pass a2a-sdk objects.

    from refusal_lint import conformance as rc

    refusal = rc.find_refusal(answer)          # a consumer: render it, name the rule
    if refusal is not None:
        show(f"{refusal.reason} ({refusal.rule})")  # ... and never retry it unchanged

    rc.assert_refusal(answer, card, rule="seg-mix")   # an eval or a test
    rc.assert_not_refused(answer)

`answer` may be a JSON-RPC response envelope (A2A v1.0 or v0.3), its `result`, an
HTTP+JSON body, a Message or Task dict, a list of Parts, a list of streamed events (judged
as the stream's final answer), JSON text of any of these, or the equivalent a2a-sdk
objects (v1.0 protobuf, v0.3 pydantic). `card` may be an AgentCard dict, its JSON text or
a path to it, the params map itself, or an a2a-sdk AgentCard. `probe` judges with this
same code.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from refusal_lint import answers, spec
from refusal_lint.model import Code, Severity
from refusal_lint.prompttext import fold_ws

RL400 = Code(
    code="RL400",
    name="probe-unreachable",
    severity=Severity.ERROR,
    summary="the card or the endpoint cannot be fetched",
    what="""`refusal-lint probe` could not fetch the card (both well-known paths) or get an
answer from the agent's JSON-RPC endpoint: connection refused, an HTTP error status, a
timeout, or a body that is not JSON.""",
    why="nothing can be probed; the agent is down, misrouted, or not an A2A agent.",
    fix="""check the URL, that the agent serves /.well-known/agent-card.json, and that its
interface url answers JSON-RPC POSTs.""",
)

RL401 = Code(
    code="RL401",
    name="refusal-as-jsonrpc-error",
    severity=Severity.ERROR,
    summary="the envelope holds `error` instead of `result`",
    what="the provoked request came back as a JSON-RPC error object.",
    why="""the spec makes a refused request a successful exchange: a normal result carrying
the refusal Parts, never a protocol error.""",
    fix="return a message with the text Part and the refusal data Part instead of raising:",
    example='{"jsonrpc": "2.0", "id": 1, "result": {"message": {"parts": [...]}}}',
)

RL402 = Code(
    code="RL402",
    name="refusal-not-fired",
    severity=Severity.ERROR,
    summary="a normal answer came back where the rule should refuse",
    what="the message written to provoke the rule got an ordinary answer, with no refusal Part.",
    why="""a refused computation answered anyway is a fabricated answer, the one thing the
spec forbids outright.""",
    fix="make the tool-level guard fire for this request, or correct the probe message.",
)

RL403 = Code(
    code="RL403",
    name="text-part-missing",
    severity=Severity.ERROR,
    summary="no text/plain Part carrying the reason",
    what="the refusal came with its data Part but no text Part.",
    why="plain clients that ignore data Parts show nothing; the spec asks for both Parts.",
    fix="emit a text Part holding the reason next to the data Part.",
)

RL404 = Code(
    code="RL404",
    name="data-part-malformed",
    severity=Severity.ERROR,
    summary="no data Part with the refusal media type, or its data is not {rule, reason[, detail]}",
    what="""the refusal's data Part is missing, carries another media type, or its data has
other keys or non-string values.""",
    why="""consumers recognise a refusal by the media type application/vnd.upperhand.refusal+json
and read exactly rule, reason and detail.""",
    fix='{"data": {"rule": "seg-mix", "reason": "...", "detail": "..."},',
    example='  "mediaType": "application/vnd.upperhand.refusal+json"}',
)

RL405 = Code(
    code="RL405",
    name="refused-rule-unadvertised",
    severity=Severity.ERROR,
    summary="the emitted `rule` is not a key of the card's params",
    what="the agent refused with a rule id its card does not advertise.",
    why="""consumers must find the emitted rule in the card's map; an unknown one cannot be
rendered or filtered.""",
    fix="emit the card's id, or add the rule to the card.",
)

RL406 = Code(
    code="RL406",
    name="refused-reason-mismatch",
    severity=Severity.ERROR,
    summary="the emitted reason (or the text Part) is not the advertised one-liner",
    what="""the data Part's `reason`, or the text Part, says something other than the card's
reason for the emitted rule.""",
    why="the reason is the advertised one-liner; callers and evals compare it verbatim.",
    fix="read the reason from the card's params map when building both Parts.",
)

RL407 = Code(
    code="RL407",
    name="refusal-mixed-with-content",
    severity=Severity.ERROR,
    summary="other Parts sit beside the refusal Parts",
    what="""besides the refusal's text and data Parts, the answer holds other text, data or
file Parts.""",
    why="""the refusal Parts must replace the result entirely; anything beside them is an
answer the agent said it would not give.""",
    fix="return only the two refusal Parts.",
)

RL408 = Code(
    code="RL408",
    name="media-type-untransported",
    severity=Severity.WARNING,
    summary="a v0.3 agent: data Parts carry no media type",
    what="""the agent was probed over A2A v0.3, where data Parts have no media type, so the
refusal Part was recognised by its keys.""",
    why="consumers on v0.3 cannot tell a refusal from other data by its type.",
    fix="""serve A2A v1.0 (the a2a-sdk serves both on one endpoint), or put the media type in
the Part's metadata.""",
)

# The probe codes (DESIGN §3), judged here and by `refusal-lint probe`.
CODES = (RL400, RL401, RL402, RL403, RL404, RL405, RL406, RL407, RL408)

_BY_CODE = {c.code: c for c in CODES}

__all__ = [
    "Finding",
    "Refusal",
    "assert_not_refused",
    "assert_refusal",
    "find_refusal",
    "judge",
    "rules_of",
]


@dataclass(frozen=True)
class Refusal:
    """A refusal found in an answer: what a consumer renders (naming the rule)."""

    rule: str
    reason: str
    detail: str | None
    parts: tuple[dict[str, Any], ...]  # the refusal's own Parts: its data Part, then its text Part


@dataclass(frozen=True)
class Finding:
    """One way an answer breaks the spec (RL400-RL408, as `refusal-lint rule CODE` explains)."""

    code: str
    message: str
    rule_id: str | None = None

    @property
    def name(self) -> str:
        return _BY_CODE[self.code].name

    @property
    def severity(self) -> str:
        return _BY_CODE[self.code].severity

    def __str__(self) -> str:
        rule = f" [{self.rule_id}]" if self.rule_id else ""
        return f"{self.code}{rule} {self.name}: {self.message}"


# ---- the public functions -------------------------------------------------------------------


def rules_of(card: Any) -> dict[str, str | None]:
    """The advertised rules (rule id -> reason) of a card, its JSON text or path, an a2a-sdk
    AgentCard, or the params map itself."""
    if isinstance(card, str) and not card.lstrip().startswith("{"):
        with open(os.fspath(card), encoding="utf-8-sig") as fh:
            card = fh.read()
    elif isinstance(card, os.PathLike):
        with open(card, encoding="utf-8-sig") as fh:
            card = fh.read()
    data = answers.plain(card)
    if not isinstance(data, dict):
        raise TypeError("card: an AgentCard (dict, JSON, path or a2a-sdk object) or a params map")
    caps = data.get("capabilities")
    if isinstance(caps, dict):
        for ext in caps.get("extensions") or []:
            if isinstance(ext, dict) and ext.get("uri") == spec.URI:
                params = ext.get("params") or {}
                return {str(k): v if isinstance(v, str) else None for k, v in params.items()}
        return {}
    return {str(k): v if isinstance(v, str) else None for k, v in data.items()}


def find_refusal(answer: Any) -> Refusal | None:
    """The refusal in an answer, or None (no refusal data Part: text only, an error envelope).

    The data Part is known by the refusal media type or, where none travels (v0.3) or it is
    a near miss, by its keys; `parts` are the refusal's own Parts."""
    kind, result = answers.answer_of(answer)
    if kind != answers.AnswerKind.RESULT:
        return None
    parts = answers.parts_of(result)
    part, _ = answers.refusal_part(parts)
    if part is None:
        return None
    data = answers.data_of(part)
    if not isinstance(data, dict) or not isinstance(data.get("rule"), str):
        return None
    reason = data.get("reason") if isinstance(data.get("reason"), str) else ""
    detail = data.get("detail") if isinstance(data.get("detail"), str) else None
    texts = [p for p in parts if answers.text_of(p) is not None]
    carrier = next((p for p in texts if fold_ws(answers.text_of(p) or "") == fold_ws(str(reason))), None)
    own = (part, carrier) if carrier is not None else (part,)
    return Refusal(data["rule"], str(reason), detail, own)


def judge(answer: Any, card: Any, rule: str | None = None, protocol: str | None = None) -> list[Finding]:
    """Every way the answer breaks the spec, as `probe` reports them (RL400-RL408), warnings
    (RL408 for a v0.3 answer) included. `rule=None` accepts a refusal of any advertised
    rule; `rule="x"` answered by a refusal of another advertised rule is RL402 for x."""
    rules = rules_of(card)
    kind, result = answers.answer_of(answer)
    if kind == answers.AnswerKind.ERROR:
        what = result.get("message") if isinstance(result, dict) else result
        return [Finding(RL401.code, f"the refusal came back as a JSON-RPC error: {what}", rule)]
    if kind == answers.AnswerKind.NONE:
        return [Finding(RL400.code, "the answer holds neither a result nor an error", rule)]
    parts = answers.parts_of(result)
    protocol = protocol or answers.protocol_of(parts)
    found = [Finding(code, message, rule) for code, message in _judge_parts(parts, rules, protocol, rule)]
    if protocol == "0.3" and not any(f.code in (RL402.code, RL404.code) for f in found):
        found.append(
            Finding(
                RL408.code,
                "A2A v0.3 data Parts carry no media type; the refusal Part was recognised by its keys",
                rule,
            )
        )
    return found


def _judge_parts(
    parts: list[dict[str, Any]], rules: dict[str, str | None], protocol: str, rule: str | None
) -> list[tuple[str, str]]:
    """(code, message) for an answer whose envelope held a result (DESIGN §8: one fault, one code)."""
    refusal, how = answers.refusal_part(parts)
    if refusal is None:
        return [(RL402.code, "a normal answer came back where the rule should refuse")]
    if how == answers.KnownBy.KEYS and protocol != "0.3":
        return [
            (
                RL404.code,
                f"the refusal data Part has media type `{answers.media_of(refusal) or 'none'}`, "
                f"not `{spec.MEDIA_TYPE}`",
            )
        ]
    data = answers.data_of(refusal)
    if not (
        isinstance(data, dict)
        and set(data) <= spec.PAYLOAD_KEYS
        and {"rule", "reason"} <= set(data)
        and all(isinstance(v, str) for v in data.values())
    ):
        shown = json.dumps(data)[:200]
        return [(RL404.code, f"the refusal data is not {{rule, reason[, detail]}} strings: {shown}")]
    emitted, reason = data["rule"], data["reason"]
    if rule is not None and emitted != rule and emitted in rules:
        return [(RL402.code, f"the answer refused with another rule, `{emitted}`, not `{rule}`")]
    out: list[tuple[str, str]] = []
    texts = [p for p in parts if answers.text_of(p) is not None]
    advertised = rules.get(emitted) if emitted in rules else None
    carrier = next(
        (
            p
            for p in texts
            if fold_ws(answers.text_of(p) or "") in {fold_ws(reason), fold_ws(advertised or "")}
        ),
        texts[0] if len(texts) == 1 else None,
    )
    if not texts:
        out.append((RL403.code, "no text Part carries the reason"))
    if emitted not in rules:
        out.append(
            (RL405.code, f"the agent refused with rule `{emitted}`, which the card does not advertise")
        )
    elif advertised is not None:
        said = [("data", reason)] + (
            [("text", answers.text_of(carrier) or "")] if carrier is not None else []
        )
        wrong = [(where, what) for where, what in said if fold_ws(what) != fold_ws(advertised)]
        if wrong:
            where, what = wrong[0]
            out.append((RL406.code, f'the {where} Part says "{what}"; the card says "{advertised}"'))
    others = [p for p in parts if p is not refusal and p is not carrier]
    if others:
        out.append((RL407.code, f"{len(others)} other Part(s) sit beside the refusal Parts"))
    return out


def assert_refusal(answer: Any, card: Any, rule: str | None = None) -> Refusal:
    """Fail (AssertionError listing the findings) unless the answer is a conforming refusal
    (of `rule`, when given); warnings alone do not fail. Returns the refusal."""
    errors = [f for f in judge(answer, card, rule) if f.severity == "error"]
    if errors:
        raise AssertionError("not a conforming refusal:\n" + "\n".join(f"  {f}" for f in errors))
    refusal = find_refusal(answer)
    assert refusal is not None  # no error finding means a refusal was found
    return refusal


def assert_not_refused(answer: Any) -> None:
    """Fail exactly when the answer holds a refusal (find_refusal finds one)."""
    refusal = find_refusal(answer)
    if refusal is not None:
        raise AssertionError(f"the answer refused with rule `{refusal.rule}`: {refusal.reason}")
