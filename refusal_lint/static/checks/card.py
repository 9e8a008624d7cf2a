"""RL101-RL108: the extension entry and its params map (DESIGN §3, no cascade)."""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING

from refusal_lint.core import spec
from refusal_lint.core.kinds import ParamsKind, Severity, ValueKind
from refusal_lint.core.model import Code, Finding, Rule, RuleSet
from refusal_lint.static.checks.base import Check, Run

if TYPE_CHECKING:
    from refusal_lint.core.facts import ExtDecl
    from refusal_lint.static.bind.agent import Agent

RL101 = Code(
    code="RL101",
    name="extension-malformed",
    severity=Severity.ERROR,
    summary="`uri` not a string, `required` not a boolean, entry not an object",
    what="the refusals extension entry is not shaped as A2A's AgentExtension.",
    why="A2A clients and SDKs reject or misread such cards.",
    fix="an object with a string `uri`, an optional boolean `required` and the `params` map:",
    example="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1", "required": "no",
 "params": {"seg-mix": "One family per cut."}}
""",
    fixed="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1", "required": false,
 "params": {"seg-mix": "One family per cut."}}
""",
)

RL102 = Code(
    code="RL102",
    name="uri-near-miss",
    severity=Severity.ERROR,
    summary="an extension URI that is almost ours (`http://`, trailing `/`, `refusal/`, `v2`)",
    what="""an extension URI that equals the Refusals v1 URI once scheme, case, a trailing slash,
`refusal`/`refusals` and the version are folded (`http://...`, `.../refusals/v1/`, `.../refusal/v1`).""",
    why="clients match the URI exactly; a near miss means callers never see the refusals.",
    fix="use exactly https://standards.upperhandai.com/ext/refusals/v1",
    example="""==> agent-card.json (extensions) <==
{"uri": "http://standards.upperhandai.com/ext/refusals/v1/",
 "params": {"seg-mix": "One family per cut."}}
""",
    fixed="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
""",
)

RL103 = Code(
    code="RL103",
    name="params-empty",
    severity=Severity.ERROR,
    summary="params absent, null, or `{}`",
    what="the extension declares no rules.",
    why="the spec requires a non-empty map; an empty one advertises nothing and fails the probe.",
    fix="list each rule with its one-line reason:",
    example="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {}}
""",
    fixed="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
""",
)

RL104 = Code(
    code="RL104",
    name="params-not-flat",
    severity=Severity.ERROR,
    summary="params not an object, or a value that is not a string",
    what="""`params` is a list or a scalar, or one of its values is not a string (a nested object,
a number, null).""",
    why="the spec makes params a flat string-to-string map of rule id to reason.",
    fix="flatten it:",
    example="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": {"reason": "One family per cut."}}}
""",
    fixed="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
""",
)

RL105 = Code(
    code="RL105",
    name="rule-id-not-kebab",
    severity=Severity.ERROR,
    summary="rule id not `^[a-z0-9]+(-[a-z0-9]+)*$`",
    what="a rule id with capitals, underscores, spaces or doubled hyphens.",
    why="the spec requires kebab-case keys; consumers and evals match them literally.",
    fix="rename the key everywhere it appears: `Seg_Mix` -> `seg-mix`.",
    example="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"Seg_Mix": "One family per cut."}}
==> prompt.md <==
- Seg_Mix: One family per cut.
==> tools.py <==
from policy import refuse

def crosstab(families):
    return refuse("Seg_Mix") if len(families) > 1 else families
""",
    fixed="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
==> prompt.md <==
- seg-mix: One family per cut.
==> tools.py <==
from policy import refuse

def crosstab(families):
    return refuse("seg-mix") if len(families) > 1 else families
""",
)

RL106 = Code(
    code="RL106",
    name="reason-not-one-line",
    severity=Severity.ERROR,
    summary="reason blank, or holds a line break",
    what="a rule's reason is empty or spans several lines.",
    why="the reason is a one-line, user-facing text that clients render verbatim.",
    fix='one sentence on one line: "That demographic cut is not defined for this study."',
    example="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family\\nper cut."}}
""",
    fixed="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
""",
)

RL107 = Code(
    code="RL107",
    name="rule-id-duplicate",
    severity=Severity.ERROR,
    summary="the same key twice in one params object",
    what="a params object (JSON, YAML or a Python dict literal) repeats a key.",
    why="parsers keep only the last value, silently dropping the first reason.",
    fix="keep one entry per rule id (the last one is the one in effect).",
    example="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut.",
            "seg-mix": "One family per cut."}}
""",
    fixed="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
""",
)

RL108 = Code(
    code="RL108",
    name="extension-duplicate",
    severity=Severity.ERROR,
    summary="the refusals extension declared twice in one card",
    what="the card's extensions list holds the Refusals v1 entry twice.",
    why="clients pick one at random; the two maps can drift apart.",
    fix="merge both params maps into a single extension entry.",
    example="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}},
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
""",
    fixed="""==> agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
""",
)

