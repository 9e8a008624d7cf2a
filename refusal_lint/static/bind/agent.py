"""An agent as binding leaves it, and the guards and protocol errors bound to it: what the
checks and the reports read. Apart from the binder (bound.py), so that a run answered from
the memo (static/memo.py) makes these without importing what binds."""

from __future__ import annotations

from dataclasses import dataclass, field

from refusal_lint.core.kinds import GuardKind, GuardStatus
from refusal_lint.core.model import Loc, Prompt, RuleSet


@dataclass(frozen=True)
class BoundGuard:
    loc: Loc
    kind: GuardKind
    status: GuardStatus
    rule_id: str | None
    reason: str | None = None  # a literal reason to compare (None: absent or from the map)
    reason_loc: Loc | None = None
    reason_literal: bool = False
    extra_keys: tuple[str, ...] = ()
    media_near: str | None = None


@dataclass(frozen=True)
class BoundError:
    loc: Loc
    name: str
    rule_id: str | None


@dataclass
class Agent:
    name: str
    root: str
    card: RuleSet | None
    prompts: list[Prompt] = field(default_factory=list)
    guards: list[BoundGuard] = field(default_factory=list)
    protocol_errors: list[BoundError] = field(default_factory=list)
    files: set[str] = field(default_factory=set)
    # Shared helpers no agent's files hold whose call sites stand in its files: a run given
    # the helper alone (a commit of it) names the agent.
    helpers: set[str] = field(default_factory=set)
    prompt_spec: str | None = None  # the configured `prompt:`, if any
    roots: tuple[str, ...] = ()  # discovered: its cards' folders, which claim the files under them
    card_path: str = ""  # configured: the `card:` file, found or not
    copy_of: str = ""  # another copy of that agent's card, which says otherwise (scoping._twins)

    def under_root(self, path: str) -> bool:
        """Does `path` stand under its root (its card's folder; the whole tree for `""`)?"""
        return self.root == "" or path.startswith(self.root + "/")

    @property
    def prompt_missing(self) -> bool:
        """A card, and no prompt found or configured: where RL200 stands, unless a file
        that may hold the prompt could not be read."""
        return self.card is not None and not self.prompts and self.prompt_spec is None

    @property
    def checked(self) -> bool:
        """Do its RL2xx/RL3xx checks run: a card whose params are usable (not RL100/RL103/RL104)?"""
        return self.card is not None and self.card.usable

    def fired_at(self, rule_id: str) -> tuple[Loc, ...]:
        """Where its guards fire `rule_id`, and where it is sent as a protocol error: each
        line once (a guard inside an error envelope is both), in file order."""
        locs = [g.loc for g in self.guards if g.rule_id == rule_id]
        locs += [e.loc for e in self.protocol_errors if e.rule_id == rule_id]
        seen: dict[tuple[str, int], Loc] = {}
        for loc in locs:
            seen.setdefault((loc.path, loc.line), loc)
        return tuple(seen[k] for k in sorted(seen))
