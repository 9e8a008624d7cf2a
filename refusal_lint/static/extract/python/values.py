"""The value builder of Python extraction: what an expression is, symbolically. On the scopes
scopes.py tracks, turns expressions into the symbolic values of core/facts.py (Str, Ref,
Param, CallV, Each, ...) without running anything; defs.py and calls.py build on it."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from refusal_lint.core.facts import (
    JOIN,
    OR,
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
from refusal_lint.static.extract.python.scopes import ScopeTracker, dotted, grown, last_name, loop_targets
from refusal_lint.static.extract.python.source import Token, evaluate, value_lines
from refusal_lint.static.extract.python.walk import (
    arguments,
    as_dict,
    children,
    empty,
    operands,
    or_default,
    positional,
    template_of,
)


class ValueBuilder(ScopeTracker):
    """The value of any expression, in the scope where it stands."""

    def refs_in(self, node: ast.AST) -> tuple[Ref, ...]:
        out: list[Ref] = []
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, (ast.Name, ast.Attribute)):
                v = self.name_value(n)
                if isinstance(v, Ref):
                    out.append(v)
                    continue
            stack.extend(reversed(list(children(n))))
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

    def _each(self, node: ast.expr, index: int, loc: Loc) -> Each:
        """A loop variable over `node`: `X.items()`, `sorted(X)` and the like see through to X."""
        mode = "iter"
        while isinstance(node, ast.Call) and len(node.args) + len(node.keywords) <= 1:
            name = last_name(node.func)
            if (
                name in vocab.ITERATION_VIEWS
                and isinstance(node.func, ast.Attribute)
                and not node.args
                and not node.keywords
            ):
                if mode != "iter":
                    break
                mode, node = name, node.func.value
            elif name in vocab.ORDER_WRAPPERS and isinstance(node.func, ast.Name) and node.args:
                first = node.args[0]
                node = first.value if isinstance(first, ast.Starred) else first
            else:
                break
        return Each(self.value(node), mode, index, loc)

    def name_value(self, node: ast.Name | ast.Attribute) -> Value:
        name_path = dotted(node)
        loc = self.loc(node)
        if name_path is None:
            return Dyn(loc, self.refs_in(node.value) if isinstance(node, ast.Attribute) else ())
        head, _, rest = name_path.partition(".")
        if head == "cls" and not rest and self.in_method():
            return Ref(self.path, self.class_prefix()[:-1], loc)  # a classmethod's `cls(...)`: the class
        each = self.loop_value(head, loc)
        if each is not None:
            return _attrs(each, rest, loc)
        for scope in (s.ready() for s in reversed(self.scopes)):
            if head in ("self", "cls") and self.classes and rest:
                attrs = self.classes[-1][1]
                first = rest.split(".", 1)[0]
                if first in attrs:
                    return Ref(self.path, f"{self.class_prefix()}{rest}", loc)
            if scope.deps is not None and head == scope.deps[0] and rest.partition(".")[0] == "deps":
                return Ref(self.path, f"{scope.deps[1]}@{rest}", loc)  # `ctx.deps`: the runs' `deps=`
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
                    found = grown(base := self.value(value), scope.grown.get(head, []))
                    if found is None and head in scope.aug:
                        return Dyn(loc)  # `n += 1`: no text or list grown
                    return _attrs(found or base, rest, loc)
                finally:
                    self.resolving.discard(head)
        if head in self.module_passthrough:
            return Param(name_path, loc)
        if (
            self.classes
            and self.class_depths[-1] == len(self.scopes)
            and _bound_before(self.classes[-1][1], head, node)
        ):
            # Read in a class body itself (`system_prompt = LEAD + RULES`): its attribute, once
            # bound there (`SEG_MIX = SEG_MIX` reads the module's).
            return Ref(self.path, f"{self.class_prefix()}{name_path}", loc)
        return Ref(self.path, name_path, loc)

    def local_import(self, local: str, module: str, name: str, level: int) -> str | None:
        """The module-level name a function-level import is kept under (None: not kept)."""
        return None

    def strings(self, node: ast.Constant | ast.JoinedStr) -> Value:
        """A string, bytes or f-string literal, as its tokens: `"a" "b"` is Join(a, b), so
        each keeps the file lines its text stands on."""
        tokens = self.src.tokens(node)
        if len(tokens) == 1 and isinstance(node, ast.Constant):
            return self.string(tokens[0], node.value)
        # The f-strings' `{...}` fields, in order, across the tokens (CPython merged them).
        fields = iter(node.values if isinstance(node, ast.JoinedStr) else ())
        values: list[Value] = []
        for token in tokens:
            if "f" in token.prefix.lower():
                values.append(self.fstring(token, fields))
            else:
                literal: object = evaluate(token.prefix, token.quote, token.body(self.src.text))
                values.append(self.string(token, literal))
        if not values:
            return Dyn(self.loc(node))
        return Join(tuple(values), self.loc(node)) if len(values) > 1 else values[0]

    def string(self, token: Token, value: object) -> Value:
        loc = self.src.loc_at(token.start, token.end)
        if not isinstance(value, str):
            return Const(ValueKind.BYTES, loc)
        body = token.body(self.src.text)
        return Str(value, loc, value_lines(body, "r" in token.prefix.lower(), loc.line, value))

    def fstring(self, token: Token, fields: Iterator[ast.expr]) -> Value:
        loc = self.src.loc_at(token.start, token.end)
        quote = token.quote
        prefix = token.prefix.replace("f", "").replace("F", "")
        parts: list[Value] = []
        line = loc.line
        for part in token.parts:
            if not part.field:
                text = str(evaluate(prefix, quote, part.raw)).replace("{{", "{").replace("}}", "}")
                lines = value_lines(part.raw, "r" in prefix.lower(), line, text)
                parts.append(Str(text, Loc(self.path, line), lines, literal=False))
            else:
                field = next((v.value for v in fields if isinstance(v, ast.FormattedValue)), None)
                parts.append(self.value(field) if field is not None else Dyn(loc))
            line += part.raw.count("\n")
        if len(parts) == 1 and isinstance(parts[0], Str):
            return Str(parts[0].value, loc, parts[0].lines)  # f"..." with no placeholder: a literal
        return Join(tuple(parts), loc)

    def value(self, node: ast.expr) -> Value:
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.JoinedStr):
            return self.strings(node)
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.name_value(node)
        loc = self.loc(node)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            if any(isinstance(el, ast.Starred) for el in node.elts):
                return Const(ValueKind.ARRAY, loc)
            return Seq(tuple(self.value(el) for el in node.elts), loc)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return Const(ValueKind.ARRAY, loc, self.refs_in(node))
        if isinstance(node, ast.Dict):
            return self.dict_value(node)
        if isinstance(node, ast.DictComp):
            return self.dict_comp(node, loc)
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, (ast.Tuple, ast.Slice)):
            return Sub(self.value(node.value), self.value(node.slice), loc)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return Join(tuple(self.value(n) for n in operands(node, ast.Add)), loc)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            # `A | B | C` merges dicts (3.9): `{**A, **B, **C}`, one display however long the
            # chain; an operand that is no dict (a flag, a set) adds no item, as `**` would not.
            return DictV(tuple(self.spread(n) for n in operands(node, ast.BitOr)), loc)
        if isinstance(node, ast.BinOp) and (template := template_of(node)) is not None:
            base = self.value(template)
            if isinstance(base, (Str, Join, Ref)):
                return Fmt(base, (self.value(node.right),), loc, "%")
        if isinstance(node, ast.BoolOp) and (fallback := or_default(node)) is not None:
            # `params or {}`: the name's value, where it is empty the same as its default
            # (not `raw.get("params") or {}`: what a call returns is not known); `rules or
            # DEFAULT_RULES`: the default where the first is empty (resolve.py), or unknown
            # for a prompt (`os.getenv("PROMPT") or DEFAULT_PROMPT`: bind/prompts.py).
            given = node.values[0]
            if empty(fallback):
                return self.value(given) if isinstance(given, ast.Name) else Dyn(loc, self.refs_in(node))
            return Op(OR, Seq((self.value(given), self.value(fallback)), loc), loc)
        if isinstance(node, ast.Call):
            first = self.first_of(node)
            return first if first is not None else self.call_value(node, loc)
        return Dyn(loc, self.refs_in(node))

    def constant(self, node: ast.Constant) -> Value:
        v = node.value
        if isinstance(v, (str, bytes)):
            return self.strings(node)
        loc = self.loc(node)
        if v is None:
            return Const(ValueKind.NULL, loc)
        if isinstance(v, bool):
            return Const(ValueKind.BOOL, loc)
        if isinstance(v, (int, float, complex)):
            return Const(ValueKind.NUMBER, loc)
        return Dyn(loc)  # `...`

    def call_value(self, node: ast.Call, loc: Loc) -> Value:
        name = last_name(node.func)
        args = positional(node)
        plain = len(args) == len(node.args)
        if name in vocab.DEDENTS and len(args) == 1:
            return Op("dedent", self.value(args[0]), loc)
        if (
            name in vocab.STRIPS
            and isinstance(node.func, ast.Attribute)
            and not node.args
            and not node.keywords
        ):
            return Op(name, self.value(node.func.value), loc)
        if name in vocab.WRAPPERS and len(args) == 1 and plain and not node.keywords:
            return self.value(as_dict(args[0]) if name == "dict" else args[0])
        if name in vocab.TEXT_BUFFERS and len(args) <= 1 and plain and not node.keywords:
            return self.value(args[0]) if args else Str("", loc, (loc.line,), literal=False)
        if name == "getvalue" and isinstance(node.func, ast.Attribute) and not node.args:
            return self.value(node.func.value)  # the buffer's text, as its writes grew it
        payload = not args and any(k.arg == "rule" for k in node.keywords)
        if name == "dict" and isinstance(node.func, ast.Name) and plain and len(args) <= 1 and not payload:
            return self.dict_call(node, loc)  # `dict(BASE, **EXTRA)`: `{**BASE, **EXTRA}`; `dict(a=...)`
        if name in vocab.STRUCT_FROM_DICT and args:
            return self.value(args[0])  # protobuf: ParseDict(RULES, Struct()) is RULES
        if (template := template_of(node)) is not None:
            base = self.value(template)
            if isinstance(base, (Str, Join, Ref, Op)):
                fed = arguments(node)
                return Fmt(base, tuple(self.value(a) for _, a in fed), loc, names=tuple(n for n, _ in fed))
        if (
            name == "join"
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, (str, bytes))
            and len(node.args) == 1
            and not node.keywords
        ):
            items, sep_text = node.args[0], node.func.value.value
            if isinstance(items, (ast.List, ast.Tuple)):
                # "\n".join(["You are ...", "- seg-mix: ..."]): a prompt written line by line.
                sep = self.value(node.func.value)
                parts: list[Value] = []
                for i, el in enumerate(items.elts):
                    if i:
                        parts.append(sep)
                    if isinstance(el, ast.Starred) and isinstance(sep_text, str):
                        # `*OLD_RULES` among them: its items joined by the same separator.
                        parts.append(Op(JOIN + sep_text, self.value(el.value), self.loc(el)))
                    else:
                        parts.append(self.value(el.value if isinstance(el, ast.Starred) else el))
                return Join(tuple(parts), loc) if parts else Str("", loc, (loc.line,))
            if isinstance(items, (ast.Name, ast.Attribute)) and isinstance(sep_text, str):
                # "\n".join(LINES), LINES a list bound elsewhere: joined once binding knows it.
                return Op(JOIN + sep_text, self.value(items), loc)
            if isinstance(items, (ast.ListComp, ast.GeneratorExp)):
                # "\n".join(f"- {k}: {v}" for k, v in RULES.items()): built from what it iterates.
                return Dyn(loc, self.refs_in(items))
        call = self.call_of(node, loc)
        return call if call is not None else Dyn(loc, self.refs_in(node))

    def first_of(self, call: ast.Call) -> Value | None:
        """`next(e["params"] for e in CARD["capabilities"]["extensions"] if ...)`: a field of
        one element of what the loop iterates (as a loop's); not the element itself (`next(r
        for r in X if match(r))`: an id picked at run time, RL304). None for any other call."""
        node = call.args[0] if len(call.args) == 1 and not call.keywords else None
        if not (
            isinstance(call.func, ast.Name) and call.func.id == "next" and isinstance(node, ast.GeneratorExp)
        ):
            return None
        if not isinstance(node.elt, (ast.Subscript, ast.Attribute)):
            return None
        (gen, *more) = node.generators
        if more or gen.is_async:
            return None
        self.loops.append(loop_targets(gen.target, gen.iter))
        try:
            return self.value(node.elt)
        finally:
            self.loops.pop()

    def call_of(self, node: ast.Call, loc: Loc) -> CallV | None:
        """A call of a named callee with its arguments, or of a method of an object built
        there (`Policy().refuse(...)`); None for `f()()`, `x[0]()`, star-args."""
        func = node.func
        built = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)
        if not built and (not isinstance(func, (ast.Name, ast.Attribute)) or dotted(func) is None):
            return None
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return None
        args = tuple(self.argument(a) for a in node.args)
        kwargs = tuple((k.arg, self.argument(k.value)) for k in node.keywords if k.arg is not None)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
            return CallV(Attr(self.value(func.value), func.attr, self.loc(func)), args, kwargs, loc)
        assert isinstance(func, (ast.Name, ast.Attribute))
        return CallV(self.name_value(func), args, kwargs, loc)

    argument = value  # a call's argument (calls.py: a guard id it may be, each of a few)

    def spread(self, node: ast.expr, loc: Loc | None = None) -> Item:
        """An item `**node` of a merged dict, standing at `loc` (the value's own by default)."""
        at = loc or self.loc(node)
        return Item(Const(ValueKind.SPREAD, at), self.value(node), at)

    def dict_call(self, node: ast.Call, loc: Loc) -> DictV:
        """`dict(BASE, **EXTRA, key=value)`, `dict([(k, v), ...])` as the dict display it
        builds (`dict(seg_mix=...)` too: ids not kebab-case, RL105); a payload's
        (`dict(rule=..., reason=...)`) stays a call."""
        items = [self.spread(as_dict(a)) for a in node.args]
        for k in node.keywords:
            if k.arg is None:
                items.append(self.spread(k.value))
            else:
                at = self.loc(k)
                items.append(Item(Str(k.arg, at, (at.line,)), self.value(k.value), at))
        return DictV(tuple(items), loc)

    def dict_comp(self, node: ast.DictComp, loc: Loc) -> Value:
        """`{r.id: r.reason for r in RULES}`: one item whose key and value are read per
        element of what the loop iterates (binding expands it); a filter (`if`) or a second
        loop makes it a run-time value."""
        (gen, *more) = node.generators
        if more or gen.ifs or gen.is_async:
            return Dyn(loc, self.refs_in(node))
        self.loops.append(loop_targets(gen.target, gen.iter))
        try:
            return DictV((Item(self.value(node.key), self.value(node.value), self.loc(node.key)),), loc)
        finally:
            self.loops.pop()

    def dict_value(self, node: ast.Dict) -> DictV:
        items = []
        for key, value in zip(node.keys, node.values, strict=True):
            if key is not None:
                items.append(Item(self.value(key), self.value(value), self.loc(key)))
            else:
                items.append(self.spread(value, self.src.spread_loc(value)))
        return DictV(tuple(items), self.loc(node))


def _attrs(base: Value, rest: str, loc: Loc) -> Value:
    """`c.rule` on a loop element or a local's value."""
    for name in rest.split(".") if rest else ():
        base = Attr(base, name, loc)
    return base


def _bound_before(attrs: dict[str, tuple[int, int]], name: str, node: ast.expr) -> bool:
    """Is `name` an attribute of the class whose body reads it at `node`, bound by then?"""
    end = attrs.get(name)
    return end is not None and end <= (node.lineno, node.col_offset)
