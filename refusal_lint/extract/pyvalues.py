"""The value builder of Python extraction: what an expression is, symbolically.

A libcst visitor base that tracks scopes (functions, their locals and parameters), loop
and comprehension variables and enclosing classes, and turns expressions into the
symbolic values of facts.py (Str, Ref, Param, CallV, Each, ...) without running anything.
The recognisers in python.py build on it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst

from refusal_lint.extract import vocab
from refusal_lint.extract.positions import Positions
from refusal_lint.facts import (
    Attr,
    CallV,
    Const,
    DictV,
    Dyn,
    Each,
    Fmt,
    Item,
    Join,
    Op,
    Param,
    Ref,
    Seq,
    Str,
    Sub,
    Value,
)
from refusal_lint.kinds import ValueKind
from refusal_lint.model import Loc


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

    def ready(self) -> Scope:
        if self.body is not None:
            # Most functions never need their bindings; walking every body twice is costly.
            bindings = _Bindings(self)
            self.body.visit(bindings)
            self.local -= self.passthrough
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

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.scope.local.add(node.name.value)
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
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._targets(el.value, into)
        elif isinstance(target, cst.StarredElement):
            self._targets(target.value, into)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name) and value is not None:
            name = target.value
            self.scope.local.add(name)
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

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = dotted(alias.asname.name if alias.asname else alias.name) or ""
            self.scope.local.add(name)
            self.multi.add(name)


class ValueBuilder(cst.CSTVisitor):
    """Scopes, loops and classes as the visit goes, and the value of any expression."""

    def __init__(self, path: str, module: cst.Module, pos: Positions) -> None:
        self.path = path
        self.module = module
        self.pos = pos
        self.scopes: list[Scope] = []
        self.loops: list[dict[str, tuple[cst.BaseExpression, int]]] = []  # active loop variables
        self.resolving: set[str] = set()  # locals being read (a = a + 1 must not recurse)
        self.classes: list[tuple[str, set[str]]] = []  # (name, attribute and method names)
        self.module_passthrough: set[str] = set()  # `except ... as exc` outside any function

    # ---- locations -------------------------------------------------------------------

    def loc(self, node: cst.CSTNode) -> Loc:
        r = self.pos.get(node)
        if r is None:
            return Loc(self.path)
        return Loc(self.path, r[0], r[1] + 1, r[2], r[3] + 1)

    # ---- values ----------------------------------------------------------------------

    def refs_in(self, node: cst.CSTNode) -> tuple[Ref, ...]:
        out: list[Ref] = []
        outer = self

        class _Names(cst.CSTVisitor):
            def visit_Attribute(self, n: cst.Attribute) -> bool:
                v = outer.name_value(n)
                if isinstance(v, Ref):
                    out.append(v)
                    return False
                return True

            def visit_Name(self, n: cst.Name) -> None:
                v = outer.name_value(n)
                if isinstance(v, Ref):
                    out.append(v)

        node.visit(_Names())
        return tuple(out)

    def loop_value(self, head: str, loc: Loc) -> Value | None:
        for k in range(len(self.loops) - 1, -1, -1):
            if head in self.loops[k]:
                node, index = self.loops[k][head]
                # The iterable is read where the loop starts: its own variables are not bound yet.
                saved, self.loops = self.loops, self.loops[:k]
                try:
                    return self._each(node, index, loc)
                finally:
                    self.loops = saved
        return None

    def _each(self, node: cst.BaseExpression, index: int, loc: Loc) -> Each:
        """A loop variable over `node`: `X.items()`, `sorted(X)` and the like see through to X."""
        mode = "iter"
        while isinstance(node, cst.Call) and len(node.args) <= 1:
            name = last_name(node.func)
            if name in vocab.ITERATION_VIEWS and isinstance(node.func, cst.Attribute) and not node.args:
                if mode != "iter":
                    break
                mode, node = name, node.func.value
            elif name in vocab.ORDER_WRAPPERS and isinstance(node.func, cst.Name) and node.args:
                node = node.args[0].value
            else:
                break
        return Each(self.value(node), mode, index, loc)

    def name_value(self, node: cst.Name | cst.Attribute) -> Value:
        name_path = dotted(node)
        loc = self.loc(node)
        if name_path is None:
            return Dyn(loc, self.refs_in(node.value) if isinstance(node, cst.Attribute) else ())
        head, _, rest = name_path.partition(".")
        if head in ("None", "True", "False"):
            return Const(ValueKind.NULL if head == "None" else ValueKind.BOOL, loc)
        each = self.loop_value(head, loc)
        if each is not None:
            return _attrs(each, rest, loc)
        for scope in (s.ready() for s in reversed(self.scopes)):
            if head in ("self", "cls") and self.classes and rest:
                attrs = self.classes[-1][1]
                first = rest.split(".", 1)[0]
                if first in attrs:
                    return Ref(self.path, f"{self.class_prefix()}{rest}", loc)
            if head in scope.passthrough:
                return Param(name_path, loc, scope.func)
            if head in scope.local:
                value = scope.values.get(head)
                if value is None or head in self.resolving:
                    return Dyn(loc)
                self.resolving.add(head)
                try:
                    return _attrs(self.value(value), rest, loc)
                finally:
                    self.resolving.discard(head)
        if head in self.module_passthrough:
            return Param(name_path, loc)
        return Ref(self.path, name_path, loc)

    def string(self, node: cst.SimpleString) -> Value:
        value = node.evaluated_value
        loc = self.loc(node)
        if not isinstance(value, str):
            return Const(ValueKind.BYTES, loc)
        body = node.value[len(node.prefix) + len(node.quote) : len(node.value) - len(node.quote)]
        return Str(value, loc, _value_lines(body, "r" in node.prefix.lower(), loc.line, value))

    def fstring(self, node: cst.FormattedString) -> Value:
        loc = self.loc(node)
        quote = node.start.lstrip("fFrRbBuU")
        prefix = node.start[: len(node.start) - len(quote)].replace("f", "").replace("F", "")
        parts: list[Value] = []
        line = loc.line
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                try:
                    text = ast.literal_eval(prefix + quote + part.value + quote)
                except (SyntaxError, ValueError):
                    text = part.value
                text = str(text).replace("{{", "{").replace("}}", "}")
                lines = _value_lines(part.value, "r" in prefix.lower(), line, text)
                parts.append(Str(text, Loc(self.path, line), lines, literal=False))
                line += part.value.count("\n")
            else:
                assert isinstance(part, cst.FormattedStringExpression)
                parts.append(self.value(part.expression))
                line += self.module.code_for_node(part).count("\n")
        if len(parts) == 1 and isinstance(parts[0], Str):
            return Str(parts[0].value, loc, parts[0].lines)  # f"..." with no placeholder: a literal
        return Join(tuple(parts), loc)

    def value(self, node: cst.BaseExpression) -> Value:
        loc = self.loc(node)
        if isinstance(node, cst.SimpleString):
            return self.string(node)
        if isinstance(node, cst.ConcatenatedString):
            return Join((self.value(node.left), self.value(node.right)), loc)
        if isinstance(node, cst.FormattedString):
            return self.fstring(node)
        if isinstance(node, (cst.Name, cst.Attribute)):
            return self.name_value(node)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
            return Const(ValueKind.NUMBER, loc)
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            if any(isinstance(el, cst.StarredElement) for el in node.elements):
                return Const(ValueKind.ARRAY, loc)
            return Seq(tuple(self.value(el.value) for el in node.elements), loc)
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return Const(ValueKind.ARRAY, loc)
        if isinstance(node, cst.Dict):
            return self.dict_value(node)
        if isinstance(node, cst.Subscript) and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index):
                return Sub(self.value(node.value), self.value(index.value), loc)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            return Join((self.value(node.left), self.value(node.right)), loc)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
            base = self.value(node.left)
            if isinstance(base, (Str, Join, Ref)):
                return Fmt(base, (self.value(node.right),), loc)
        if isinstance(node, cst.Call):
            return self.call_value(node, loc)
        return Dyn(loc, self.refs_in(node))

    def call_value(self, node: cst.Call, loc: Loc) -> Value:
        name = last_name(node.func)
        args = [a for a in node.args if a.keyword is None and a.star == ""]
        if name in vocab.DEDENTS and len(args) == 1:
            return Op("dedent", self.value(args[0].value), loc)
        if name in vocab.STRIPS and isinstance(node.func, cst.Attribute) and not node.args:
            return Op(name, self.value(node.func.value), loc)
        if name in vocab.WRAPPERS and len(args) == 1 and len(node.args) == 1:
            return self.value(args[0].value)
        if name in vocab.STRUCT_FROM_DICT and args:
            return self.value(args[0].value)  # protobuf: ParseDict(RULES, Struct()) is RULES
        if name == "format" and isinstance(node.func, cst.Attribute):
            base = self.value(node.func.value)
            if isinstance(base, (Str, Join, Ref, Op)):
                return Fmt(base, tuple(self.value(a.value) for a in node.args), loc)
        if (
            name == "join"
            and isinstance(node.func, cst.Attribute)
            and isinstance(node.func.value, cst.SimpleString)
            and len(node.args) == 1
            and isinstance(node.args[0].value, (cst.List, cst.Tuple))
        ):
            # "\n".join(["You are ...", "- seg-mix: ..."]): a prompt written line by line.
            sep = self.value(node.func.value)
            parts: list[Value] = []
            for i, el in enumerate(node.args[0].value.elements):
                if i:
                    parts.append(sep)
                parts.append(self.value(el.value))
            return Join(tuple(parts), loc) if parts else Str("", loc, (loc.line,))
        call = self.call_of(node, loc)
        return call if call is not None else Dyn(loc, self.refs_in(node))

    def call_of(self, node: cst.Call, loc: Loc) -> CallV | None:
        """A call of a named callee with its arguments (None for `f()()`, `x[0]()`, star-args)."""
        if not isinstance(node.func, (cst.Name, cst.Attribute)) or dotted(node.func) is None:
            return None
        args: list[Value] = []
        kwargs: list[tuple[str, Value]] = []
        for a in node.args:
            if a.star:
                return None
            if a.keyword is not None:
                kwargs.append((a.keyword.value, self.value(a.value)))
            else:
                args.append(self.value(a.value))
        return CallV(self.name_value(node.func), tuple(args), tuple(kwargs), loc)

    def dict_value(self, node: cst.Dict) -> DictV:
        items = []
        for el in node.elements:
            if isinstance(el, cst.DictElement):
                items.append(Item(self.value(el.key), self.value(el.value), self.loc(el.key)))
            else:
                items.append(Item(Const(ValueKind.SPREAD, self.loc(el)), self.value(el.value), self.loc(el)))
        return DictV(tuple(items), self.loc(node))

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        # Inside functions `Bindings` sees it; at module level the name is pass-through too.
        if not self.scopes and node.name is not None and isinstance(node.name.name, cst.Name):
            self.module_passthrough.add(node.name.name.value)

    def class_prefix(self) -> str:
        """`Outer.Inner.` inside class bodies, `` at module level: how their names are defined."""
        return "".join(c[0] + "." for c in self.classes)

    # ---- loops: a variable iterating a literal table fires each of its values ----------

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


def _attrs(base: Value, rest: str, loc: Loc) -> Value:
    """`c.rule` on a loop element or a local's value."""
    for name in rest.split(".") if rest else ():
        base = Attr(base, name, loc)
    return base


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


def _value_lines(body: str, raw: bool, first: int, value: str) -> tuple[int, ...]:
    """The file line on which each line of a string literal's value starts.

    A real newline moves to the next file line; an escaped `\\n` starts a value line on
    the same file line; a backslash-newline continues the file on the next line.
    """
    lines = [first]
    line = first
    fresh = True  # the current value line has no character yet: it starts where its first one is
    i = 0
    while i < len(body):
        c = body[i]
        step = 1
        if c == "\\" and not raw and i + 1 < len(body):
            step = 2
            nxt = body[i + 1]
            if nxt == "\n":
                line += 1
                i += step
                continue
            if nxt == "n":
                lines.append(line)
                fresh = True
                i += step
                continue
        elif c == "\n":
            line += 1
            lines.append(line)
            fresh = True
            i += step
            continue
        if fresh:
            lines[-1] = line
            fresh = False
        i += step
    if len(lines) != value.count("\n") + 1:  # exotic escapes: every line at the literal's start
        return tuple(first for _ in range(value.count("\n") + 1))
    return tuple(lines)
