"""A position-aware document tree shared by the JSON and YAML readers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from refusal_lint.core.kinds import ValueKind
from refusal_lint.core.model import Loc


@dataclass(frozen=True)
class TNode:
    kind: ValueKind
    loc: Loc
    value: object = None  # scalars
    items: tuple[tuple[TNode, TNode], ...] = ()  # object members, in order, duplicates kept
    elems: tuple[TNode, ...] = ()  # array elements
    # A folded block scalar (YAML `>`) as written, its lines not joined: a prompt is read so
    # (a rule list written a line a rule is one), a card's reason as the folded value.
    written: str | None = None

    def get(self, key: str) -> tuple[TNode, TNode] | None:
        """The last member named `key` (the one a parser keeps)."""
        found = None
        for k, v in self.items:
            if k.value == key:
                found = (k, v)
        return found


class ParseError(Exception):
    """Where a reader's parser stopped: the file is RL002 there."""

    def __init__(self, message: str, line: int = 1, col: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.col = col


class TooDeep(Exception):
    """A document nested or aliased past what we are willing to walk."""


def plain_nodes(doc: object) -> Iterator[object]:
    """Every node of a plain document (`json.loads`'s): objects, arrays and scalars, by an
    explicit stack (a document may nest deeper than Python's recursion limit)."""
    stack = [doc]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
