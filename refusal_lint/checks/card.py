"""RL101-RL108: the extension entry and its params map (DESIGN §3, no cascade)."""

from __future__ import annotations

from collections.abc import Iterable

from refusal_lint import spec
from refusal_lint.facts import ExtDecl
from refusal_lint.model import Card, Finding, Rule


def _usable(decl: ExtDecl) -> bool:
    """Does the entry's params map give rules to check against (RL103/RL104 say why not)?"""
    if decl.params_kind in ("absent", "null", "other", "unresolved"):
        return False
    return not (decl.params_kind == "object" and not decl.items)


def rule_set(decl: ExtDecl) -> Card:
    """The rules an extension entry advertises: the last reason of each id wins."""
    rules = {item.key: Rule(item.key, item.reason, item.loc) for item in decl.items}
    usable = _usable(decl)
    return Card(
        loc=decl.loc,
        rules=tuple(rules.values()) if usable else (),
        usable=usable,
        agent_name=decl.agent_name,
        params_id=decl.params_id,
    )


def _entry_findings(decl: ExtDecl) -> list[Finding]:
    out = [Finding("RL101", decl.loc, f"extension entry malformed: {p}") for p in decl.problems]
    exact = decl.uri is not None and spec.uri_kind(decl.uri) == "exact"
    if decl.uri is not None and not exact:
        out.append(Finding("RL102", decl.loc, f"extension URI `{decl.uri}` is almost `{spec.URI}`"))
    if decl.params_kind in ("absent", "null") or (decl.params_kind == "object" and not decl.items):
        what = {"absent": "no params", "null": "params is null"}.get(decl.params_kind, "params is {}")
        out.append(Finding("RL103", decl.loc, f"{what}: the extension advertises no rules"))
    elif decl.params_kind == "other":
        out.append(
            Finding("RL104", decl.params_loc or decl.loc, "params is not an object of rule id -> reason")
        )
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
    last_item = {i.key: i for i in decl.items}
    for rid, item in last_item.items():
        loc = item.loc
        if item.reason is None and item.kind != "unknown":
            out.append(
                Finding("RL104", loc, f"the reason of `{rid}` is {_a(item.kind)}, not a string", rule_id=rid)
            )
        if not spec.is_kebab(rid):
            out.append(Finding("RL105", loc, f"rule id `{rid}` is not kebab-case", rule_id=rid))
        if item.reason is not None and (
            not item.reason.strip() or "\n" in item.reason or "\r" in item.reason
        ):
            what = "blank" if not item.reason.strip() else "more than one line"
            out.append(Finding("RL106", loc, f"the reason of `{rid}` is {what}", rule_id=rid))
    return out


def _a(kind: str) -> str:
    return {
        "object": "an object",
        "array": "an array",
        "number": "a number",
        "bool": "a boolean",
        "null": "null",
    }.get(kind, kind)


def _by_card(decls: Iterable[ExtDecl]) -> tuple[list[ExtDecl], list[ExtDecl]]:
    """Each card's first declaration, and the repeats (RL108) in file order."""
    first: dict[str, ExtDecl] = {}
    repeats: list[ExtDecl] = []
    for decl in sorted(decls, key=lambda d: (d.loc.path, d.loc.line, d.loc.col)):
        if decl.card in first:
            repeats.append(decl)
        else:
            first[decl.card] = decl
    return list(first.values()), repeats


def rule_sets(decls: Iterable[ExtDecl]) -> list[Card]:
    """One rule set per card: its first declaration's."""
    return [rule_set(d) for d in _by_card(decls)[0]]


def check_decls(decls: Iterable[ExtDecl]) -> list[Finding]:
    """Findings of every declaration (RL108 for a card's second one)."""
    firsts, repeats = _by_card(decls)
    findings = [f for d in firsts + repeats for f in _entry_findings(d)]
    findings += [
        Finding("RL108", d.loc, "the refusals extension is declared twice in this card") for d in repeats
    ]
    return findings
