"""The value builder of Python extraction: what an expression is, symbolically.

On the scopes scopes.py tracks, turns expressions into the symbolic values of
core/facts.py (Str, Ref, Param, CallV, Each, ...) without running anything. The definitions
(defs.py) and recognisers (calls.py) build on it.
"""

from __future__ import annotations

import ast

import libcst as cst

from refusal_lint.core.facts import (
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
from refusal_lint.core.kinds import ValueKind
from refusal_lint.core.model import Loc
from refusal_lint.static.extract import vocab
from refusal_lint.static.extract.python.scopes import ScopeTracker, dotted, last_name


class ValueBuilder(ScopeTracker):
    """The value of any expression, in the scope where it stands."""

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
            if head in scope.imports and head not in scope.values:
                key = self.local_import(head, *scope.imports[head])
                if key is not None:
                    return Ref(self.path, f"{key}.{rest}" if rest else key, loc)
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

    def local_import(self, local: str, module: str, name: str, level: int) -> str | None:
        """The module-level name a function-level import is kept under (None: not kept)."""
        return None

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


def _attrs(base: Value, rest: str, loc: Loc) -> Value:
    """`c.rule` on a loop element or a local's value."""
    for name in rest.split(".") if rest else ():
        base = Attr(base, name, loc)
    return base


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
