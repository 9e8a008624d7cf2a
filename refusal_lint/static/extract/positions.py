"""Node positions from one plain codegen pass: libcst's PositionProvider, made cheap.

PositionProvider updates a line and a column for every token it emits, which costs about
five times the parse. Recording only token indices while generating code, and turning the
few we look at into line and column afterwards, gives the same positions (same syntactic
rules, the same tokens) for about the cost of `module.code`. tests/test_positions.py
checks the two agree.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import libcst as cst
from libcst._nodes.internal import CodegenState

from refusal_lint.core import sourcetext


@dataclass
class _IndexState(CodegenState):
    spans: dict[cst.CSTNode, tuple[int, int]] = field(default_factory=dict)
    stack: list[int] = field(default_factory=list)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.stack.append(len(self.tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self.stack.pop()
        if node not in self.spans:  # the syntactic span, where one was recorded, wins
            self.spans[node] = (start, len(self.tokens))

    @contextmanager
    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Iterator[None]:
        start = len(self.tokens)
        try:
            yield
        finally:
            end = len(self.tokens)
            if start_node is not None:
                start = self.spans[start_node][0]
            if end_node is not None:
                end = self.spans[end_node][1]
            self.spans[node] = (start, end)


class Positions:
    """Line (1-based) and column (0-based) of a node's start and end, as PositionProvider gives."""

    def __init__(self, module: cst.Module) -> None:
        state = _IndexState(default_indent=module.default_indent, default_newline=module.default_newline)
        module._codegen(state)
        self.spans = state.spans
        self.offsets = [0, *itertools.accumulate(map(len, state.tokens))]
        code = "".join(state.tokens)
        self.line_starts = sourcetext.line_starts(code)

    def _at(self, token_index: int) -> tuple[int, int]:
        return sourcetext.line_col(self.line_starts, self.offsets[min(token_index, len(self.offsets) - 1)])

    def get(self, node: cst.CSTNode) -> tuple[int, int, int, int] | None:
        span = self.spans.get(node)
        if span is None:
            return None
        (l1, c1), (l2, c2) = self._at(span[0]), self._at(span[1])
        return l1, c1, l2, c2
