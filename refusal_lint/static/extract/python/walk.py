"""One walk of an `ast` tree in source order, with `visit_X` / `leave_X` handlers.

`ast.NodeVisitor` has no leave step and visits some fields out of source order (a dict's keys
before its values, a function's decorators after its body); the extractor's handlers rely on
both, so the order is spelled out here once.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import Any

Handler = Callable[[Any], Any]
# Markers with no children and nothing to find (`Load`, `+`, `not`, `<`): never walked.
_LEAVES = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)


def by_position(nodes: list[ast.AST]) -> list[ast.AST]:
    """In the order written (a call's positional and keyword arguments may interleave)."""
    return sorted(nodes, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))


def _arguments(args: ast.arguments) -> list[ast.AST]:
    found: list[ast.AST] = []
    for a in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg):
        if a is not None and a.annotation is not None:
            found.append(a.annotation)
    found += [d for d in (*args.defaults, *args.kw_defaults) if d is not None]
    return by_position(found)


def children(node: ast.AST) -> Iterator[ast.AST]:
    """The node's children in the order they are written."""
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if key is not None:
                yield key
            yield value
    elif isinstance(node, ast.Call):
        yield node.func
        yield from by_position([*node.args, *node.keywords])
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield from node.decorator_list
        yield from _arguments(node.args)
        if node.returns is not None:
            yield node.returns
        yield from node.body
    elif isinstance(node, ast.Lambda):
        yield from _arguments(node.args)
        yield node.body
    elif isinstance(node, ast.ClassDef):
        yield from node.decorator_list
        yield from by_position([*node.bases, *node.keywords])
        yield from node.body
    elif isinstance(node, ast.IfExp):
        yield node.body
        yield node.test
        yield node.orelse
    elif isinstance(node, ast.arguments):
        yield from _arguments(node)
    else:
        for name in node._fields:
            field = getattr(node, name, None)
            if isinstance(field, list):
                yield from (v for v in field if isinstance(v, ast.AST) and not isinstance(v, _LEAVES))
            elif isinstance(field, ast.AST) and not isinstance(field, _LEAVES):
                yield field


class Walker:
    """Calls `visit_<Node>` before a node's children (returning False skips them) and
    `leave_<Node>` after; `on_visit` / `on_leave` may be extended for every node."""

    def __init__(self) -> None:
        self._handlers: dict[type, tuple[Handler | None, Handler | None]] = {}

    def walk(self, node: ast.AST) -> None:
        if self.on_visit(node):
            for child in children(node):
                self.walk(child)
        self.on_leave(node)

    def _pair(self, cls: type) -> tuple[Handler | None, Handler | None]:
        pair = self._handlers.get(cls)
        if pair is None:
            name = cls.__name__
            pair = (getattr(self, "visit_" + name, None), getattr(self, "leave_" + name, None))
            self._handlers[cls] = pair
        return pair

    def on_visit(self, node: ast.AST) -> bool:
        visit = self._pair(type(node))[0]
        return visit is None or visit(node) is not False

    def on_leave(self, node: ast.AST) -> None:
        leave = self._pair(type(node))[1]
        if leave is not None:
            leave(node)
