"""How a class statement or a call makes a guard of a class (DESIGN §2 "Guards"): a
subclass built by a guard base's constructor, one passing an id to it (`super().__init__`),
one keeping its id in a `rule` attribute; and a partial of a guard. The text and `ast` gates
and the extractor read these, so that they agree."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from refusal_lint.core import spec
from refusal_lint.static.extract.vocab import FUNCTION_DEFS, RULE_KWARGS, base_name, is_guard_name


def _is_super_init(node: ast.Call) -> bool:
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
        and func.value.func.id == "super"
    )


def super_init(node: ast.Call, bases: list[ast.expr]) -> ast.Call | None:
    """`super().__init__(...)` in a class whose base is a guard (`class SegMixRefusal(Refusal)`:
    one exception class a rule), as the call of that base it is, where the subclass fires its id."""
    if not _is_super_init(node):
        return None
    base = next((b for b in bases if is_guard_name(base_name(b))), None)
    if base is None:
        return None
    return ast.copy_location(ast.Call(func=base, args=node.args, keywords=node.keywords), node)


PARTIAL = "partial"


def partial_call(node: ast.Call) -> ast.Call | None:
    """`partial(refuse, "x-y")` (functools'), as the call it stands for: where its callee is
    a guard, a guard written here, with the id it binds (bind/guards/ids.py: a call through it
    fires that id where the partial binds it, not at each call: a call may stand anywhere,
    stored in a table, passed on, in a file nobody reads)."""
    if base_name(node.func) != PARTIAL or not node.args or isinstance(node.args[0], ast.Starred):
        return None
    return ast.copy_location(ast.Call(func=node.args[0], args=node.args[1:], keywords=node.keywords), node)


def super_error(node: ast.Call, bases: list[ast.expr]) -> str | None:
    """`super().__init__(...)` in a subclass of a protocol error (`class RefusalError(
    HTTPException)`): that error's name, as which the subclass sends what it is built with."""
    if not _is_super_init(node):
        return None
    return next((n for b in bases if (n := base_name(b)) in spec.PROTOCOL_ERRORS), None)


def guard_subclass(name: str, bases: Iterable[str]) -> bool:
    """A class named as no guard is, whose base is one (`class OutOfScope(Refusal)`): with no
    `__init__` of its own, the base's constructor builds it, so a call of it fires what it
    passes as a call of the base would (bind/guards/subclasses.py), whatever the class is called."""
    return not is_guard_name(name) and any(is_guard_name(b.rpartition(".")[2]) for b in bases)


def builds_guard(node: ast.ClassDef) -> bool:
    """`guard_subclass`, of a class statement without an `__init__` of its own (or keeping
    its id in a `rule` attribute); or a guard class keeping its id so, which each
    construction fires."""
    own = _own_init(node) is not None
    kept = keeps_rule(node)
    subclass = guard_subclass(node.name, [base_name(b) for b in node.bases])
    return (subclass and (not own or kept)) or (is_guard_name(node.name) and kept)


def keeps_rule(node: ast.ClassDef) -> bool:
    return kept_rule(node) is not None


def kept_rule(node: ast.ClassDef) -> tuple[str, ast.Constant, bool] | None:
    """A class binding `rule`/`rule_id` to a string: in its body (`rule = "pii-export"`), or
    as `self.rule = "pii-export"` in its own `__init__`; (name, literal, in `__init__`). The
    id of an exception class built with no rule parameter (bind/guards/ids.py class_rule)."""
    for stmt in node.body:
        found = _rule_bound(stmt, None)
        if found is not None:
            return (*found, False) if isinstance(found[1].value, str) else None
    init = _own_init(node)
    for stmt in init.body if init is not None else ():
        found = _rule_bound(stmt, "self")
        if found is not None and isinstance(found[1].value, str):
            return (*found, True)
    return None


def _own_init(node: ast.ClassDef) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    return next((n for n in node.body if isinstance(n, FUNCTION_DEFS) and n.name == "__init__"), None)


def _rule_bound(stmt: ast.stmt, owner: str | None) -> tuple[str, ast.Constant] | None:
    """`rule = "x"` (owner None) or `self.rule = "x"` (owner "self"), a constant bound."""
    target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
    target = stmt.target if isinstance(stmt, ast.AnnAssign) else target
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
    if owner is None and isinstance(target, ast.Name):
        name = target.id
    elif isinstance(target, ast.Attribute) and base_name(target.value) == owner:
        name = target.attr
    else:
        return None
    return (name, value) if name in RULE_KWARGS and isinstance(value, ast.Constant) else None
