"""RL200-RL203: the agent's prompt against its card."""

from __future__ import annotations

import re

from refusal_lint import prompttext
from refusal_lint.model import Card, Edit, Finding, Loc, Prompt

# Template or f-string placeholders (f-string parts that are not literal read as `{…}`).
_PLACEHOLDER = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{…\}|\{[A-Za-z_][A-Za-z0-9_.\[\]'\"-]*\}")


def mention_lines(prompts: list[Prompt], rule_id: str) -> list[Loc]:
    out = []
    for p in prompts:
        if p.derived:
            out.append(p.loc)
            continue
        out.extend(Loc(p.loc.path, ln) for ln in prompttext.mentions(p.lines, rule_id))
    return out


def check(card: Card, prompts: list[Prompt], configured: str | None = None, root: str = "") -> list[Finding]:
    if not card.usable or not card.rules:
        return []
    if not prompts:
        why = (
            f"the configured prompt `{configured}` was not found"
            if configured
            else f"no system prompt found for this agent under `{root or '.'}/` (looked for prompt "
            "files, YAML/JSON prompt keys, Python prompt arguments, assignments, chat messages and "
            "prompt functions); point `prompt:` in the config at it: `file`, `file.yaml#key.path` "
            "or `module.py:NAME`"
        )
        return [Finding("RL200", card.loc, why)]
    out: list[Finding] = []
    ids = [r.rule_id for r in card.rules]
    rules = card.rule_map()
    for rule in card.rules:
        if not mention_lines(prompts, rule.rule_id):
            out.append(
                Finding(
                    "RL201",
                    rule.loc,
                    f"rule `{rule.rule_id}` is never mentioned in the prompt",
                    rule_id=rule.rule_id,
                )
            )
    for p in prompts:
        if p.derived:
            continue
        for u in prompttext.unknown_ids(p.lines, ids):
            hint = f"; did you mean `{u.suggestion}`?" if u.suggestion else ""
            out.append(
                Finding(
                    "RL202",
                    Loc(p.loc.path, u.line, u.col, u.line, u.col + len(u.token)),
                    f"the prompt names rule `{u.token}`, which the card does not advertise{hint}",
                    rule_id=u.token,
                )
            )
        for rl in prompttext.rule_lines(p.lines):
            stated = rules.get(rl.rule_id)
            if stated is None or stated.reason is None or _PLACEHOLDER.search(rl.wrapped or rl.reason):
                continue  # a reason filled in at run time ({{ reasons[...] }}, f"{...}") is not stated here
            if not rl.states(stated.reason):
                # A reason wrapped over several lines is not rewritten: that is a judgement call.
                edit = None if rl.wrapped else Edit(p.loc.path, rl.line, rl.reason, stated.reason, "text")
                out.append(
                    Finding(
                        "RL203",
                        Loc(p.loc.path, rl.line, rl.col),
                        f'the prompt gives `{rl.rule_id}` the reason "{rl.wrapped or rl.reason}"; '
                        f'the card says "{stated.reason}"',
                        rule_id=rl.rule_id,
                        edit=edit,
                    )
                )
    return out
