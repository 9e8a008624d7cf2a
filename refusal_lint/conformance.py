"""Judge an A2A answer against Refusals v1 — for evals, tests and consumers (DESIGN §9).

The spec makes a refusal typed data "so callers can pre-filter their requests, workbenches
can render the refusal visibly, and evals can assert it". This is that assertion, as
plain functions: no network, and no a2a-sdk import unless you pass a2a-sdk objects.

    from refusal_lint import conformance as rc

    refusal = rc.find_refusal(answer)          # a consumer: render it, name the rule
    if refusal is not None:
        show(rc.render_text(refusal))          # ... and never retry it unchanged

    rc.assert_refusal(answer, card, rule="seg-mix")   # an eval or a test
    rc.assert_not_refused(answer)

`answer` may be a JSON-RPC response envelope (A2A v1.0 or v0.3), its `result`, an
HTTP+JSON body, a Message or Task dict, a list of Parts, a list of streamed events (judged
as the stream's final answer), JSON text of any of these, or the equivalent a2a-sdk
objects (v1.0 protobuf, v0.3 pydantic). `card` may be an AgentCard dict, its JSON or YAML
text or a path to it, the params map itself, or an a2a-sdk AgentCard. `probe` judges with this
same code.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, NamedTuple

from refusal_lint.core import spec
from refusal_lint.core.prompttext import fold_ws
from refusal_lint.live import answers
from refusal_lint.live.codes import CODES, RL400, RL401, RL402, RL403, RL404, RL405, RL406, RL407, RL408

_BY_CODE = {c.code: c for c in CODES}

__all__ = [
    "Finding",
    "Refusal",
    "assert_not_refused",
    "assert_refusal",
    "find_refusal",
    "judge",
    "render_text",
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
class AnswerFinding:
    """One way an answer breaks the spec (RL400-RL408, as `refusal-lint rule CODE` explains):
    a code and a message, with no location (model.Finding is the linter's, placed in a file)."""

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


# The public name (DESIGN §9: `rc.judge(...) -> list[rc.Finding]`, in `__all__`), kept for
# users' tests; AnswerFinding is the same class under a name model.Finding cannot be mistaken for.
Finding = AnswerFinding


# ---- the public functions -------------------------------------------------------------------


# Besides `name`, fields of an AgentCard no params map holds as its rule ids together.
_CARD_FIELDS = frozenset(
    {"url", "version", "description", "skills", "provider", "protocolVersion", "supportedInterfaces"}
)


def rules_of(card: Any) -> dict[str, str | None]:
    """The advertised rules (rule id -> reason) of a card, its JSON or YAML text or a path to
    it, an a2a-sdk AgentCard, or the params map itself. A string is JSON when it starts with
    `{`, YAML (or JSON) text when it holds a line break, else a path (read as the stub reads a
    card: JSON or YAML)."""
    data = _card_data(card)
    if not isinstance(data, dict):
        raise TypeError("card: an AgentCard (dict, JSON, path or a2a-sdk object) or a params map")
    if isinstance(data.get("capabilities"), dict) or ("name" in data and not _CARD_FIELDS.isdisjoint(data)):
        # Read as probe and check read a card (a near miss of the URI, RL102, keeps its
        # params as the rules; params that are no object leave none; no capabilities, none).
        from refusal_lint.static.checks.card import rule_sets
        from refusal_lint.static.extract.data import jsonpos
        from refusal_lint.static.extract.data.cards import find_extensions

        cards = rule_sets(find_extensions(jsonpos.parse(json.dumps(data), "card")))
        return {r.rule_id: r.reason for r in cards[0].rules} if cards and cards[0].usable else {}
    return {str(k): v if isinstance(v, str) else None for k, v in data.items()}


def _card_data(card: Any) -> Any:
    text = card.lstrip() if isinstance(card, str) else None
    if isinstance(card, os.PathLike) or (text is not None and not text.startswith("{") and "\n" not in text):
        from refusal_lint.live.stub.core import read_card

        return read_card(os.fspath(card))
    if text is not None and not text.startswith("{"):
        from refusal_lint.static.extract.data.yamlsafe import YamlError, load_plain

        try:
            return load_plain(card)
        except YamlError as exc:
            raise ValueError(f"card: not valid JSON/YAML: {exc}") from None
    return answers.plain(card)


def find_refusal(answer: Any) -> Refusal | None:
    """The refusal in an answer, or None (no refusal data Part: text only, an error envelope).

    The data Part is known by the refusal media type or, where none travels (v0.3) or it is
    a near miss, by its keys; `parts` are the refusal's own Parts."""
    kind, result = answers.answer_of(answer)
    if kind != answers.AnswerKind.RESULT:
        return None
    parts = answers.parts_of(result)
    part, known = answers.refusal_part(parts)
    if part is None:
        return None
    media = answers.media_of(part)
    if known == answers.KnownBy.KEYS and media and spec.media_type_kind(media) is None:
        return None  # an ordinary data Part (application/json) whose keys happen to be rule/reason
    data = answers.data_of(part)
    if not isinstance(data, dict) or not isinstance(data.get("rule"), str):
        return None
    reason = data.get("reason") if isinstance(data.get("reason"), str) else ""
    detail = data.get("detail") if isinstance(data.get("detail"), str) else None
    texts = [p for p in parts if answers.text_of(p) is not None]
    carrier = next((p for p in texts if fold_ws(answers.text_of(p) or "") == fold_ws(str(reason))), None)
    own = (part, carrier) if carrier is not None else (part,)
    return Refusal(data["rule"], str(reason), detail, own)


def render_text(refusal: Refusal) -> str:
    """The one line a plain client shows for a refusal (consumer requirement 1: visibly,
    naming the rule): `Refused (seg-mix): <reason>`."""
    return f"Refused ({refusal.rule}): {fold_ws(refusal.reason)}"


def judge(
    answer: Any, card: Any, rule: str | None = None, protocol: str | None = None
) -> list[AnswerFinding]:
    """Every way the answer breaks the spec, as `probe` reports them (RL400-RL408), warnings
    (RL408 for a v0.3 answer) included. `rule=None` accepts a refusal of any advertised
    rule; `rule="x"` answered by a refusal of another advertised rule is RL402 for x."""
    rules = rules_of(card)
    kind, result = answers.answer_of(answer)
    if kind == answers.AnswerKind.ERROR:
        what = result.get("message") if isinstance(result, dict) else result
        return [AnswerFinding(RL401.code, f"the refusal came back as a JSON-RPC error: {what}", rule)]
    if kind == answers.AnswerKind.NONE:
        return [AnswerFinding(RL400.code, "the answer holds neither a result nor an error", rule)]
    parts = answers.parts_of(result)
    protocol = protocol or answers.protocol_of(parts)
    faults = _judge_parts(parts, rules, protocol, rule, answers.unfinished(result))
    # A rule the card does not advertise (a stale probes file, a typo): said where it is judged.
    stale = f" (`{rule}` is not a rule the card advertises)" if rule is not None and rule not in rules else ""
    found = [AnswerFinding(f.code, f.message + ("" if f.code == RL405.code else stale), rule) for f in faults]
    # DESIGN §8: the note is for a refusal Part known by its keys; one whose media type
    # travelled (in its metadata, as v0.3 can carry it) was known by that, and gets none.
    by_keys = answers.refusal_part(parts)[1] == answers.KnownBy.KEYS
    if protocol == "0.3" and by_keys and not any(f.code in (RL402.code, RL404.code) for f in found):
        found.append(
            AnswerFinding(
                RL408.code,
                "A2A v0.3 data Parts carry no media type; the refusal Part was recognised by its keys",
                rule,
            )
        )
    return found


class _Fault(NamedTuple):
    code: str
    message: str


def _judge_parts(
    parts: list[dict[str, Any]],
    rules: dict[str, str | None],
    protocol: str,
    rule: str | None,
    state: str | None,
) -> list[_Fault]:
    """What is wrong with an answer whose envelope held a result (DESIGN §8: one fault, one
    code); `state`: the answer is a task still under way in that state."""
    refusal, how = answers.refusal_part(parts)
    if refusal is None:
        return [_lost_data_part(parts, rules, rule, state)]
    malformed = _malformed(refusal, how, protocol)
    if malformed is not None:
        return [malformed]
    data = answers.data_of(refusal)
    emitted, reason = data["rule"], data["reason"]
    if rule is not None and emitted != rule and emitted in rules:
        return [_Fault(RL402.code, f"the answer refused with another rule, `{emitted}`, not `{rule}`")]
    out: list[_Fault] = []
    texts = [p for p in parts if answers.text_of(p) is not None]
    advertised = rules.get(emitted) if emitted in rules else None
    carrier = next(
        (p for p in texts if _carries(p, reason) or _carries(p, advertised)),
        texts[0] if len(texts) == 1 else None,
    )
    if carrier is None:  # none at all, or several and none saying a reason (DESIGN §8)
        out.append(_Fault(RL403.code, "no text Part carries the reason"))
    if emitted not in rules:
        out.append(
            _Fault(RL405.code, f"the agent refused with rule `{emitted}`, which the card does not advertise")
        )
    elif advertised is not None and spec.one_line_reason(advertised):  # else RL106: nothing to compare
        wrong = [("data", reason)] if fold_ws(reason) != fold_ws(advertised) else []
        if carrier is not None and not _carries(carrier, advertised):
            wrong.append(("text", answers.text_of(carrier) or ""))
        if wrong:
            where, what = wrong[0]
            out.append(_Fault(RL406.code, f'the {where} Part says "{what}"; the card says "{advertised}"'))
    others = [p for p in parts if p is not refusal and p is not carrier]
    if others:
        out.append(_Fault(RL407.code, f"{len(others)} other Part(s) sit beside the refusal Parts"))
    return out


def _malformed(refusal: dict[str, Any], how: answers.KnownBy, protocol: str) -> _Fault | None:
    """RL404 for the refusal's data Part, if it is due: the wrong media type, or data that
    is not {rule, reason[, detail]} strings."""
    media = answers.media_of(refusal)
    # Known by its keys: only v0.3's Part with no media type at all is the refusal as it
    # should be; one naming another type (application/json, a near miss) is not, on either.
    if how == answers.KnownBy.KEYS and (media or protocol != "0.3"):
        return _Fault(
            RL404.code, f"the refusal data Part has media type `{media or 'none'}`, not `{spec.MEDIA_TYPE}`"
        )
    data = answers.data_of(refusal)
    if not (
        isinstance(data, dict)
        and set(data) <= spec.PAYLOAD_KEYS
        and {"rule", "reason"} <= set(data)
        and all(isinstance(v, str) for v in data.values())
    ):
        return _Fault(
            RL404.code,
            f"the refusal data is not {{rule, reason[, detail]}} strings: {json.dumps(data)[:200]}",
        )
    return None


def _carries(part: Any, reason: str | None) -> bool:
    """Does a text Part carry `reason` (spec: "a text/plain Part carrying the user-facing
    reason"): the reason whole, white space folded, maybe inside a line naming the rule
    (`Refused (seg-mix): ...`, as render_text writes it)?"""
    said = fold_ws(reason or "")
    return bool(said) and said in fold_ws(answers.text_of(part) or "")


def _lost_data_part(
    parts: list[dict[str, Any]], rules: dict[str, str | None], rule: str | None, state: str | None
) -> _Fault:
    """An answer with no refusal data Part: RL404 when a text Part carries the probed rule's
    reason (any card reason, for rule=None): a refusal that lost its data Part, typically
    because the client did not activate the extension (DESIGN §8). Else RL402, which says
    so when the answer is a task still under way (`state`): no fabricated answer yet, but
    no refusal either, where the spec has the refusal be the answer."""
    said = {fold_ws(answers.text_of(p) or "") for p in parts if answers.text_of(p) is not None}
    wanted = [rule] if rule is not None else list(rules)
    lost = next((r for r in wanted if rules.get(r) is not None and fold_ws(rules[r] or "") in said), None)
    if lost is not None:
        return _Fault(
            RL404.code,
            f"a text Part carries the reason of `{lost}` but no data Part has media type `{spec.MEDIA_TYPE}`",
        )
    if state is not None:
        return _Fault(
            RL402.code, f"the answer is a task still {state}, with no refusal: the rule should refuse in it"
        )
    return _Fault(RL402.code, "a normal answer came back where the rule should refuse")


def assert_refusal(answer: Any, card: Any, rule: str | None = None) -> Refusal:
    """Fail (AssertionError listing the findings) unless the answer is a conforming refusal
    (of `rule`, when given); warnings alone do not fail. Returns the refusal."""
    found = judge(answer, card, rule)
    errors = [f for f in found if f.severity == "error"]
    refusal = find_refusal(answer)
    # No error from judge means find_refusal finds the refusal; were they ever to part, the
    # failure still lists what judge found, never a bare `assert`.
    if errors or refusal is None:
        listed = [str(f) for f in errors or found] + ([] if errors else ["no refusal data Part was found"])
        raise AssertionError("not a conforming refusal:\n" + "\n".join(f"  {f}" for f in listed))
    return refusal


def assert_not_refused(answer: Any) -> None:
    """Fail exactly when the answer holds a refusal (find_refusal finds one)."""
    refusal = find_refusal(answer)
    if refusal is not None:
        raise AssertionError(f"the answer refused with rule `{refusal.rule}`: {refusal.reason}")
