"""The registry of checks, in the order they run: every static check of `refusal-lint
check`. Adding a family of codes: its module (its `Code`s, `CODES` and `CHECK`), and its
line here; `codes.CODES` gathers the codes from these."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from refusal_lint.core.model import Finding
from refusal_lint.static.checks import card, files, guards, prompt
from refusal_lint.static.checks.base import Check, Run

if TYPE_CHECKING:
    from refusal_lint.static.bind.agent import Agent

CHECKS: tuple[Check, ...] = (
    files.CHECK,
    card.CHECK,
    prompt.CHECK,
    guards.CHECK,
)


def findings(run: Run, checks: tuple[Check, ...] = CHECKS) -> list[Finding]:
    """Every finding of the run: the tree-wide checks once, then each agent (or, in a tree
    with none, the tree once) through the per-agent checks, its findings named after it."""
    out = [f for c in checks if not c.per_agent for f in c.fn(None, run)]
    targets: list[Agent | None] = [*run.bound.agents] or [None]
    for agent in targets:
        for c in checks:
            if not c.per_agent:
                continue
            found = c.fn(agent, run)
            out += found if agent is None else [dataclasses.replace(f, agent=agent.name) for f in found]
    return out
