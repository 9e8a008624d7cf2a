"""Facts of one Python file, read with libcst (imported here only, inside workers).

Everything is recorded symbolically (see facts.py); nothing of the user's code is run.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from dataclasses import dataclass, field

import libcst as cst

from refusal_lint import spec
from refusal_lint.extract import vocab
from refusal_lint.extract.positions import Positions
from refusal_lint.facts import (
    Attr,
    CallV,
    Const,
    CtorCall,
    DictV,
    Dyn,
    Each,
    ErrorUse,
    FileFacts,
    Fmt,
    Fn,
    Guard,
    ImportRef,
    Item,
    Join,
    Op,
    Param,
    PyExt,
    PyPrompt,
    Ref,
    Seq,
    Str,
    Sub,
    Suppression,
    Value,
)
from refusal_lint.model import Loc

SUPPRESS = re.compile(r"#\s*refusal-lint:\s*ignore(?:\[([A-Za-z0-9,\s]*)\])?")


@dataclass
class _Scope:
    func: str = ""  # the function's qualified name ("" for nested functions and lambdas)
    passthrough: set[str] = field(default_factory=set)
    local: set[str] = field(default_factory=set)
    values: dict[str, cst.BaseExpression] = field(default_factory=dict)  # assigned exactly once
    dicts: dict[str, cst.Dict] = field(default_factory=dict)  # local name -> dict literal
    body: cst.CSTNode | None = None  # bindings not read yet: read on first name lookup
    returns: list[Value] = field(default_factory=list)
    is_function: bool = True

    def ready(self) -> _Scope:
        if self.body is not None:
            # Most functions never need their bindings; walking every body twice is costly.
            bindings = _Bindings(self)
            self.body.visit(bindings)
            self.local -= self.passthrough
            self.values = {k: v for k, v in bindings.values.items() if k not in bindings.multi}
            self.body = None
        return self


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _last_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _str_key(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


class _Bindings(cst.CSTVisitor):
    """Names a function body binds: locals (and the value of those bound exactly once),
    and the pass-through ones (except-as)."""

    def __init__(self, scope: _Scope) -> None:
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
            name = (_dotted(alias.asname.name) if alias.asname else _dotted(alias.name)) or ""
            self.scope.local.add(name)
            self.multi.add(name)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = _dotted(alias.asname.name if alias.asname else alias.name) or ""
            self.scope.local.add(name)
            self.multi.add(name)


class _Extractor(cst.CSTVisitor):
    def __init__(
        self,
        path: str,
        module: cst.Module,
        pos: Positions,
        guard_callables: tuple[str, ...],
    ) -> None:
        self.path = path
        self.module = module
        self.pos = pos
        self.scopes: list[_Scope] = []
        self.loops: list[dict[str, tuple[cst.BaseExpression, int]]] = []  # active loop variables
        self.resolving: set[str] = set()  # locals being read (a = a + 1 must not recurse)
        self.classes: list[tuple[str, set[str]]] = []  # (name, attribute and method names)
        self.init_maps: dict[str, dict[str, tuple[int, str]]] = {}  # class -> self.attr -> __init__ arg
        self.ctor_calls: list[CtorCall] = []
        self.card_names: list[str | None] = []  # every AgentCard(name=...) of the file
        self.card_ids: list[str] = []  # every AgentCard(...) of the file
        self.cards: list[tuple[str, str | None]] = []  # enclosing AgentCard(...) calls
        self.errors: list[tuple[ErrorUse, list[Value]]] = []  # open protocol-error contexts
        self.consumed: set[int] = set()  # dict literals already taken as a Part's data
        self.payload_guards: dict[int, Guard] = {}  # dict literal -> its payload guard
        self.defs: dict[str, Value] = {}
        self.imports: dict[str, ImportRef] = {}
        self.guards: list[Guard] = []
        self.error_uses: list[ErrorUse] = []
        self.exts: list[PyExt] = []
        self.prompts: list[PyPrompt] = []
        self.calls: list[CallV] = []
        self.suppressions: list[Suppression] = []
        self.guard_plain = frozenset(g for g in guard_callables if "." not in g)
        self.guard_dotted = frozenset(g for g in guard_callables if "." in g)

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
            name = _last_name(node.func)
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
        dotted = _dotted(node)
        loc = self.loc(node)
        if dotted is None:
            return Dyn(loc, self.refs_in(node.value) if isinstance(node, cst.Attribute) else ())
        head, _, rest = dotted.partition(".")
        if head in ("None", "True", "False"):
            return Const(head.lower(), loc)
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
                return Param(dotted, loc, scope.func)
            if head in scope.local:
                value = scope.values.get(head)
                if value is None or head in self.resolving:
                    return Dyn(loc)
                self.resolving.add(head)
                try:
                    return _attrs(self.value(value), rest, loc)
                finally:
                    self.resolving.discard(head)
        return Ref(self.path, dotted, loc)

    def string(self, node: cst.SimpleString) -> Value:
        value = node.evaluated_value
        loc = self.loc(node)
        if not isinstance(value, str):
            return Const("bytes", loc)
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
            return Const("number", loc)
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            if any(isinstance(el, cst.StarredElement) for el in node.elements):
                return Const("list", loc)
            return Seq(tuple(self.value(el.value) for el in node.elements), loc)
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return Const("list", loc)
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
        name = _last_name(node.func)
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
        if not isinstance(node.func, (cst.Name, cst.Attribute)) or _dotted(node.func) is None:
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
                items.append(Item(Const("spread", self.loc(el)), self.value(el.value), self.loc(el)))
        return DictV(tuple(items), self.loc(node))

    # ---- module-level definitions ------------------------------------------------------

    def define(self, target: cst.BaseExpression, value: cst.BaseExpression, prefix: str = "") -> None:
        if not isinstance(target, cst.Name):
            return
        name = prefix + target.value
        self.defs[name] = self.value(value)
        if vocab.is_prompt_name(target.value):
            self.prompts.append(PyPrompt(self.loc(target), self.defs[name], target.value, "assignment"))

    def class_prefix(self) -> str:
        """`Outer.Inner.` inside class bodies, `` at module level: how their names are defined."""
        return "".join(c[0] + "." for c in self.classes)

    def at_module_level(self) -> bool:
        return not self.scopes and not self.classes

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.scopes:
            self.bind_local_dicts(node)
            for t in node.targets:
                self.instance_prompt(t.target, node.value)
            return
        prefix = self.class_prefix()
        for t in node.targets:
            self.define(t.target, node.value, prefix)

    def instance_prompt(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        """`self._system_prompt = (...)` in a method: an instance attribute holding a prompt."""
        if (
            value is not None
            and self.classes
            and isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value in ("self", "cls")
            and vocab.is_prompt_name(target.attr.value)
        ):
            self.prompts.append(
                PyPrompt(self.loc(target), self.value(value), target.attr.value, "assignment")
            )

    def bind_local_dicts(self, node: cst.Assign) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Name) and isinstance(node.value, cst.Dict):
                self.scopes[-1].dicts[t.target.value] = node.value

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is None:
            return
        if self.scopes:
            self.instance_prompt(node.target, node.value)
            return
        value = node.value
        if isinstance(value, cst.Call) and _last_name(value.func) == "field":
            # A dataclass field: `system_prompt: str = field(default="...")`.
            default = next((a.value for a in value.args if a.keyword and a.keyword.value == "default"), None)
            if default is None:
                return
            value = default
        self.define(node.target, value, self.class_prefix())

    def visit_Import(self, node: cst.Import) -> None:
        if not self.at_module_level():
            return
        for alias in node.names:
            dotted = _dotted(alias.name) or ""
            if alias.asname is not None:
                self.imports[_dotted(alias.asname.name) or dotted] = ImportRef(dotted, None, 0)
            else:
                head = dotted.split(".")[0]
                self.imports[head] = ImportRef(head, None, 0)
                if "." in dotted:
                    self.imports[dotted] = ImportRef(dotted, None, 0)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not self.at_module_level() or isinstance(node.names, cst.ImportStar):
            return
        module = _dotted(node.module) if node.module is not None else ""
        for alias in node.names:
            name = _dotted(alias.name) or ""
            local = _dotted(alias.asname.name) if alias.asname else name
            self.imports[local or name] = ImportRef(module or "", name, len(node.relative))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        attrs: set[str] = set()
        fields: list[str] = []
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        init: cst.FunctionDef | None = None
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign):
                        attrs |= {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
                    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        attrs.add(small.target.value)
                        if "ClassVar" not in self.module.code_for_node(small.annotation.annotation):
                            fields.append(small.target.value)
            elif isinstance(stmt, cst.FunctionDef):
                attrs.add(stmt.name.value)
                if stmt.name.value == "__init__":
                    init = stmt
                    self.init_maps[node.name.value] = _init_map(stmt)
        if not self.scopes:
            # The class as a callee: `Check("seg-mix", hit)` binds by __init__ or by its fields
            # (dataclass, NamedTuple, pydantic model).
            if init is not None:
                params = _params(init)
                ctor = (params[0][1:], params[1])
            else:
                ctor = (tuple(fields), ())
            name = self.class_prefix() + node.name.value
            self.defs[name] = Fn(self.path, name, "class", ctor[0], ctor[1], (), self.loc(node.name))
        is_enum = any((_last_name(b.value) or "").endswith("Enum") for b in node.bases)
        if is_enum and not self.scopes:
            prefix = self.class_prefix()
            str_enum = any(_last_name(b.value) == "StrEnum" for b in node.bases)
            for stmt in body:
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for small in stmt.body:
                    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                        continue
                    target = small.targets[0].target
                    if (
                        str_enum
                        and isinstance(target, cst.Name)
                        and isinstance(small.value, cst.Call)
                        and _last_name(small.value.func) == "auto"
                    ):
                        self.defs[f"{prefix}{node.name.value}.{target.value}"] = Str(
                            target.value.lower(), self.loc(small.value), literal=False
                        )
        self.classes.append((node.name.value, attrs))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # Functions of the module or of a class have a name call sites can reach; nested ones do not.
        qualname = self.class_prefix() + node.name.value if not self.scopes else ""
        scope = _Scope(func=qualname)
        params = node.params
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            scope.passthrough.add(p.name.value)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.passthrough.add(star.name.value)
        scope.body = node.body
        self.scopes.append(scope)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        scope = self.scopes.pop()
        if not scope.func:
            return
        decorators = {_last_name(d.decorator) or "" for d in original_node.decorators}
        decorators |= {
            _last_name(d.decorator.func) or ""
            for d in original_node.decorators
            if isinstance(d.decorator, cst.Call)
        }
        kind = "method" if self.classes and "staticmethod" not in decorators else "function"
        positional, kwonly = _params(original_node)
        self.defs[scope.func] = Fn(
            self.path,
            scope.func,
            kind,
            positional,
            kwonly,
            tuple(scope.returns),
            self.loc(original_node.name),
        )
        if decorators & vocab.PROMPT_DECORATORS and not self.classes:
            for value in scope.returns:
                self.prompts.append(
                    PyPrompt(value.loc, value, f"@{original_node.name.value}", "prompt-function")
                )

    def visit_Return(self, node: cst.Return) -> None:
        if self.scopes and self.scopes[-1].is_function and node.value is not None:
            value = self.value(node.value)
            if isinstance(value, (Str, Join, Op, Fmt, Ref)):
                self.scopes[-1].returns.append(value)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        scope = _Scope(is_function=False)
        for p in node.params.params:
            scope.passthrough.add(p.name.value)
        self.scopes.append(scope)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.scopes.pop()

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

    # ---- comments ------------------------------------------------------------------

    def visit_Comment(self, node: cst.Comment) -> None:
        m = SUPPRESS.search(node.value)
        if m is None:
            return
        loc = self.loc(node)
        codes = tuple(c.strip().upper() for c in (m.group(1) or "").split(",") if c.strip())
        self.suppressions.append(Suppression(loc.line, codes, loc))

    # ---- calls: cards, guards, parts, prompts, errors ----------------------------------

    def kwarg(self, node: cst.Call, *names: str) -> cst.BaseExpression | None:
        for a in node.args:
            if a.keyword is not None and a.keyword.value in names:
                return a.value
        return None

    def first_arg(self, node: cst.Call) -> cst.BaseExpression | None:
        for a in node.args:
            if a.keyword is None and a.star == "":
                return a.value
            break
        return None

    def is_guard_call(self, node: cst.Call, name: str) -> bool:
        if vocab.is_guard_name(name, self.guard_plain):
            return True
        if not self.guard_dotted:
            return False
        full = self.qualified(_dotted(node.func) or name)
        return any(full == g or full.endswith("." + g) for g in self.guard_dotted)

    def qualified(self, dotted: str) -> str:
        """`p.block` with `import myagent.policy as p` -> `myagent.policy.block`."""
        head, _, rest = dotted.partition(".")
        ref = self.imports.get(head)
        if ref is None:
            return dotted
        base = f"{ref.module}.{ref.name}" if ref.name and ref.module else ref.name or ref.module
        return f"{base}.{rest}" if rest else base

    def visit_Call(self, node: cst.Call) -> None:
        name = _last_name(node.func) or ""
        loc = self.loc(node)
        if name == "AgentCard":
            card_name = _str_key(self.kwarg(node, "name"))
            card_id = f"{self.path}:{loc.line}:{loc.col}"
            self.cards.append((card_id, card_name))
            self.card_names.append(card_name)
            self.card_ids.append(card_id)
        if name in spec.PROTOCOL_ERRORS:
            self.errors.append((ErrorUse(loc, name, None), []))
        if name == "AgentExtension":
            self.agent_extension(node, loc)
        elif name[:1].isupper() and (name.endswith("Extension") or vocab.is_guard_name(name)):
            self.ctor_calls.append(
                CtorCall(
                    name,
                    tuple(self.value(a.value) for a in node.args if a.keyword is None and a.star == ""),
                    tuple((a.keyword.value, self.value(a.value)) for a in node.args if a.keyword is not None),
                    loc,
                )
            )
        self.chat_prompt(node, name)
        for a in node.args:
            if a.keyword is not None and a.keyword.value in vocab.PROMPT_KWARGS:
                self.prompt_arg(a.value, f"{a.keyword.value}=", "keyword")
        media = self.kwarg(node, *vocab.MEDIA_KEYS)
        meta = self.kwarg(node, "metadata")
        if media is None and isinstance(meta, cst.Dict) and self.kwarg(node, "data") is not None:
            # a2a-sdk 0.3: DataPart(data=..., metadata={"mediaType": ...})
            media = next(
                (
                    el.value
                    for el in meta.elements
                    if isinstance(el, cst.DictElement) and _str_key(el.key) in vocab.MEDIA_KEYS
                ),
                None,
            )
        if media is not None:
            data = self.kwarg(node, "data") or self.first_arg(node)
            self.part(media, data, loc)
        if name == "dict" and self.kwarg(node, "rule") is not None:
            self.dict_call_payload(node, loc)
        if name and self.is_guard_call(node, name):
            self.guard_call(node, loc)
        elif node.args:
            call = self.call_of(node, loc)
            if call is not None and any(_may_carry_id(v) for v in (*call.args, *(v for _, v in call.kwargs))):
                self.calls.append(call)  # may pass a rule id to a repo helper

    def guard_call(self, node: cst.Call, loc: Loc) -> None:
        rule = self.kwarg(node, *vocab.RULE_KWARGS) or self.first_arg(node)
        reason = self.kwarg(node, "reason")
        reason_value = self.value(reason) if reason is not None else None
        call = self.call_of(node, loc)
        if rule is not None and not isinstance(rule, cst.Dict):
            self.add_guard(Guard(loc, "call", self.value(rule), reason_value, call=call))
        elif rule is None and isinstance(node.func, cst.Attribute):
            # `Rule.SEG_MIX.refuse(detail=...)`: the receiver is the rule, if it is one.
            receiver = self.value(node.func.value)
            if isinstance(receiver, (Ref, Str)):
                self.add_guard(Guard(loc, "call", receiver, reason_value, receiver=True))
        elif rule is None and call is not None:
            # `refuse(updater, rule=...)` is handled above; a repo helper may still bind the id
            # by a parameter of its own: keep the call for the binder.
            self.add_guard(Guard(loc, "call", None, reason_value, call=call))

    def agent_extension(self, node: cst.Call, loc: Loc) -> None:
        uri = self.kwarg(node, "uri")
        if uri is None:
            return
        req = self.kwarg(node, "required")
        params = self.kwarg(node, "params")
        card, card_name = self.cards[-1] if self.cards else (self.path, None)
        pvalue = self.value(params) if params else None
        owner, init_arg = None, None
        if isinstance(pvalue, Param) and pvalue.name.startswith("self.") and self.classes:
            owner = self.classes[-1][0]
            init_arg = self.init_maps.get(owner, {}).get(pvalue.name[5:])
        self.exts.append(
            PyExt(
                loc,
                card,
                self.value(uri),
                self.value(req) if req else None,
                pvalue,
                card_name,
                owner=owner,
                init_arg=init_arg,
            )
        )

    def chat_prompt(self, node: cst.Call, name: str) -> None:
        """`SystemMessage(X)`, `SystemMessage(content=X)`, `SystemMessagePromptTemplate.from_template(X)`."""
        arg: cst.BaseExpression | None = None
        if name == "SystemMessage":
            arg = self.kwarg(node, "content") or self.first_arg(node)
        elif (
            name in ("from_template", "from_messages")
            and isinstance(node.func, cst.Attribute)
            and _last_name(node.func.value) == "SystemMessagePromptTemplate"
        ):
            arg = self.kwarg(node, "template") or self.first_arg(node)
        if arg is not None:
            self.prompt_arg(arg, name, "chat-message")

    def leave_Call(self, original_node: cst.Call) -> None:
        name = _last_name(original_node.func) or ""
        if name == "AgentCard" and self.cards:
            self.cards.pop()
        if name in spec.PROTOCOL_ERRORS and self.errors:
            self.close_error()

    def close_error(self) -> None:
        use, values = self.errors.pop()
        if use.rule is None and not values:
            return
        if self.errors:
            # A nested error (ServerError(error=InvalidParamsError(...))) is reported once, outermost.
            outer, outer_values = self.errors[-1]
            self.errors[-1] = (
                outer if outer.rule else ErrorUse(outer.loc, outer.name, use.rule),
                outer_values + values,
            )
            return
        self.error_uses.append(ErrorUse(use.loc, use.name, use.rule, tuple(values)))

    def add_guard(self, guard: Guard) -> None:
        if self.errors:
            use, values = self.errors[-1]
            if use.rule is None and guard.rule is not None:
                use = ErrorUse(use.loc, use.name, guard.rule)
            self.errors[-1] = (use, values)
            return
        self.guards.append(guard)

    def dict_call_payload(self, node: cst.Call, loc: Loc) -> None:
        """`dict(rule=..., reason=..., detail=...)`: a payload as much as the literal is."""
        keys = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if "reason" not in keys and "detail" not in keys:
            return
        extra = tuple(sorted(k for k in keys if k not in spec.PAYLOAD_KEYS))
        reason = keys.get("reason")
        self.add_guard(
            Guard(
                loc,
                "payload",
                self.value(keys["rule"]),
                self.value(reason) if reason is not None else None,
                extra,
            )
        )

    def prompt_arg(self, node: cst.BaseExpression, source: str, form: str) -> None:
        value = self.value(node)
        if isinstance(value, (Str, Join, Op, Ref, Dyn, Fmt, CallV)):
            self.prompts.append(PyPrompt(self.loc(node), value, source, form))

    def part(self, media_node: cst.BaseExpression, data: cst.BaseExpression | None, loc: Loc) -> None:
        """A Part with a media type: its data is a refusal payload if the type (bound later) says so."""
        media = self.value(media_node)
        literal = data if isinstance(data, cst.Dict) else None
        if isinstance(data, cst.Name):
            for scope in reversed(self.scopes):
                if data.value in scope.dicts:
                    literal = scope.dicts[data.value]
                    break
        if literal is None:
            if isinstance(media, Str) and spec.media_type_kind(media.value) == "near":
                self.add_guard(Guard(loc, "part", None, media=media, shaped=False))
            return
        earlier = self.payload_guards.pop(id(literal), None)
        if earlier is not None and earlier in self.guards:
            self.guards.remove(earlier)
        self.consumed.add(id(literal))
        # DESIGN §3: RL306 stands at the payload dict literal, also where the Part names it.
        self.payload(literal, self.loc(literal), "part", media)

    def payload(self, node: cst.Dict, loc: Loc, kind: str, media: Value | None = None) -> None:
        keys = _str_keys(node)
        shaped = "rule" in keys and ("reason" in keys or "detail" in keys)
        if kind == "payload" and not shaped:
            return
        rule = keys.get("rule")
        reason = keys.get("reason")
        extra = tuple(sorted(k for k in keys if k not in spec.PAYLOAD_KEYS))
        guard = Guard(
            loc,
            kind,
            self.value(rule) if rule is not None else None,
            self.value(reason) if reason is not None else None,
            extra,
            media=media,
            shaped=shaped,
        )
        self.add_guard(guard)
        if kind == "payload" and self.scopes:
            self.payload_guards[id(node)] = guard

    def visit_Dict(self, node: cst.Dict) -> None:
        keys = _str_keys(node)
        loc = self.loc(node)
        if "error" in keys and isinstance(keys["error"], cst.Dict):
            self.errors.append((ErrorUse(loc, '{"error": ...}', None), []))
        if "uri" in keys:
            uri = self.value(keys["uri"])
            if "params" in keys or (isinstance(uri, Str) and spec.uri_kind(uri.value)):
                req = keys.get("required")
                params = keys.get("params")
                card, card_name = self.cards[-1] if self.cards else (self.path, None)
                self.exts.append(
                    PyExt(
                        self.key_loc(node, "uri"),
                        card,
                        uri,
                        self.value(req) if req is not None else None,
                        self.value(params) if params is not None else None,
                        card_name,
                    )
                )
        media_key = next((k for k in keys if k in vocab.MEDIA_KEYS), None)
        if media_key is not None and "data" in keys:
            self.part(keys[media_key], keys["data"], loc)
        if id(node) not in self.consumed:
            self.payload(node, loc, "payload")
        self.dict_prompts(keys)

    def dict_prompts(self, keys: dict[str, cst.BaseExpression]) -> None:
        """`{"role": "system", "content": X}` and `{"system_prompt": X}`."""
        role = _str_key(keys.get("role"))
        if role in vocab.CHAT_SYSTEM_ROLES and "content" in keys:
            self.prompt_arg(keys["content"], f'role="{role}"', "chat-message")
        for key, value in keys.items():
            if vocab.is_prompt_key(key):
                self.prompt_arg(value, f'"{key}"', "dict-entry")

    def visit_Tuple(self, node: cst.Tuple) -> None:
        # ("system", X) in a message list: ChatPromptTemplate.from_messages([("system", X), ...])
        if len(node.elements) == 2 and _str_key(node.elements[0].value) in vocab.CHAT_SYSTEM_ROLES:
            self.prompt_arg(node.elements[1].value, "(system, ...)", "chat-message")

    def key_loc(self, node: cst.Dict, key: str) -> Loc:
        for el in node.elements:
            if isinstance(el, cst.DictElement) and _str_key(el.key) == key:
                return self.loc(el.key)
        return self.loc(node)

    def leave_Dict(self, original_node: cst.Dict) -> None:
        # The envelope visit_Dict opened for this very dict, if it opened one.
        if (
            self.errors
            and self.errors[-1][0].name == '{"error": ...}'
            and (self.errors[-1][0].loc == self.loc(original_node))
        ):
            self.close_error()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.errors:
            value = self.value(node)
            if isinstance(value, Sub):
                self.errors[-1][1].append(value)


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


def _params(fn: cst.FunctionDef) -> tuple[tuple[str, ...], tuple[str, ...]]:
    positional = tuple(p.name.value for p in (*fn.params.posonly_params, *fn.params.params))
    return positional, tuple(p.name.value for p in fn.params.kwonly_params)


def _may_carry_id(value: Value) -> bool:
    """An argument that can be a rule id passed on to a helper: an id-like string or a name."""
    if isinstance(value, Str):
        return 0 < len(value.value) <= 80 and not any(c.isspace() for c in value.value)
    return isinstance(value, (Ref, Param, Each, Attr, Sub))


def _str_keys(node: cst.Dict) -> dict[str, cst.BaseExpression]:
    """A dict literal's string-keyed members (the last of a repeated key, as Python keeps)."""
    return {
        k: el.value
        for el in node.elements
        if isinstance(el, cst.DictElement) and (k := _str_key(el.key)) is not None
    }


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


