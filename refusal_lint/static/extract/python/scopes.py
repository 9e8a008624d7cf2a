"""Scopes for Python extraction: which names a function binds (locals, parameters,
pass-through names), the loop and comprehension variables in force, the enclosing classes,
as a libcst visit goes; and the small name helpers (dotted, last_name, str_key)."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from refusal_lint.core.facts import Value
from refusal_lint.core.model import Loc
from refusal_lint.static.extract.positions import Positions


@dataclass
class Scope:
    func: str = ""  # the function's qualified name ("" for nested functions and lambdas)
    passthrough: set[str] = field(default_factory=set)
    local: set[str] = field(default_factory=set)
    values: dict[str, cst.BaseExpression] = field(default_factory=dict)  # assigned exactly once
    dicts: dict[str, cst.Dict] = field(default_factory=dict)  # local name -> dict literal
    body: cst.CSTNode | None = None  # bindings not read yet: read on first name lookup
    returns: list[Value] = field(default_factory=list)
    is_function: bool = True
    # `from m import n [as a]` inside the body: a -> (module, name, level)
    imports: dict[str, tuple[str, str, int]] = field(default_factory=dict)

    def ready(self) -> Scope:
        if self.body is not None:
            # Most functions never need their bindings; walking every body twice is costly.
            bindings = _Bindings(self)
            self.body.visit(bindings)
            self.local -= self.passthrough
            for name in bindings.others:
                self.imports.pop(name, None)  # also bound otherwise: no one callee
            self.values = {k: v for k, v in bindings.values.items() if k not in bindings.multi}
            self.body = None
        return self


def dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def last_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def str_key(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


class _Bindings(cst.CSTVisitor):
    """Names a function body binds: locals (and the value of those bound exactly once),
    and the pass-through ones (except-as)."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.values: dict[str, cst.BaseExpression] = {}
        self.multi: set[str] = set()
        self.others: set[str] = set()  # names bound by anything but a `from ... import`

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.scope.local.add(node.name.value)
        self.others.add(node.name.value)
        self.multi.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def _targets(self, target: cst.BaseExpression, into: set[str]) -> None:
        if isinstance(target, cst.Name):
            into.add(target.value)
            self.multi.add(target.value)
            self.others.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._targets(el.value, into)
        elif isinstance(target, cst.StarredElement):
            self._targets(target.value, into)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name) and value is not None:
            name = target.value
            self.scope.local.add(name)
            self.others.add(name)
            if name in self.values:
                self.multi.add(name)
            self.values[name] = value
        else:
            self._targets(target, self.scope.local)

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._bind(t.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target, self.scope.local)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target, self.scope.local)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target, self.scope.local)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target, self.scope.local)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._targets(node.name.name, self.scope.passthrough)

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        if node.name is not None:
            self._targets(node.name.name, self.scope.passthrough)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._targets(node.asname.name, self.scope.local)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = (dotted(alias.asname.name) if alias.asname else dotted(alias.name)) or ""
            self.scope.local.add(name)
            self.multi.add(name)
            self.others.add(name)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        module = (dotted(node.module) if node.module is not None else "") or ""
        for alias in node.names:
            name = dotted(alias.asname.name if alias.asname else alias.name) or ""
            self.scope.local.add(name)
            if name in self.multi:
                self.scope.imports.pop(name, None)  # bound twice: no one callee
            else:
                # A function-level `from x import report_refusal`: the repo's callee, if it is.
                self.scope.imports[name] = (module, dotted(alias.name) or "", len(node.relative))
            self.multi.add(name)


class ScopeTracker(cst.CSTVisitor):
    """Scopes, loops and classes as the visit goes, and where a node stands."""

    def __init__(self, path: str, module: cst.Module, pos: Positions) -> None:
        self.path = path
        self.module = module
        self.pos = pos
        self.scopes: list[Scope] = []
        self.loops: list[dict[str, tuple[cst.BaseExpression, int]]] = []  # active loop variables
        self.resolving: set[str] = set()  # locals being read (a = a + 1 must not recurse)
        self.classes: list[tuple[str, set[str]]] = []  # (name, attribute and method names)
        self.module_passthrough: set[str] = set()  # `except ... as exc` outside any function

    def loc(self, node: cst.CSTNode) -> Loc:
        r = self.pos.get(node)
        if r is None:
            return Loc(self.path)
        return Loc(self.path, r[0], r[1] + 1, r[2], r[3] + 1)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        # Inside functions `Bindings` sees it; at module level the name is pass-through too.
        if not self.scopes and node.name is not None and isinstance(node.name.name, cst.Name):
            self.module_passthrough.add(node.name.name.value)

    def class_prefix(self) -> str:
        """`Outer.Inner.` inside class bodies, `` at module level: how their names are defined."""
        return "".join(c[0] + "." for c in self.classes)

    def visit_For(self, node: cst.For) -> None:
        self.loops.append(_loop_targets(node.target, node.iter))

    def leave_For(self, original_node: cst.For) -> None:
        self.loops.pop()

    def _visit_comp(self, node: cst.BaseComp | cst.DictComp) -> None:
        frame: dict[str, tuple[cst.BaseExpression, int]] = {}
        comp: cst.CompFor | None = node.for_in
        while comp is not None:
            frame.update(_loop_targets(comp.target, comp.iter))
            comp = comp.inner_for_in
        self.loops.append(frame)

    def _leave_comp(self) -> None:
        self.loops.pop()

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._visit_comp(node)

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self._leave_comp()

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._visit_comp(node)

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self._leave_comp()

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._visit_comp(node)

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self._leave_comp()

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._visit_comp(node)

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self._leave_comp()


def _loop_targets(
    target: cst.BaseExpression, it: cst.BaseExpression
) -> dict[str, tuple[cst.BaseExpression, int]]:
    if isinstance(target, cst.Name):
        return {target.value: (it, -1)}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {
            el.value.value: (it, i) for i, el in enumerate(target.elements) if isinstance(el.value, cst.Name)
        }
    return {}
