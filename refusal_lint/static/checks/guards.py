"""RL001 and RL301-RL306: guards and errors against the card."""

from __future__ import annotations

from typing import TYPE_CHECKING

from refusal_lint.core import prompttext, spec
from refusal_lint.core.kinds import EditKind, GuardStatus, Severity
from refusal_lint.core.model import Code, Edit, Finding, Loc, Rule, RuleSet, message_path
from refusal_lint.static.checks.base import Check, Run, one_line

if TYPE_CHECKING:
    from refusal_lint.static.bind.agent import Agent, BoundError, BoundGuard

RL001 = Code(
    code="RL001",
    name="card-missing",
    severity=Severity.ERROR,
    summary="guards fire kebab-form rule ids, but no card advertises the extension",
    what="""tool code refuses with rule ids such as `refuse("seg-mix")`, but no AgentCard in the
tree declares the Refusals v1 extension.""",
    why="""callers learn which computations are refused from the card; a refusal whose rule no
card advertises cannot be pre-filtered, and consumers cannot check it.""",
    fix="add the extension to the card, listing every rule the guards fire:",
    example="""==> agent-card.json (extensions) <==
""",
    fixed="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
""",
)

RL301 = Code(
    code="RL301",
    name="rule-unguarded",
    severity=Severity.ERROR,
    summary="a card rule that no guard fires",
    what="the card advertises a rule, but no tool-level guard ever refuses with it.",
    why="the agent promises a refusal it relies on the model alone to deliver.",
    fix="add a guard in the tool code:",
    example="""==> tools.py <==
def crosstab(families):
    return families
""",
    fixed="""==> tools.py <==
from policy import refuse

def crosstab(families):
    return refuse("seg-mix") if len(families) > 1 else families
""",
)

RL302 = Code(
    code="RL302",
    name="guard-unknown-rule",
    severity=Severity.ERROR,
    summary="a guard fires a rule the card does not advertise (did-you-mean)",
    what="""a guard refuses with a rule id that is not a key of the card's params (the message
suggests the nearest card rule).""",
    why="consumers must match the emitted rule against the card; an unknown rule breaks them.",
    fix='use the card\'s id (`refuse("seg-mix")`, not `refuse("seg_mix")`), or advertise the rule.',
    example="""==> tools.py <==
from policy import refuse

def crosstab(families, cut):
    if cut == "zodiac":
        return refuse("astro-cut")
    return refuse("seg-mix") if len(families) > 1 else families
""",
    fixed="""==> tools.py <==
from policy import refuse

def crosstab(families):
    return refuse("seg-mix") if len(families) > 1 else families
""",
)

RL303 = Code(
    code="RL303",
    name="guard-reason-mismatch",
    severity=Severity.ERROR,
    fixable=True,
    summary="a guard passes a literal reason other than the card's",
    what='a guard passes `reason="..."` that differs from the card\'s reason for that rule.',
    why="the runtime Part must carry the advertised one-liner.",
    fix="`refusal-lint check --fix` rewrites the literal; better, read it from the params map:",
    example="""==> tools.py <==
from policy import refuse

def crosstab(families):
    return refuse("seg-mix", reason="Families never mix.") if len(families) > 1 else families
""",
    fixed="""==> tools.py <==
from policy import RULES, refuse

def crosstab(families):
    return refuse("seg-mix", reason=RULES["seg-mix"]) if len(families) > 1 else families
""",
)

RL304 = Code(
    code="RL304",
    name="guard-rule-unresolved",
    severity=Severity.WARNING,
    summary="a guard's rule id cannot be resolved statically",
    what="""the rule id is computed at run time (`refuse(pick(x))`, `refuse(f"seg-{kind}")`, a
local variable), so it cannot be checked against the card.""",
    why="a typo there would only show in production.",
    fix="""use a literal, a constant or an enum member; or suppress with
`# refusal-lint: ignore[RL304]` where the dynamism is intended.""",
    example="""==> tools.py <==
from policy import refuse

from policy import rule_for

def crosstab(families, kind):
    return refuse("seg-mix") if len(families) > 1 else refuse(rule_for(kind))
""",
    fixed="""==> tools.py <==
from policy import refuse

from policy import rule_for

