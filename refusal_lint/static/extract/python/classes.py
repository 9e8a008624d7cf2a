"""What a class body says of the class as a callee: its attributes, its fields (dataclass,
NamedTuple, pydantic, attrs), its `__init__` and what that stores of its parameters; and
an extension it declares by its attributes."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from refusal_lint.core import spec
from refusal_lint.core.facts import Dyn, Fn, PyExt, Ref, Str, Value
from refusal_lint.core.model import Loc
from refusal_lint.static.extract import vocab
from refusal_lint.static.extract.python.scopes import FUNCTION_DEFS, dotted, last_name
from refusal_lint.static.extract.python.state import defaults_of
from refusal_lint.static.extract.python.walk import bound_names


def is_enum(node: ast.ClassDef) -> bool:
    return any((last_name(b) or "").endswith("Enum") for b in node.bases)


@dataclass
class Body:
    attrs: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> where its first binding ends
    fields: list[str] = field(default_factory=list)
    init: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    # What a call passing none binds: its `__init__`'s defaults, else its fields' written ones
    # (`rule: Literal["seg-mix"] = "seg-mix"`; a `field(...)` call's are not read).
    defaults: list[tuple[str, ast.expr]] = field(default_factory=list)


def read_body(node: ast.ClassDef, segment: Callable[[ast.AST], str]) -> Body:
    """The class's attributes, fields and `__init__` (`segment`: an annotation's text). An
    exception class's annotations are no fields (`class RefusalError(Exception): rule: str`
    declares what `__init__` sets), unless a decorator may make them so (`@dataclass`)."""
    out = Body()
    plain_exception = not node.decorator_list and any(
        vocab.is_exception_name(last_name(b) or "") for b in node.bases
    )
    for stmt in node.body:
        end = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
        if isinstance(stmt, ast.Assign):
            call = stmt.value if isinstance(stmt.value, ast.Call) else None
            field_call = call is not None and last_name(call.func) in vocab.ATTRS_FIELDS
            for t in stmt.targets:
                if isinstance(t, ast.Name) and field_call:
                    out.fields.append(t.id)  # attrs: `rule = attr.ib()`, unannotated
                for name in bound_names(t):  # `RULES, VERSION = {...}, "1.0"` binds both
                    out.attrs.setdefault(name, end)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out.attrs.setdefault(stmt.target.id, end)
            if not plain_exception and "ClassVar" not in segment(stmt.annotation):
                out.fields.append(stmt.target.id)
                if stmt.value is not None and not isinstance(stmt.value, ast.Call):
                    out.defaults.append((stmt.target.id, stmt.value))
        elif isinstance(stmt, FUNCTION_DEFS):
            out.attrs.setdefault(stmt.name, end)
            if stmt.name == "__init__":
                out.init = stmt
    if out.init is not None:
        out.defaults = defaults_of(out.init)
    return out


def init_map(init: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, tuple[int, str]]:
    """`self.rules = rules` in __init__: attribute -> (position after self, parameter name)."""
    params = [p.arg for p in (*init.args.posonlyargs, *init.args.args)][1:]
    kwonly = {p.arg for p in init.args.kwonlyargs}
    out: dict[str, tuple[int, str]] = {}
    for stmt in init.body:
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or not isinstance(stmt.value, ast.Name):
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for t in targets:
            if isinstance(t, ast.Attribute) and dotted(t.value) == "self":
                arg = stmt.value.id
                if arg in params:
                    out[t.attr] = (params.index(arg), arg)
                elif arg in kwonly:
                    out[t.attr] = (-1, arg)
    return out


def namedtuple_fields(value: ast.expr) -> tuple[str, ...] | None:
    """The fields of `namedtuple("C", ["rule", "test"])` (or `"rule test"`, `"rule, test"`)
    and of `NamedTuple("C", [("rule", str), ...])`; None for any other value."""
    if not isinstance(value, ast.Call) or last_name(value.func) not in ("namedtuple", "NamedTuple"):
        return None
    given = (
        value.args[1]
        if len(value.args) > 1
        else next((k.value for k in value.keywords if k.arg in ("field_names", "fields")), None)
    )
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return tuple(given.value.replace(",", " ").split())
    if not isinstance(given, (ast.List, ast.Tuple)):
        return None
    out: list[str] = []
    for el in given.elts:
        name = el.elts[0] if isinstance(el, ast.Tuple) and el.elts else el
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            return None
        out.append(name.value)
    return tuple(out)


def extension_class(name: str, defs: dict[str, Value], at: Loc) -> PyExt | None:
    """A class declaring an extension by its attributes (CrewAI's `ServerExtension`: `uri =
    "https://..."` written in its module, `params` an attribute or a property): a declaration
    at its uri, its params what the attribute holds or the property returns (one value; or
    none known: run time). The class (`at`, its name) is the card it stands for."""
    uri = defs.get(f"{name}.uri")
    if isinstance(uri, Ref) and uri.module == at.path and uri.name in defs:
        uri = defs[uri.name]  # `uri: str = REFUSALS_URI`, a constant of its module
    # Else a name imported (`from .consts import EXT_URI`): binding resolves it, as an
    # `AgentExtension(uri=EXT_URI)`'s.
    if not ((isinstance(uri, Str) and spec.uri_kind(uri.value)) or isinstance(uri, Ref)):
        return None
    params = defs.get(f"{name}.params")
    if params is None:
        return None  # the uri alone: a constant's holder (a client's), no declaration
    if isinstance(params, Fn):
        returned = (*params.returns, *params.maps)
        params = returned[0] if len(returned) == 1 else Dyn(params.loc)
    return PyExt(uri.loc, at.ident, uri, defs.get(f"{name}.required"), params)