def _init_map(init: cst.FunctionDef) -> dict[str, tuple[int, str]]:
    """`self.rules = rules` in __init__: attribute -> (position after self, parameter name)."""
    params = [p.name.value for p in (*init.params.posonly_params, *init.params.params)][1:]
    kwonly = {p.name.value for p in init.params.kwonly_params}
    out: dict[str, tuple[int, str]] = {}
    body = init.body.body if isinstance(init.body, cst.IndentedBlock) else ()
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if not isinstance(small, (cst.Assign, cst.AnnAssign)) or not isinstance(small.value, cst.Name):
                continue
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            for t in targets:
                if isinstance(t, cst.Attribute) and _dotted(t.value) == "self":
                    arg = small.value.value
                    if arg in params:
                        out[t.attr.value] = (params.index(arg), arg)
                    elif arg in kwonly:
                        out[t.attr.value] = (-1, arg)
    return out


def extract(path: str, text: str, guard_callables: tuple[str, ...] = ()) -> FileFacts:
    """Facts of a Python file; raises libcst's ParserSyntaxError (or SyntaxError) when unreadable."""
    module = cst.parse_module(text)
    ex = _Extractor(path, module, Positions(module), guard_callables)
    module.visit(ex)
    exts = ex.exts
    if len(ex.card_ids) == 1:
        # `capabilities = AgentCapabilities(extensions=[...])` built before `AgentCard(name=...)`,
        # or `card.capabilities.extensions.append(AgentExtension(...))` after it: the file's one
        # card holds the extension and names the agent (a second declaration is RL108).
        exts = [
            dataclasses.replace(
                e,
                agent_name=e.agent_name or ex.card_names[0],
                card=ex.card_ids[0] if e.card == path else e.card,
            )
            for e in exts
        ]
    return FileFacts(
        path=path,
        kind="python",
        py_exts=tuple(exts),
        py_prompts=tuple(ex.prompts),
        guards=tuple(ex.guards),
        errors=tuple(ex.error_uses),
        defs=tuple(ex.defs.items()),
        imports=tuple(ex.imports.items()),
        suppressions=tuple(ex.suppressions),
        ctor_calls=tuple(ex.ctor_calls),
        calls=tuple(ex.calls),
    )
