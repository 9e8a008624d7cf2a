"""RL101-RL108: the extension entry and its params map (DESIGN §3, no cascade)."""

from __future__ import annotations

from collections.abc import Iterable

from refusal_lint import spec
from refusal_lint.facts import ExtDecl
from refusal_lint.model import Card, Finding, Rule


def _entry_findings(decl: ExtDecl) -> tuple[list[Finding], Card]:
    out = [Finding("RL101", decl.loc, f"extension entry malformed: {p}") for p in decl.problems]
    exact = decl.uri is not None and spec.uri_kind(decl.uri) == "exact"
    if decl.uri is not None and not exact:
        out.append(Finding("RL102", decl.loc, f"extension URI `{decl.uri}` is almost `{spec.URI}`"))
    rules: dict[str, Rule] = {}
    usable = True
    if decl.params_kind in ("absent", "null") or (decl.params_kind == "object" and not decl.items):
        what = {"absent": "no params", "null": "params is null"}.get(decl.params_kind, "params is {}")
        out.append(Finding("RL103", decl.loc, f"{what}: the extension advertises no rules"))
        usable = False
    elif decl.params_kind == "other":
        out.append(
            Finding("RL104", decl.params_loc or decl.loc, "params is not an object of rule id -> reason")
        )
        usable = False
    elif decl.params_kind == "unresolved":
        usable = False
    seen: set[str] = set()
    for item in decl.items:
        if item.key in seen:
            out.append(
                Finding(
                    "RL107",
                    item.loc,
                    f"rule id `{item.key}` repeated in params (the last one wins)",
                    rule_id=item.key,
                )
            )
        seen.add(item.key)
        rules[item.key] = Rule(item.key, item.reason, item.loc)
    last_item = {i.key: i for i in decl.items}
    for rid, rule in rules.items():
        item = last_item[rid]
        if item.reason is None and item.kind != "unknown":
            out.append(
                Finding(
                    "RL104", rule.loc, f"the reason of `{rid}` is {_a(item.kind)}, not a string", rule_id=rid
                )
            )
        if not spec.is_kebab(rid):
            out.append(Finding("RL105", rule.loc, f"rule id `{rid}` is not kebab-case", rule_id=rid))
        if item.reason is not None and (
            not item.reason.strip() or "\n" in item.reason or "\r" in item.reason
        ):
            what = "blank" if not item.reason.strip() else "more than one line"
            out.append(Finding("RL106", rule.loc, f"the reason of `{rid}` is {what}", rule_id=rid))
    card = Card(
        loc=decl.loc,
        rules=tuple(rules.values()) if usable else (),
        usable=usable,
        agent_name=decl.agent_name,
        params_id=decl.params_id,
    )
    return out, card


def _a(kind: str) -> str:
    return {
        "object": "an object",
        "array": "an array",
        "number": "a number",
        "bool": "a boolean",
        "null": "null",
    }.get(kind, kind)


def check_decls(decls: Iterable[ExtDecl]) -> tuple[list[Finding], list[Card]]:
    """Findings of every declaration, and one Card per card (RL108 for a second declaration)."""
    findings: list[Finding] = []
    cards: list[Card] = []
    by_card: dict[str, Card] = {}
    for decl in sorted(decls, key=lambda d: (d.loc.path, d.loc.line, d.loc.col)):
        entry, card = _entry_findings(decl)
        findings.extend(entry)
        if decl.card in by_card:
            findings.append(
                Finding("RL108", decl.loc, "the refusals extension is declared twice in this card")
            )
            continue
        by_card[decl.card] = card
        cards.append(card)
    return findings, cards