CODES = (RL101, RL102, RL103, RL104, RL105, RL106, RL107, RL108)


def _usable(decl: ExtDecl) -> bool:
    """Does the entry's params map give rules to check against (RL103/RL104 say why not)?"""
    return decl.params_kind == ParamsKind.OBJECT and bool(decl.items)


def _rule_set(decl: ExtDecl) -> RuleSet:
    """The rules an extension entry advertises: the last reason of each id wins."""
    rules = {item.key: Rule(item.key, item.reason, item.loc) for item in decl.items}
    usable = _usable(decl)
    return RuleSet(
        loc=decl.loc,
        rules=tuple(rules.values()) if usable else (),
        usable=usable,
        agent_name=decl.agent_name,
        params_id=decl.params_id,
        computed=decl.params_loc if decl.params_kind == ParamsKind.UNRESOLVED and not decl.problems else None,
    )


def _entry_findings(decl: ExtDecl) -> list[Finding]:
    out = [RL101.finding(decl.loc, f"extension entry malformed: {p}") for p in decl.problems]
    exact = decl.uri is not None and spec.uri_kind(decl.uri) == "exact"
    if decl.uri is not None and not exact:
        out.append(RL102.finding(decl.loc, f"extension URI `{decl.uri}` is almost `{spec.URI}`"))
    empty = decl.params_kind == ParamsKind.OBJECT and not decl.items
    if decl.params_kind in (ParamsKind.ABSENT, ParamsKind.NULL) or empty:
        what = {ParamsKind.ABSENT: "no params", ParamsKind.NULL: "params is null"}.get(
            decl.params_kind, "params is {}"
        )
        out.append(RL103.finding(decl.loc, f"{what}: the extension advertises no rules"))
    elif decl.params_kind == ParamsKind.OTHER:
        out.append(RL104.finding(decl.params_loc or decl.loc, "params is not an object of rule id -> reason"))
    seen: set[str] = set()
    for item in decl.items:
        if item.key in seen:
            out.append(
                RL107.finding(
                    item.loc,
                    f"rule id `{item.key}` repeated in params (the last one wins)",
                    rule_id=item.key,
                )
            )
        seen.add(item.key)
    for rid, item in {i.key: i for i in decl.items}.items():  # the last of a repeated id
        loc = item.loc
        if item.reason is None and item.kind != ValueKind.UNKNOWN:
            out.append(
                RL104.finding(loc, f"the reason of `{rid}` is {_a(item.kind)}, not a string", rule_id=rid)
            )
        if not spec.is_kebab(rid):
            out.append(RL105.finding(loc, f"rule id `{rid}` is not kebab-case", rule_id=rid))
        if item.reason is not None and not spec.one_line_reason(item.reason):
            what = "blank" if not item.reason.strip() else "more than one line"
            out.append(RL106.finding(loc, f"the reason of `{rid}` is {what}", rule_id=rid))
    return out


