"""What the `ast` gate (pyscan.py) knows of a file's names, from its tree: a callee's last
name, a dotted name's root, the names bound at module level, and a function's locals that
only ever hold run-time computations."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

from refusal_lint.static.extract import vocab
from refusal_lint.static.extract.python.walk import bound_names, field_children, walk_fields


def last(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def root_of(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def unread_uri(uri: ast.expr | None, params: ast.expr | None, bound: Callable[[ast.expr], bool]) -> bool:
    """An extension's uri binding may not read (`uri=refusals_uri()`, `uri=cfg.uri`) beside
    params it may (a dict, a name the file binds, `self.rules`; no call's result): RL001's
    hint names such an extension (bind/bound.computed_uri). Asked by both gates, `bound`
    their test of a name."""
    if params is None or not isinstance(uri, (ast.Call, ast.Attribute, ast.Subscript)):
        return False
    return _may_be_map(params, bound)


def _may_be_map(params: ast.expr, bound: Callable[[ast.expr], bool]) -> bool:
    """May `params` be a map binding reads: a dict (or `dict(...)`, a wrapper of one), a name
    the file binds, `self.rules`, a choice of such; not a call's result (SDK conversion
    code's `dict_to_struct(ext.params) if ext.params else None`) nor a constant."""
    if isinstance(params, ast.IfExp):
        return _may_be_map(params.body, bound) or _may_be_map(params.orelse, bound)
    if isinstance(params, ast.BoolOp):
        return any(_may_be_map(v, bound) for v in params.values)
    if isinstance(params, ast.Call):
        return last(params.func) in vocab.WRAPPERS  # `dict(...)`, `MappingProxyType(...)`
    if isinstance(params, (ast.Name, ast.Attribute)):
        return root_of(params) in ("self", "cls") or bound(params)
    return not isinstance(params, ast.Constant)


def dict_keys(node: ast.Dict) -> dict[str, ast.expr]:
    """The values of a dict literal by its string keys."""
    return {
        k.value: v
        for k, v in zip(node.keys, node.values, strict=True)
        if isinstance(k, ast.Constant) and isinstance(k.value, str)
    }


STAR = "*"  # in module_names: a `from m import *`, which may bind any public name


def binds(names: Iterable[str], name: str) -> bool:
    """Do a module's top-level `names` (module_names) bind `name`: one of them, or any public
    name where a star import stands among them (binding follows it: bind/resolve.py)."""
    return name in names or (STAR in names and not name.startswith("_"))


def module_statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """The statements binding reads as the module's own: its body's, and those of every
    compound statement in it but a def or class (`if`, `try`, `with`, loops, `match`)."""
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, _COMPOUND):
            stack.extend(stmt.body if not isinstance(stmt, ast.Match) else [])
            stack.extend(getattr(stmt, "orelse", []))
            stack.extend(getattr(stmt, "finalbody", []))
            for inner in (*getattr(stmt, "handlers", []), *getattr(stmt, "cases", [])):
                stack.extend(inner.body)


def module_names(tree: ast.Module) -> set[str]:
    """Names bound at module level (assignments, imports, classes, functions), in its
    compound statements too (module_statements); `STAR` for a star import."""
    out: set[str] = set()
    for stmt in module_statements(tree):
        if isinstance(stmt, ast.Assign):
            out.update(n for t in stmt.targets for n in bound_names(t))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out.add(stmt.target.id)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        elif isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(stmt.name)
    return out


def aliases(tree: ast.Module) -> dict[str, str]:
    """The card classes, prompt callees and guards a module imports under a name of its own
    (`from a2a.types import AgentExtension as Ext`, `from errors import Refusal as Deny`:
    {"Ext": "AgentExtension", "Deny": "Refusal"}), where binding reads imports."""
    return {
        a.asname: a.name
        for stmt in module_statements(tree)
        if isinstance(stmt, ast.ImportFrom)
        for a in stmt.names
        if a.asname and (vocab.renamed_as_itself(a.name) or vocab.is_guard_name(a.name))
    }


_COMPOUND = (
    ast.If,
    ast.Try,
    ast.TryStar,
    ast.With,
    ast.AsyncWith,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Match,
)


_STRING_CALLS = frozenset({*vocab.WRAPPERS, *vocab.DEDENTS, *vocab.STRIPS, "format", "join"})
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _own_nodes(fn: ast.AST) -> list[ast.AST]:  # a function's own body, nested scopes left out
    out: list[ast.AST] = []
    stack = field_children(fn)  # a fresh list
    while stack:
        node = stack.pop()
        out.append(node)
        if not isinstance(node, (*SCOPES, ast.ClassDef)):
            stack.extend(field_children(node))
    return out


def computed_locals(fn: ast.AST) -> frozenset[str]:
    """Locals of a function every binding of which is a run-time computation (`x = pick(q)`):
    never a literal id. Parameters and loop variables are left out (they may be one)."""
    computed: set[str] = set()
    other: set[str] = set()
    if isinstance(fn, SCOPES):
        a = fn.args
        other.update(p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p)
    for node in _own_nodes(fn):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            dynamic = isinstance(value, (ast.IfExp, ast.BoolOp, ast.Await, ast.BinOp)) or (
                isinstance(value, ast.Call) and last(value.func) not in _STRING_CALLS
            )
            for t in targets:
                if isinstance(t, ast.Name) and dynamic and not isinstance(node, ast.AugAssign):
                    computed.add(t.id)
                else:
                    other.update(n.id for n in walk_fields(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            other.update(n.id for n in walk_fields(node.target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            other.update(n.id for n in walk_fields(node.optional_vars) if isinstance(n, ast.Name))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            other.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            other.update(node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            other.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(computed - other)


def refusal_locals(fn: ast.AST, guard_names: frozenset[str]) -> frozenset[str]:
    """Locals of a function assigned a guard call or a refusal payload somewhere in it
    (`payload = refuse("seg-mix")`): one sent inside a protocol error may be a refusal sent
    as that error. The extractor asks every binding; this says yes where any one is."""
    found: set[str] = set()
    for node in _own_nodes(fn):
        if (
            isinstance(node, (ast.Assign, ast.AnnAssign))
            and node.value is not None
            and _may_be_refusal(node.value, guard_names)
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(found)


def _may_be_refusal(value: ast.expr, guard_names: frozenset[str]) -> bool:
    """A guard call, a payload dict (`{"rule": ...}`), `dict(rule=...)`, or a refusal read
    under its key (vocab.reads_refusal)."""
    if vocab.reads_refusal(value):
        return True
    if isinstance(value, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "rule" for k in value.keys)
    if not isinstance(value, ast.Call):
        return False
    name = last(value.func)
    return vocab.is_guard_name(name, guard_names) or any(k.arg == "rule" for k in value.keywords)


def assigned_names(scope: ast.AST) -> frozenset[str]:
    """The names a function assigns anywhere in it (a parameter only: not among them)."""
    names = (n for n in walk_fields(scope) if isinstance(n, ast.Name))
    return frozenset(n.id for n in names if not isinstance(n.ctx, ast.Load))
