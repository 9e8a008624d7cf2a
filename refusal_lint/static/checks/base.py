"""The one interface of a check: a pure function of one agent and the run's facts,
returning findings. A family of codes is one module holding its `Code`s and its `CHECK`;
the registry (checks/registry.py) gathers the checks, `codes.CODES` their codes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from refusal_lint.core.facts import FileFacts
    from refusal_lint.core.model import Code, Finding
    from refusal_lint.static.bind.agent import Agent
    from refusal_lint.static.bind.bound import Bound


@dataclass(frozen=True)
class Run:
    """What every check may read: the bound tree, each file's facts, the card files the
    config names (a configured card that is missing or unreadable is RL100), and which of
    them the walk found (one found that yields no card holds no Refusals extension)."""

    bound: Bound
    facts: Mapping[str, FileFacts]
    configured_cards: frozenset[str] = frozenset()
    walked: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Check:
    """A family's check. `fn(agent, run)`: a tree-wide check (`per_agent` False) is called
    once, with no agent; a per-agent check once for each agent, its findings named after
    it, or once with no agent when the tree has none (its guards and errors are then the
    tree's: `run.bound.guards`). `codes`: every code the family's module defines."""

    name: str
    codes: tuple[Code, ...]
    fn: Callable[[Agent | None, Run], list[Finding]]
    per_agent: bool = True


# What ends a line on a terminal or in a CI log, as the escape Python writes it.
_BREAKS = str.maketrans(
    {
        "\n": "\\n",
        "\r": "\\r",
        "\v": "\\v",
        "\f": "\\f",
        "\x85": "\\x85",
        "\u2028": "\\u2028",
        "\u2029": "\\u2029",
    }
)


def one_line(text: str) -> str:
    """A reason quoted in a message, on the message's one line (a reason with a line break
    is RL106's, and the text format prints a finding a line)."""
    return text.translate(_BREAKS)