def _a(kind: ValueKind) -> str:
    return {
        ValueKind.OBJECT: "an object",
        ValueKind.ARRAY: "an array",
        ValueKind.NUMBER: "a number",
        ValueKind.BOOL: "a boolean",
        ValueKind.NULL: "null",
    }.get(kind, kind)


def _by_card(decls: Iterable[ExtDecl]) -> tuple[list[ExtDecl], list[ExtDecl], list[ExtDecl]]:
    """Each card's first declaration, the repeats (RL108) in file order, and the entries
    that are no object (the URI alone: RL101) beside one that is: neither the card's
    declaration nor a repeat of it, it declares nothing."""
    first: dict[str, ExtDecl] = {}
    repeats: list[ExtDecl] = []
    bare: list[ExtDecl] = []
    for decl in sorted(decls, key=lambda d: (d.loc.path, d.loc.line, d.loc.col)):
        if spec.NOT_AN_OBJECT in decl.problems:
            bare.append(decl)
        elif decl.card in first:
            repeats.append(decl)
        else:
            first[decl.card] = decl
    others: list[ExtDecl] = []
    for decl in bare:  # the card's declaration only where it has no other
        if decl.card in first:
            others.append(decl)
        else:
            first[decl.card] = decl
    return list(first.values()), repeats, others


def rule_sets(decls: Iterable[ExtDecl]) -> list[RuleSet]:
    """One rule set per card: its first declaration's; and one for the cards of one file,
    which are one agent's: a public card and its authenticated extended card (A2A's
    `extended_agent_card`), whose rules are the public card's and those it adds."""
    out: list[RuleSet] = []
    at: dict[str, int] = {}
    for card in map(_rule_set, _by_card(decls)[0]):
        i = at.setdefault(card.loc.path, len(out))
        if i == len(out):
            out.append(card)
            continue
        out[i] = _extended(out[i], card)
    # An extended card built in another file from the public card's map (`{**PUBLIC, ...}`):
    # it holds the public card's rules themselves, where they stand, so it is no stale copy.
    for card in list(out):
        base = next((b for b in out if b is not card and _builds_on(card, b)), None)
        if base is not None and card in out:
            out[out.index(base)] = _extended(base, card)
            out.remove(card)
    return out


def _extended(first: RuleSet, card: RuleSet) -> RuleSet:
    """A public card's rule set with the rules its extended card adds."""
    known = first.rule_map()
    added = tuple(r for r in card.rules if r.rule_id not in known)
    return dataclasses.replace(first, rules=first.rules + added, usable=first.usable or card.usable)


def _builds_on(card: RuleSet, base: RuleSet) -> bool:
    """Does `card`, beside `base` in one folder, hold each of `base`'s rules at its place
    (spread from its map), and more? (Two agents' cards each stand in a folder of their own.)"""
    if posixpath.dirname(card.loc.path) != posixpath.dirname(base.loc.path) or not base.rules:
        return False
    own = {(r.rule_id, r.loc) for r in card.rules}
    return len(card.rules) > len(base.rules) and all((r.rule_id, r.loc) in own for r in base.rules)


def check_decls(decls: Iterable[ExtDecl]) -> list[Finding]:
    """Findings of every declaration (RL108 for a card's second one)."""
    firsts, repeats, others = _by_card(decls)
    findings = [f for d in firsts + repeats + others for f in _entry_findings(d)]
    findings += [
        RL108.finding(d.loc, "the refusals extension is declared twice in this card") for d in repeats
    ]
    return findings


def check(agent: Agent | None, run: Run) -> list[Finding]:
    """Every card's declarations, checked once for the tree."""
    return check_decls(run.bound.decls)


CHECK = Check("cards", CODES, check, per_agent=False)
