"""One walk of an `ast` tree in source order, with `visit_X` / `leave_X` handlers.

`ast.NodeVisitor` has no leave step and visits some fields out of source order (a dict's keys
before its values, a function's decorators after its body); the extractor's handlers rely on
both, so the order is spelled out here once.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

Handler = Callable[[Any], Any]


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


def _dict(node: ast.Dict) -> list[ast.AST]:
    out: list[ast.AST] = []
    for key, value in zip(node.keys, node.values, strict=True):
        if key is not None:
            out.append(key)
        out.append(value)
    return out


def _call(node: ast.Call) -> list[ast.AST]:
    return [node.func, *by_position([*node.args, *node.keywords])]


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    returns = [node.returns] if node.returns is not None else []
    return [*node.decorator_list, *_arguments(node.args), *returns, *node.body]


def _class(node: ast.ClassDef) -> list[ast.AST]:
    return [*node.decorator_list, *by_position([*node.bases, *node.keywords]), *node.body]


# The nodes whose fields are not written in the order `_fields` gives.
_IN_ORDER: dict[type, Callable[[Any], list[ast.AST]]] = {
    ast.Dict: _dict,
    ast.Call: _call,
    ast.FunctionDef: _function,
    ast.AsyncFunctionDef: _function,
    ast.Lambda: lambda node: [*_arguments(node.args), node.body],
    ast.ClassDef: _class,
    ast.IfExp: lambda node: [node.body, node.test, node.orelse],
    ast.arguments: _arguments,
}
# The fields that hold only markers with no children and nothing to find (`Load`, `+`,
# `not`, `<`): never walked. Python's grammar names every such field so.
_MARKER_FIELDS = frozenset({"ctx", "op", "ops"})
# The list fields that may hold something other than nodes: `None` (a dict's `**` spread's
# key, a keyword-only argument with no default), names (`global x`, a class pattern's
# keywords). Every other list holds nodes only, and is taken whole.
_MIXED_LISTS = frozenset({"keys", "kw_defaults", "names", "kwd_attrs"})
_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


def field_children(node: ast.AST) -> list[ast.AST]:
    """`ast.iter_child_nodes(node)` without the markers: the same children in the same
    (`_fields`) order, read through one tuple of field names a class instead of
    `iter_fields`' generator (the gates ask this of every node of a file)."""
    cls = type(node)
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple((f, f in _MIXED_LISTS) for f in cls._fields if f not in _MARKER_FIELDS)
    out: list[ast.AST] = []
    for name, mixed in fields:
        field = getattr(node, name, None)
        if type(field) is list:
            if mixed:
                out.extend(v for v in field if isinstance(v, ast.AST))
            else:
                out.extend(field)
        elif isinstance(field, ast.AST):
            out.append(field)
    return out


def walk_fields(node: ast.AST) -> Iterator[ast.AST]:
    """`ast.walk(node)` without the markers: every node below, breadth first, as it visits."""
    todo = deque([node])
    while todo:
        node = todo.popleft()
        todo.extend(field_children(node))
        yield node


def children(node: ast.AST) -> list[ast.AST]:
    """The node's children in the order they are written (one lookup of its class, not a
    test of each kind in turn: the walk asks this of every node)."""
    in_order = _IN_ORDER.get(type(node))
    return in_order(node) if in_order is not None else field_children(node)


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


def positional(node: ast.Call) -> list[ast.expr]:
    """A call's positional arguments, `*args` left out."""
    return [a for a in node.args if not isinstance(a, ast.Starred)]


def arguments(node: ast.Call) -> list[tuple[str, ast.expr]]:
    """Every argument's value in the order written, with its keyword ("" positional, "*" or
    "**" a spread)."""
    out: list[tuple[str, ast.expr]] = []
    for n in by_position([*node.args, *node.keywords]):
        if isinstance(n, ast.keyword):
            out.append((n.arg or "**", n.value))
        elif isinstance(n, ast.expr):
            out.append(("*", n.value) if isinstance(n, ast.Starred) else ("", n))
    return out


def template_of(node: ast.AST) -> ast.expr | None:
    """The template a `T.format(...)` or `T % x` fills (a Fmt's base), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return node.func.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return node.left
    return None


def operands(node: ast.BinOp, op: type[ast.operator]) -> list[ast.expr]:
    """The operands of a chain `A + B + C` in order, found without recursion: a prompt of
    600 literals joined so took 600 frames."""
    right: list[ast.expr] = []
    first: ast.expr = node
    while isinstance(first, ast.BinOp) and isinstance(first.op, op):
        right.append(first.right)
        first = first.left
    return [first, *reversed(right)]


def or_default(node: ast.BoolOp) -> ast.expr | None:
    """`x or default` (`rules or {}`, `rules or DEFAULT_RULES`): the default."""
    return node.values[1] if isinstance(node.op, ast.Or) and len(node.values) == 2 else None


def empty(node: ast.expr) -> bool:
    """`{}`, `[]`, `()`, `""`, `None`, `dict()`: a default that adds nothing."""
    if isinstance(node, ast.Constant):
        return node.value is None or node.value in ("", b"")
    if isinstance(node, (ast.Dict, ast.List, ast.Tuple)):
        return not (node.keys if isinstance(node, ast.Dict) else node.elts)
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        return isinstance(node.func, ast.Name) and node.func.id in ("dict", "list")
    return False


def bound_names(target: ast.expr) -> list[str]:
    """The names an assignment's target binds, unpacked too (`X, (Y, *RULES) = ...`); not
    `x[i]`'s or `a.b`'s."""
    return [n.id for n in walk_fields(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def unpacked(target: ast.AST, value: ast.expr | None) -> list[tuple[ast.expr, ast.expr]]:
    """Each name and the value it takes where a tuple of names is bound to a tuple of as many
    values (`a, b = "x", "y"`); none otherwise (a starred name, a call's result)."""
    if not (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))):
        return []
    items = (*target.elts, *value.elts)
    if len(target.elts) != len(value.elts) or any(isinstance(e, ast.Starred) for e in items):
        return []
    return list(zip(target.elts, value.elts, strict=True))


def as_dict(node: ast.expr) -> ast.expr:
    """A literal list or tuple of pairs as the dict display it makes (`dict([("x-y", "..."),
    ...])`); any other node as it is."""
    if not (isinstance(node, (ast.List, ast.Tuple)) and node.elts):
        return node
    pairs = [e.elts for e in node.elts if isinstance(e, (ast.Tuple, ast.List)) and len(e.elts) == 2]
    if len(pairs) < len(node.elts) or any(isinstance(n, ast.Starred) for p in pairs for n in p):
        return node
    return ast.copy_location(ast.Dict(keys=[k for k, _ in pairs], values=[v for _, v in pairs]), node)