def crosstab(families, kind):
    return refuse("seg-mix") if len(families) > 1 else refuse(rule_for(kind))  # refusal-lint: ignore[RL304]
""",
)

RL305 = Code(
    code="RL305",
    name="refusal-as-error",
    severity=Severity.ERROR,
    summary="a refusal is raised or returned as a protocol error",
    what="""a refusal travels in a JSON-RPC error (`JSONRPCError`, `ServerError`, `A2AError` and
a2a-sdk's error classes such as `UnsupportedOperationError`, `HTTPException`, `McpError`, an
`{"error": ...}` envelope): a guard or payload
inside it, or a local every binding of which is one (`payload = refuse("seg-mix")`), or an
error built where a refusal exception is caught (`except Refusal:`).""",
    why="""the spec makes a refused request a successful exchange: a normal result carrying a
text Part and a refusal data Part.""",
    fix="return the two Parts in the result instead of raising the error.",
    example="""==> tools.py <==
from fastapi import HTTPException


def crosstab(families):
    if len(families) > 1:
        raise HTTPException(422, detail={"rule": "seg-mix", "reason": "One family per cut."})
    return families
""",
    fixed="""==> tools.py <==
from policy import refuse

def crosstab(families):
    return refuse("seg-mix") if len(families) > 1 else families
""",
)

RL306 = Code(
    code="RL306",
    name="refusal-part-malformed",
    severity=Severity.ERROR,
    summary="a refusal payload with extra keys, no rule, or a near-miss media type",
    what="""a refusal data payload holds keys other than rule/reason/detail, lacks `rule`, or
its Part's media type is almost `application/vnd.upperhand.refusal+json`.""",
    why="consumers recognise refusals by the exact media type and keys.",
    fix="""{"rule": "seg-mix", "reason": "...", "detail": "..."} with
media type application/vnd.upperhand.refusal+json.""",
    example="""==> tools.py <==
from policy import refuse

def crosstab(families):
    return refuse("seg-mix") if len(families) > 1 else families

def payload():
    return {"rule": "seg-mix", "reason": "One family per cut.", "code": 422}
""",
    fixed="""==> tools.py <==
from policy import refuse

def crosstab(families):
    return refuse("seg-mix") if len(families) > 1 else families

def payload():
    return {"rule": "seg-mix", "reason": "One family per cut."}
""",
)

CODES = (RL001, RL301, RL302, RL303, RL304, RL305, RL306)


def _payloads(guards: list[BoundGuard]) -> list[Finding]:
    """RL306: refusal payloads with keys beyond rule/reason/detail, no rule, or a near-miss
    media type; one finding a payload, saying each of its faults."""
    out: list[Finding] = []
    for g in guards:
        faults = []
        if g.extra_keys:
            keys = ", ".join(g.extra_keys)
            faults.append(f"refusal payload has keys other than rule/reason/detail: {keys}")
        if g.media_near:
            faults.append(f"media type `{g.media_near}` is almost `{spec.MEDIA_TYPE}`")
        if g.status == GuardStatus.NONE and not g.media_near:
            faults.append("refusal payload has no `rule`")
        if faults:
            out.append(RL306.finding(g.loc, "; ".join(faults), rule_id=g.rule_id))
    return out


def _as_errors(errors: list[BoundError]) -> list[Finding]:
    """RL305: each refusal sent as a protocol error, once a line: an error built by a helper
    and wrapped in another at its call site (`raise ServerError(error=refusal_error("x-y"))`)
    is one refusal, as the same nesting written inline is; the outermost error names it."""
    first: dict[tuple[str, int, str | None], BoundError] = {}
    for e in sorted(errors, key=lambda e: (e.loc.path, e.loc.line, e.loc.col)):
        first.setdefault((e.loc.path, e.loc.line, e.rule_id), e)
    return [
        RL305.finding(
            e.loc,
            f"a refusal is sent as a protocol error ({e.name}); the spec makes "
            "a refused request a successful result carrying the refusal Parts",
            rule_id=e.rule_id,
        )
        for e in first.values()
    ]


def _reason_edit(g: BoundGuard, reason: str) -> Edit | None:
    """--fix's rewrite of a guard's literal reason to the card's."""
    if not (g.reason_literal and g.reason_loc is not None and g.reason is not None):
        return None
    r = g.reason_loc
    return Edit(
        path=r.path,
        line=r.line,
        old=g.reason,
        new=reason,
        kind=EditKind.LITERAL,
        col=r.col,
        end_line=r.end_line,
        end_col=r.end_col,
    )


