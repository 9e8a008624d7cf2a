"""Scopes for Python extraction: which names a function binds (locals, parameters,
pass-through names), the loop and comprehension variables in force, the enclosing classes,
as the walk goes; and the small name helpers (dotted, last_name, str_key)."""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from refusal_lint.core.facts import CallV, Const, DictV, Fmt, Item, Join, Op, Ref, Seq, Str, Value
from refusal_lint.core.kinds import ValueKind
from refusal_lint.core.model import Loc
from refusal_lint.static.extract import vocab
from refusal_lint.static.extract.python.source import Source
from refusal_lint.static.extract.python.walk import Walker, unpacked

FUNCTION_DEFS = vocab.FUNCTION_DEFS


@dataclass
class Scope:
    func: str = ""  # the function's qualified name ("" for nested functions and lambdas)
    passthrough: set[str] = field(default_factory=set)
    local: set[str] = field(default_factory=set)
    values: dict[str, ast.expr] = field(default_factory=dict)  # assigned exactly once
    # Locals bound only by `name = value` (no parameter, loop, import, ...): every value
    assigned: dict[str, tuple[ast.expr, ...]] = field(default_factory=dict)
    dicts: dict[str, ast.Dict] = field(default_factory=dict)  # local name -> dict literal
    body: list[ast.stmt] | None = None  # bindings not read yet: read on first name lookup
    returns: list[Value] = field(default_factory=list)
    maps: list[Value] = field(default_factory=list)  # Fn.maps
    is_function: bool = True
    # `from m import n [as a]` inside the body: a -> (module, name, level)
    imports: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    aug: set[str] = field(default_factory=set)  # locals also grown by `+=`
    grown: dict[str, list[tuple[str, Value]]] = field(default_factory=dict)  # what each grew by, so far
    # A pydantic-ai prompt function's context parameter and its agent (`ctx`, `agent`):
    # `ctx.deps` is what that agent's runs pass as `deps=` (ExtractorState.run_deps).
    deps: tuple[str, str] | None = None
    stars: tuple[str, str] = ("", "")  # its `*args` and `**kwargs` parameters' names

    def ready(self) -> Scope:
        if self.body is not None:
            # Most functions never need their bindings; walking every body twice is costly.
            bindings = _Bindings(self)
            for stmt in self.body:
                bindings.walk(stmt)
            self.local -= self.passthrough
            self.aug = bindings.aug
            for name in bindings.others:
                self.imports.pop(name, None)  # also bound otherwise: no one callee
            self.values = {k: v for k, v in bindings.values.items() if k not in bindings.multi}
            self.assigned = {
                k: tuple(v)
                for k, v in bindings.assigns.items()
                if k not in bindings.opaque and k not in self.passthrough
            }
            self.body = None
        return self


GROWERS = vocab.GROWERS


def grown(base: Value, growth: list[tuple[str, Value]]) -> Value | None:
    """A list or text after the statements that added to it (`lines.append(f"- {k}: {v}")`
    in a loop over the rules holds that loop's lines, so a prompt joined from it is
    derived); None where the value is neither (a number, a call's result: unknown as before)."""
    for how, added in growth:
        if isinstance(base, Seq):
            more = added.items if isinstance(added, Seq) and how != "append" else (added,)
            base = Seq((*base.items, *more), base.loc)
        elif isinstance(base, (Str, Join, Fmt, Op)) and how == "+=":
            base = Join((*(base.parts if isinstance(base, Join) else (base,)), added), base.loc)
        elif how == "update" and (isinstance(base, (DictV, Ref)) or _empty_struct(base)):
            # `params = Struct(); params.update(RULES)` (protobuf), `d.update(EXTRA)`: `{**d, **RULES}`;
            # a copy of a map (`dict(PUBLIC)`, read as PUBLIC) updated: `{**PUBLIC, **EXTRA}`.
            items = (
                base.items if isinstance(base, DictV) else (_spread(base),) if isinstance(base, Ref) else ()
            )
            base = DictV((*items, _spread(added)), base.loc)
        else:
            return None
    return base


