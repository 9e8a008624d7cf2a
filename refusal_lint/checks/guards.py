"""RL001 and RL301-RL306: guards and errors against the card."""

from __future__ import annotations

from refusal_lint import prompttext, spec
from refusal_lint.bind import BoundError, BoundGuard
from refusal_lint.guardids import GuardStatus
from refusal_lint.model import Card, Edit, Finding


def check(card: Card | None, guards: list[BoundGuard], errors: list[BoundError]) -> list[Finding]:
    out: list[Finding] = []
    for g in guards:
        if g.extra_keys:
            out.append(
                Finding(
                    "RL306",
                    g.loc,
                    f"refusal payload has keys other than rule/reason/detail: {', '.join(g.extra_keys)}",
                    rule_id=g.rule_id,
                )
            )
        if g.media_near:
            out.append(
                Finding(
                    "RL306",
                    g.loc,
                    f"media type `{g.media_near}` is almost `{spec.MEDIA_TYPE}`",
                    rule_id=g.rule_id,
                )
            )
        if g.status == GuardStatus.NONE and not g.media_near:
            out.append(Finding("RL306", g.loc, "refusal payload has no `rule`"))
    for e in errors:
        out.append(
            Finding(
                "RL305",
                e.loc,
                f"a refusal is sent as a protocol error ({e.name}); the spec makes "
                "a refused request a successful result carrying the refusal Parts",
                rule_id=e.rule_id,
            )
        )
    if card is None or not card.usable or not card.rules:
        return out
    rules = card.rule_map()
    ids = list(rules)
    fired: set[str] = {e.rule_id for e in errors if e.rule_id}
    for g in guards:
        if g.status == GuardStatus.UNRESOLVED:
            out.append(Finding("RL304", g.loc, "the rule id of this guard cannot be resolved statically"))
            continue
        if g.status != GuardStatus.ID or g.rule_id is None:
            continue
        fired.add(g.rule_id)
        rule = rules.get(g.rule_id)
        if rule is None:
            near = prompttext.nearest(g.rule_id, ids)
            hint = f"; did you mean `{near}`?" if near else ""
            out.append(
                Finding(
                    "RL302",
                    g.loc,
                    f"guard fires rule `{g.rule_id}`, which the card does not advertise{hint}",
                    rule_id=g.rule_id,
                )
            )
            continue
        if (
            g.reason is not None
            and rule.reason is not None
            and prompttext.fold_ws(g.reason) != prompttext.fold_ws(rule.reason)
        ):
            edit = None
            if g.reason_literal and g.reason_loc is not None:
                r = g.reason_loc
                edit = Edit(r.path, r.line, g.reason, rule.reason, "literal", r.col, r.end_line, r.end_col)
            out.append(
                Finding(
                    "RL303",
                    g.loc,
                    f'guard passes reason "{g.reason}" for `{g.rule_id}`; the card says "{rule.reason}"',
                    rule_id=g.rule_id,
                    edit=edit,
                )
            )
    for rule in card.rules:
        if rule.rule_id not in fired:
            out.append(
                Finding(
                    "RL301",
                    rule.loc,
                    f"rule `{rule.rule_id}` is advertised but no guard fires it",
                    rule_id=rule.rule_id,
                )
            )
    return out


def check_cardless(guards: list[BoundGuard]) -> list[Finding]:
    """RL001: guards fire kebab rule ids and no card (exact or near miss) exists. One per id."""
    first: dict[str, BoundGuard] = {}
    for g in sorted(guards, key=lambda g: (g.loc.path, g.loc.line, g.loc.col)):
        if g.status == GuardStatus.ID and g.rule_id and spec.is_kebab(g.rule_id):
            first.setdefault(g.rule_id, g)
    return [
        Finding(
            "RL001",
            g.loc,
            f"guards fire rule `{rid}`, but no card advertises the refusals extension",
            rule_id=rid,
        )
        for rid, g in first.items()
    ]