def _against(g: BoundGuard, rules: dict[str, Rule]) -> Finding | None:
    """RL304, RL302 or RL303: what is wrong with one guard against the card, if anything."""
    if g.status == GuardStatus.UNRESOLVED:
        return RL304.finding(g.loc, "the rule id of this guard cannot be resolved statically")
    if g.status != GuardStatus.ID or g.rule_id is None:
        return None
    rule = rules.get(g.rule_id)
    if rule is None:
        near = spec.nearest(g.rule_id, list(rules))
        hint = f"; did you mean `{near}`?" if near else ""
        return RL302.finding(
            g.loc,
            f"guard fires rule `{g.rule_id}`, which the card does not advertise{hint}",
            rule_id=g.rule_id,
        )
    if (
        g.reason is None
        or rule.reason is None
        or not spec.one_line_reason(rule.reason)  # RL106: nothing to compare with
        or prompttext.fold_ws(g.reason) == prompttext.fold_ws(rule.reason)
    ):
        return None
    return RL303.finding(
        g.loc,
        f'guard passes reason "{one_line(g.reason)}" for `{g.rule_id}`; '
        f'the card says "{one_line(rule.reason)}"',
        rule_id=g.rule_id,
        edit=_reason_edit(g, rule.reason),
    )


def check_guards(card: RuleSet | None, guards: list[BoundGuard], errors: list[BoundError]) -> list[Finding]:
    """The guards and errors of one agent (or of a tree with none) against its card."""
    out = _payloads(guards) + _as_errors(errors)
    if card is None or not card.usable or not card.rules:
        return out
    rules = card.rule_map()
    out += [f for g in guards if (f := _against(g, rules)) is not None]
    fired = {e.rule_id for e in errors if e.rule_id}
    fired |= {g.rule_id for g in guards if g.status == GuardStatus.ID and g.rule_id is not None}
    out += [
        RL301.finding(
            rule.loc, f"rule `{rule.rule_id}` is advertised but no guard fires it", rule_id=rule.rule_id
        )
        for rule in card.rules
        if rule.rule_id not in fired
    ]
    return out


def check_cardless(guards: list[BoundGuard], foreign: tuple[tuple[Loc, str], ...] = ()) -> list[Finding]:
    """RL001: guards fire kebab rule ids and no card (exact or near miss) exists. One per id.
    An extension whose uri binding cannot read may be the card: said so, and why."""
    first: dict[str, BoundGuard] = {}
    for g in sorted(guards, key=lambda g: (g.loc.path, g.loc.line, g.loc.col)):
        if g.status == GuardStatus.ID and g.rule_id and spec.is_kebab(g.rule_id):
            first.setdefault(g.rule_id, g)
    hint = ""
    if foreign:
        loc, why = foreign[0]
        hint = f" (if the extension at {message_path(loc.path)}:{loc.line} is it, {why})"
    return [
        RL001.finding(
            g.loc,
            f"guards fire rule `{rid}`, but no card advertises the refusals extension{hint}",
            rule_id=rid,
        )
        for rid, g in first.items()
    ]


def check(agent: Agent | None, run: Run) -> list[Finding]:
    """An agent's guards against its card (none, or unusable params as RL100, RL103 and
    RL104 say: its RL3xx are skipped); a tree with no agent: its guards against no card,
    and RL001 where no card is configured either (a configured one missing is RL100 alone)."""
    if agent is None:
        cardless = [] if run.configured_cards else check_cardless(run.bound.guards, run.bound.foreign_uris)
        return cardless + check_guards(None, run.bound.guards, run.bound.protocol_errors)
    unread = agent.card is not None and agent.card.broken  # its card unread: as a tree with none
    if unread or (agent.card is None and not agent.card_path):  # configured with no card
        return check_cardless(agent.guards) + check_guards(None, agent.guards, agent.protocol_errors)
    if agent.card is None or not agent.checked:
        return []
    return check_guards(agent.card, agent.guards, agent.protocol_errors)


CHECK = Check("guards", CODES, check)
