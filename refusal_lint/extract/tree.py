"""A position-aware document tree shared by the JSON and YAML readers."""

from __future__ import annotations

from dataclasses import dataclass

from refusal_lint.kinds import ValueKind
from refusal_lint.model import Loc


@dataclass(frozen=True)
class TNode:
    kind: ValueKind
    loc: Loc
    value: object = None  # scalars
    items: tuple[tuple[TNode, TNode], ...] = ()  # object members, in order, duplicates kept
    elems: tuple[TNode, ...] = ()  # array elements

    def get(self, key: str) -> tuple[TNode, TNode] | None:
        """The last member named `key` (the one a parser keeps)."""
        found = None
        for k, v in self.items:
            if k.value == key:
                found = (k, v)
        return found


class TooDeep(Exception):
    """A document nested or aliased past what we are willing to walk."""