def _spread(value: Value) -> Item:  # `**value` in a dict display
    return Item(Const(ValueKind.SPREAD, value.loc), value, value.loc)


def _empty_struct(value: Value) -> bool:
    """`Struct()`: a protobuf map made empty, filled by `update` (an A2A v1.0 card's params)."""
    if not isinstance(value, CallV) or value.args or value.kwargs or not isinstance(value.func, Ref):
        return False
    return value.func.name.rsplit(".", 1)[-1] == "Struct"


def rebound(value: Any, ref: Ref, old: Value) -> Any:
    """`value` with `old` where it reads `ref`: a name bound again from itself (`PROMPT =
    PROMPT + "..."`, `x = x % (...)`) reads its value before, not itself (a loop binding
    would never resolve)."""
    if isinstance(value, Ref):
        return old if (value.module, value.name) == (ref.module, ref.name) else value
    if isinstance(value, tuple):
        return tuple(rebound(v, ref, old) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, (type, Loc)):
        changed = {f.name: rebound(getattr(value, f.name), ref, old) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changed)
    return value


def dotted(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def last_name(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def str_key(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


class _Bindings(Walker):
    """Names a function body binds: locals (and the value of those bound exactly once, and
    every value of those bound by plain assignments alone), and the pass-through ones (except-as)."""

    def __init__(self, scope: Scope) -> None:
        super().__init__()
        self.scope = scope
        self.values: dict[str, ast.expr] = {}
        self.multi: set[str] = set()
        self.others: set[str] = set()  # names bound by anything but a `from ... import`
        self.assigns: dict[str, list[ast.expr]] = {}  # `name = value`: each value
        self.opaque: set[str] = set()  # names bound otherwise too (a loop, an import, ...)
        self.aug: set[str] = set()  # names grown by `+=`: their one value and what was added

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        self.scope.local.add(node.name)
        self.others.add(node.name)
        self.multi.add(node.name)
        self.opaque.add(node.name)
        return False

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> bool:
        self.opaque.add(node.name)
        return False

    def visit_Lambda(self, node: ast.Lambda) -> bool:
        return False

    def _targets(self, target: ast.AST, into: set[str], binds: bool = True) -> None:
        if isinstance(target, ast.Name):
            into.add(target.id)
            self.multi.add(target.id)
            self.others.add(target.id)
            if binds:
                self.opaque.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for el in target.elts:
                self._targets(el, into, binds)
        elif isinstance(target, ast.Starred):
            self._targets(target.value, into, binds)

    def _bind(self, target: ast.AST, value: ast.expr | None) -> None:
        if pairs := unpacked(target, value):
            for t, v in pairs:
                self._bind(t, v)
            return
        if isinstance(target, ast.Name) and value is not None:
            name = target.id
            self.scope.local.add(name)
            self.others.add(name)
            if name in self.values:
                self.multi.add(name)
            self.values[name] = value
            self.assigns.setdefault(name, []).append(value)
        else:
            # `x: T` alone (no value) declares, it binds nothing.
            self._targets(target, self.scope.local, binds=value is not None)

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._bind(t, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._bind(node.target, node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            # `text += "..."` grows the value bound once (`grown`), no other choice of it.
            self.scope.local.add(node.target.id)
            self.others.add(node.target.id)
            self.opaque.add(node.target.id)
            self.aug.add(node.target.id)
        else:
            self._targets(node.target, self.scope.local)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._bind(node.target, node.value)  # `if (rule := pick(q)) ...`: an assignment too

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._targets(node.target, self.scope.local)

    visit_AsyncFor = visit_For

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._targets(node.target, self.scope.local)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name is not None:
            self.scope.passthrough.add(node.name)
            self.multi.add(node.name)
            self.others.add(node.name)
            self.opaque.add(node.name)

    def visit_If(self, node: ast.If) -> None:
        # `if isinstance(final, Refusal):`: `final` holds a refusal built elsewhere (its id
        # fired there), as an `except ... as exc` name does: pass-through in the function.
        self.scope.passthrough.update(vocab.narrowed_refusals(node.test))

    def visit_MatchAs(self, node: ast.MatchAs | ast.MatchStar) -> None:
        if node.name is not None:
            self.opaque.add(node.name)

    visit_MatchStar = visit_MatchAs

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest is not None:
            self.opaque.add(node.rest)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        self.opaque.update(node.names)  # not a local: bound elsewhere too

    visit_Nonlocal = visit_Global

    def visit_withitem(self, node: ast.withitem) -> None:
        if node.optional_vars is not None:
            self._targets(node.optional_vars, self.scope.local)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            name = alias.asname or alias.name
            self.scope.local.add(name)
            self.multi.add(name)
            self.others.add(name)
            self.opaque.add(name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if any(alias.name == "*" for alias in node.names):
            return
        module = node.module or ""
        for alias in node.names:
            name = alias.asname or alias.name
            self.scope.local.add(name)
            self.opaque.add(name)
            if name in self.multi:
                self.scope.imports.pop(name, None)  # bound twice: no one callee
            else:
                # A function-level `from x import report_refusal`: the repo's callee, if it is.
                self.scope.imports[name] = (module, alias.name, node.level)
            self.multi.add(name)


class ScopeTracker(Walker):
    """Scopes, loops and classes as the walk goes, and where a node stands."""

    def __init__(self, src: Source) -> None:
        super().__init__()
        self.path = src.path
        self.src = src
        self.scopes: list[Scope] = []
        self.loops: list[dict[str, tuple[ast.expr, int]]] = []  # active loop variables
        self.resolving: set[str] = set()  # locals being read (a = a + 1 must not recurse)
        # (name, its attribute and method names, each with where its first binding ends)
        self.classes: list[tuple[str, dict[str, tuple[int, int]]]] = []
        self.class_bases: list[list[ast.expr]] = []  # each open class's bases
        self.class_depths: list[int] = []  # how many function scopes were open as each began
        self.module_passthrough: set[str] = set()  # `except ... as exc` outside any function

    def loc(self, node: ast.AST) -> Loc:
        return self.src.loc(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        # Inside functions `Bindings` sees it; at module level the name is pass-through too.
        if not self.scopes and node.name is not None:
            self.module_passthrough.add(node.name)

    def in_method(self) -> bool:
        """Is the walk in a function defined in a class's body itself (a method)?"""
        return bool(self.classes) and self.class_depths[-1] == len(self.scopes) - 1

    def class_prefix(self) -> str:
        """`Outer.Inner.` inside class bodies, `` at module level: how their names are defined."""
        return "".join(c[0] + "." for c in self.classes)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.loops.append(loop_targets(node.target, node.iter))

    def leave_For(self, original_node: ast.For | ast.AsyncFor) -> None:
        self.loops.pop()

    visit_AsyncFor = visit_For
    leave_AsyncFor = leave_For

    def _visit_comp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        frame: dict[str, tuple[ast.expr, int]] = {}
        for comp in node.generators:
            frame.update(loop_targets(comp.target, comp.iter))
        self.loops.append(frame)

    def _leave_comp(self, original_node: ast.AST) -> None:
        self.loops.pop()

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _visit_comp
    leave_ListComp = leave_SetComp = leave_GeneratorExp = leave_DictComp = _leave_comp


def loop_targets(target: ast.expr, it: ast.expr) -> dict[str, tuple[ast.expr, int]]:
    if isinstance(target, ast.Name):
        return {target.id: (it, -1)}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {el.id: (it, i) for i, el in enumerate(target.elts) if isinstance(el, ast.Name)}
    return {}
