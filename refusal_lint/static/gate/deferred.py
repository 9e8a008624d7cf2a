"""Files the `ast` gate passes only for calls binding may find no guard at all.

`raise ModelRefusalError(refusal)` in an SDK: a refusal-named call with a computed
argument is a guard with a computed id (RL304) only where binding finds its callee a
library's, or a repo function or class with a `rule`/`rule_id` parameter or one that
reaches a guard's id (bind/guards/ids.py). Where every such call's callee is a name imported
once at the top of the file, and nothing else in the file passes the gate, the file's
extraction waits for binding (ondemand.settle): parsed as before unless each callee
binds, exactly as binding would look it up, to a repo definition no id can pass through.
"""

from __future__ import annotations

import ast

from refusal_lint.static.extract.job import Callee
from refusal_lint.static.extract.python.walk import walk_fields

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _bindings(tree: ast.Module) -> dict[str, int]:
    """How often each name is bound anywhere in the file (any scope, any form)."""
    count: dict[str, int] = {}

    def bind(name: str | None) -> None:
        if name:
            count[name] = count.get(name, 0) + 1

    for node in walk_fields(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bind(node.id)
        elif isinstance(node, ast.arg):
            bind(node.arg)
        elif isinstance(node, _DEFS):
            bind(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                bind(a.asname or a.name.split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bind(name)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
            bind(node.name)
        elif isinstance(node, ast.MatchMapping):
            bind(node.rest)
    return count


def _blocked(tree: ast.Module, ids: frozenset[str]) -> bool:
    """What binding reads of a file beyond its guards: a method (the repo's methods by name
    bind calls on objects of unknown class), a star import, a card's rule id (a copy of
    the params map, a prompt by its content)."""
    for node in walk_fields(tree):
        if isinstance(node, ast.ClassDef) and any(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in walk_fields(node)
        ):
            return True
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ids:
            return True
    return False


def _chain(func: ast.expr) -> list[str] | None:
    names: list[str] = []
    while isinstance(func, ast.Attribute):
        names.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    names.append(func.id)
    return names[::-1]


def callees(tree: ast.Module, calls: list[ast.Call], ids: frozenset[str]) -> tuple[Callee, ...] | None:
    """The callees of `calls` as binding looks them up (from the file's one top-level
    `from M import NAME`), or None where some cannot be told so: then the file is parsed."""
    if _blocked(tree, ids):
        return None
    imported: dict[str, tuple[str, str, int]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            for a in stmt.names:
                imported[a.asname or a.name] = (stmt.module or "", a.name, stmt.level)
    count = _bindings(tree)
    out: list[Callee] = []
    for call in calls:
        names = _chain(call.func)
        # A star argument leaves the call unbound (a guard whatever the callee, as today).
        starred = any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        )
        if names is None or starred or names[0] not in imported or count.get(names[0]) != 1:
            return None
        module, name, level = imported[names[0]]
        out.append(Callee(".".join(names), names[0], module, name, level))
    return tuple(sorted(set(out)))
