"""Binds symbolic Python values across the repo: constants, enums, imports, subscripts.

Only what extraction recorded is read; no module of the user's is imported or run.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Set as AbstractSet

from refusal_lint.core.facts import (
    JOIN,
    OR,
    Attr,
    CallV,
    Const,
    DictV,
    Dyn,
    Each,
    FileFacts,
    Fmt,
    Fn,
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
from refusal_lint.core.kinds import FileKind, FnKind
from refusal_lint.core.model import Loc
from refusal_lint.static.bind.classes import bind_arg, inherited
from refusal_lint.static.bind.modules import ModuleIndex
from refusal_lint.static.bind.strs import fed_by, filled_in, is_empty, join_strs, moved, transformed
from refusal_lint.static.extract import vocab

MAX_DEPTH = 40
SPREAD_DEPTH = 5  # `**` inside `**`: real params maps nest one or two deep


class Resolver:
    def __init__(self, facts: dict[str, FileFacts], index: ModuleIndex) -> None:
        self.facts = facts
        self.index = index
        python = {p: f for p, f in facts.items() if f.kind == FileKind.PYTHON and f.complete}
        self.defs = {p: dict(f.defs) for p, f in python.items()}
        self.imports = {p: dict(f.imports) for p, f in python.items()}
        self.stars = {p: f.stars for p, f in python.items() if f.stars}
        self._star_memo: dict[tuple[str, str], Value | None] = {}
        self.string_lines = {p: dict(f.string_lines) for p, f in python.items()}
        # Modules a lookup needed but that were not read (or only scanned): read them, bind again.
        self.missing: set[str] = set()

    # ---- names -----------------------------------------------------------------------

    def lookup(self, module: str, dotted: str, depth: int = 0) -> Value | None:
        if depth > MAX_DEPTH:
            return None
        defs = self.defs.get(module)
        if defs is None:
            if module:
                self.missing.add(module)
            return None
        if dotted in defs:
            return defs[dotted]
        if dotted.endswith(".value") and dotted[: -len(".value")] in defs:
            return defs[dotted[: -len(".value")]]
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            head, rest = ".".join(parts[:i]), parts[i:]
            ref = self.imports.get(module, {}).get(head)
            if ref is None:
                continue
            if ref.name is None:
                target = self.index.module(module, ref.module if i == 1 else head, 0)
                return self.lookup(target, ".".join(rest), depth + 1) if target and rest else None
            mod = self.index.module(module, ref.module, ref.level)
            if mod is not None:
                found = self.lookup(mod, ".".join([ref.name, *rest]), depth + 1)
                if found is not None:
                    return found
            sub_name = f"{ref.module}.{ref.name}" if ref.module else ref.name
            sub = self.index.module(module, sub_name, ref.level)
            if sub is not None and rest:
                return self.lookup(sub, ".".join(rest), depth + 1)
            return None
        from_base = self._inherited(module, parts, depth)
        if from_base is not None or parts[0].startswith("_") or module not in self.stars:
            return from_base  # `import *` binds no private name
        return self._starred(module, dotted, depth)

    def _inherited(self, module: str, parts: list[str], depth: int) -> Value | None:
        """`Rules.SEG_MIX` where class `Rules` of `module` binds no `SEG_MIX` itself: its
        bases' (`class Rules(BaseRules): pass`), in order, as Python looks it up; an
        attribute of a module-level instance of a repo class (`settings = Settings()`, then
        `settings.refusals_uri`), as `attr` reads it."""
        for i in range(len(parts) - 1, 0, -1):
            cls = self.defs[module].get(".".join(parts[:i]))
            if isinstance(cls, CallV) and i == len(parts) - 1 and self._built(cls, depth + 1) is not None:
                return self.attr(cls, parts[i], cls.loc, depth + 1)
            if isinstance(cls, Fn) and cls.kind == FnKind.CLASS:
                for base in cls.bases:
                    found = self.resolve(base, depth + 1) if isinstance(base, Ref) else None
                    if isinstance(found, Fn) and found.kind == FnKind.CLASS:  # a cycle ends at MAX_DEPTH
                        attr = self.lookup(found.path, ".".join([found.qualname, *parts[i:]]), depth + 1)
                        if attr is not None:
                            return attr
                return None
        return None

    def _starred(self, module: str, dotted: str, depth: int) -> Value | None:
        """A name bound nowhere else in `module`, from its star imports (the last binds it).
        Each (module, name) is looked up once: star imports may form cycles and diamonds."""
        key = (module, dotted)
        if key in self._star_memo:
            return self._star_memo[key]
        self._star_memo[key] = None  # in progress: a cycle back here finds nothing
        found = None
        for star in reversed(self.stars[module]):
            mod = self.index.module(module, star.module, star.level)
            found = self.lookup(mod, dotted, depth + 1) if mod is not None else None
            if found is not None:
                break
        self._star_memo[key] = found
        return found

    # ---- values ------------------------------------------------------------------------

    def resolve(self, value: Value | None, depth: int = 0) -> Value | None:
        """Follow names, subscripts and transforms to a Str, DictV, Const, Param or Dyn."""
        if value is None or depth > MAX_DEPTH:
            return value
        if isinstance(value, Ref):
            found = self.lookup(value.module, value.name, depth + 1)
            if found is None:
                return Dyn(value.loc, (value,))
            return self.resolve(found, depth + 1)
        if isinstance(value, Sub):
            base = self.resolve(value.base, depth + 1)
            key = self.resolve(value.key, depth + 1)
            if isinstance(base, DictV) and isinstance(key, Str):
                item = self.item(base, key.value)
                if item is not None:
                    return self.resolve(item.value, depth + 1)
            if isinstance(base, Param):
                return Param(base.name, value.loc)
            return Dyn(value.loc, tuple(r for r in (value.base,) if isinstance(r, Ref)))
        if isinstance(value, Join):
            parts = [self.resolve(p, depth + 1) for p in value.parts]
            if all(isinstance(p, Str) for p in parts):
                return moved(join_strs(parts, value.loc), value.loc)  # type: ignore[arg-type]
            return Dyn(value.loc, tuple(r for p in value.parts for r in self.refs(p)))
        if isinstance(value, Fmt):
            return self._filled(value, depth)
        if isinstance(value, Attr):
            return self.attr(self.resolve(value.base, depth + 1), value.name, value.loc, depth)
        if isinstance(value, Op) and value.op.startswith(JOIN):
            joined = self.joined(value, depth)
            if joined is None:
                return Dyn(value.loc, self.refs(value.base))
            return self.resolve(joined, depth + 1)
        if isinstance(value, Fn) and value.bases:
            return inherited(value, lambda base: self.resolve(base, depth + 1))
        if isinstance(value, Op) and value.op == OR and isinstance(value.base, Seq):
            return self._either(value, value.base.items, depth)
        if isinstance(value, Op):
            base = self.resolve(value.base, depth + 1)
            return transformed(value.op, base) if isinstance(base, Str) else base
        return value

    def _either(self, value: Op, both: tuple[Value, ...], depth: int) -> Value | None:
        """`rules or DEFAULT_RULES`: the first, where it is known and not empty; the second,
        where it is empty (`None`, `{}`, `""`); unknown where the first is."""
        first = self.resolve(both[0], depth + 1)
        if is_empty(first):
            return self.resolve(both[1], depth + 1)
        return first if isinstance(first, (DictV, Str, Seq)) else Dyn(value.loc, self.refs(value.base))

    def joined(self, op: Op, depth: int = 0) -> Join | Str | None:
        """`sep.join(NAME)` as the Join of NAME's items, where NAME is a literal list or tuple."""
        seq = self.resolve(op.base, depth + 1)
        if not isinstance(seq, Seq):
            return None
        if not seq.items:
            return Str("", op.loc, (op.loc.line,))  # `"\n".join([])`
        text = op.op[len(JOIN) :]
        sep = Str(text, op.loc, (op.loc.line,) * (text.count("\n") + 1))  # a line each of its lines
        parts: list[Value] = []
        for i, item in enumerate(seq.items):
            parts.extend((sep, item) if i else (item,))
        return Join(tuple(parts), op.loc)

    def attr(self, base: Value | None, name: str, loc: Loc, depth: int = 0) -> Value | None:
        """`base.name`: a field of a repo class's instance (`Check("seg-mix", ...).rule`)."""
        if isinstance(base, Param):
            return Param(f"{base.name}.{name}", loc, base.func)
        if isinstance(base, Str) and name == "value":
            # An enum member's `.value` (`Rule.ZODIAC` passed on, read as `rule.value`): its
            # string, as `lookup` reads `Rule.ZODIAC.value` written out.
            return base
        if isinstance(base, CallV) and (fn := self._built(base, depth + 1)) is not None:
            # What it was built with, else the field's default or the class's attribute
            # (`settings = Settings()`, then `settings.refusals_uri`).
            arg = (
                bind_arg(fn, base, name)
                or dict(fn.defaults).get(name)
                or self.lookup(fn.path, f"{fn.qualname}.{name}")
            )
            if arg is not None:
                return self.resolve(arg, depth + 1)
        return Dyn(loc)

    def callee(self, call: CallV, depth: int = 0) -> Fn | None:
        """The repo function, method or class a call reaches, if any (`depth`: a name read
        in its own binding, `PROMPT = PROMPT.replace(...)`, ends there)."""
        fn = self.resolve(call.func, depth)
        return fn if isinstance(fn, Fn) else None

    def _built(self, call: CallV, depth: int = 0) -> Fn | None:
        """The repo class a call builds an instance of, if it is one."""
        fn = self.callee(call, depth)
        return fn if fn is not None and fn.kind == FnKind.CLASS else None

    def expand(self, value: Value | None, depth: int = 0) -> list[Value]:
        """Every value `value` can take: one, or each element of a literal table it iterates."""
        if value is None:
            return []
        if depth > MAX_DEPTH:
            return [Dyn(value.loc)]
        if isinstance(value, Each):
            elements = self.elements(self.resolve(value.over), value.mode)
            if elements is None:
                return [Dyn(value.loc)]
            if value.index >= 0:
                picked: list[Value] = []
                for el in elements:
                    picked.append(self._unpacked(self.resolve(el), value.index, value.loc))
                elements = picked
            return [x for el in elements for x in self.expand(el, depth + 1)]
        if isinstance(value, Attr):
            return [
                x
                for b in self.expand(value.base, depth + 1)
                for x in self.expand(self.attr(b, value.name, value.loc), depth + 1)
            ]
        if isinstance(value, Sub) and (has_each(value.base) or has_each(value.key)):
            # A table's entry for each table, or each key, a loop takes (`REASONS[r] for r in Rule`).
            out: list[Value] = []
            for b in self.expand(value.base, depth + 1):
                for k in self.expand(value.key, depth + 1):
                    item = self.item(b, k.value) if isinstance(b, DictV) and isinstance(k, Str) else None
                    out.extend(self.expand(item.value, depth + 1) if item is not None else [Dyn(value.loc)])
            return out
        resolved = self.resolve(value)
        return [resolved] if resolved is not None else []

    def _unpacked(self, row: Value | None, index: int, loc: Loc) -> Value:
        """Item `index` of a row a loop unpacks (`for rule, test in CHECKS`): a tuple's, or the
        field at that position of a repo class built (a NamedTuple's `Check("seg-mix", test)`)."""
        if isinstance(row, Seq):
            return row.items[index] if index < len(row.items) else Dyn(loc)
        fn = self.callee(row) if isinstance(row, CallV) else None
        if not isinstance(row, CallV) or fn is None or fn.kind != FnKind.CLASS or index >= len(fn.params):
            return Dyn(loc)
        return bind_arg(fn, row, fn.params[index]) or Dyn(loc)

    def elements(self, over: Value | None, mode: str) -> list[Value] | None:
        """What a loop over a literal collection takes, one by one (None: not a literal)."""
        if isinstance(over, DictV):
            items = self.entries(over)
            if mode == "values":
                return [it.value for it in items]
            if mode == "items":
                return [Seq((it.key, it.value), it.loc) for it in items]
            return [it.key for it in items]
        if isinstance(over, Seq) and mode == "iter":
            return list(over.items)
        if isinstance(over, CallV) and _ordering(over):  # `IDS = frozenset({...})`: as `for r in sorted(X)`
            return self.elements(self.resolve(over.args[0]), mode)
        if isinstance(over, Fn) and over.kind == FnKind.CLASS and mode == "iter":
            members = self.resolve(self.lookup(over.path, f"{over.qualname}.{vocab.ENUM_MEMBERS}"))
            return list(members.items) if isinstance(members, Seq) else None  # an Enum's members
        return None

    def resolve_str(self, value: Value | None) -> Str | None:
        out = self.resolve(value)
        return out if isinstance(out, Str) else None

    def entries(self, d: DictV) -> list[Item]:
        """The items of the dict a display builds: each `**spread` of a dict that resolves
        expanded in its place (`{**BASE, **EXTRA}`, `BASE | EXTRA`; one that does not adds
        none), a string key repeated standing first where it was first, with its last value."""
        out: list[Item] = []
        at: dict[str, int] = {}
        for it in self.flat(d):
            if not isinstance(it.key, Str):
                out.append(it)
            elif it.key.value in at:
                out[at[it.key.value]] = it
            else:
                at[it.key.value] = len(out)
                out.append(it)
        return out

    def flat(self, d: DictV, depth: int = 0) -> Iterator[Item]:
        """Every item written, spreads expanded (a key repeated: each time; the card's
        check of repeated ids reads this)."""
        for it in d.items:
            if it.spread:
                if depth < SPREAD_DEPTH and isinstance(inner := self.resolve(it.value), DictV):
                    yield from self.flat(inner, depth + 1)
            elif has_each(it.key):
                yield from self.comprehended(it)
            else:
                yield it

    def comprehended(self, it: Item) -> list[Item]:
        """A comprehension's item (`{r.id: r.reason for r in RULES}`), one a key its loop
        takes; itself, left unread, where the loop's keys are not all strings."""
        keys, values = self.expand(it.key), self.expand(it.value)
        if len(keys) != len(values) or not all(isinstance(k, Str) for k in keys):
            return [it]
        return [Item(k, v, k.loc) for k, v in zip(keys, values, strict=True)]

    def item(self, d: DictV, key: str) -> Item | None:
        """The item a subscript reads (a key written as a name: by its value, an enum member's)."""
        entries = self.entries(d)
        found = next((it for it in entries if isinstance(it.key, Str) and it.key.value == key), None)
        named = (it for it in entries if found is None and isinstance(it.key, (Ref, Attr)))
        return found or next((it for it in named if (k := self.resolve_str(it.key)) and k.value == key), None)

    def _filled(self, fmt: Fmt, depth: int) -> Value:
        """A template's text, its slots filled where fed a known string (strs.filled_in)."""
        base = self.resolve(fmt.base, depth + 1)
        if not isinstance(base, Str):
            return Dyn(fmt.loc)
        fed = fed_by(fmt, lambda v: self.resolve(v, depth + 1), self.item)
        return moved(filled_in(base, fmt.style, fed), base.loc)

    def refs(self, value: Value) -> tuple[Ref, ...]:
        if isinstance(value, Ref):
            return (value,)
        if isinstance(value, (Dyn, Const)):
            return value.refs
        if isinstance(value, Join):
            return tuple(r for p in value.parts for r in self.refs(p))
        if isinstance(value, Seq):
            return tuple(r for p in value.items for r in self.refs(p))
        if isinstance(value, (Sub, Op, Attr)):
            return self.refs(value.base)
        if isinstance(value, Each):
            return self.refs(value.over)
        if isinstance(value, Fmt):
            return self.refs(value.base) + tuple(r for p in value.args for r in self.refs(p))
        if isinstance(value, CallV):
            args = (*value.args, *(v for _, v in value.kwargs))
            return self.refs(value.func) + tuple(r for p in args for r in self.refs(p))
        if isinstance(value, Fn):
            return tuple(r for p in value.returns for r in self.refs(p))
        return ()

    def reaches(self, value: Value, target_ids: AbstractSet[str], depth: int = 0) -> bool:
        """Does `value` read one of the dicts or tables `target_ids` (directly or through
        constants)?"""
        if depth > 6:
            return False
        for ref in self.refs(value):
            # `RULES.items()` reads RULES: try the dotted name, then its prefixes.
            parts = ref.name.split(".")
            found = None
            for i in range(len(parts), 0, -1):
                found = self.lookup(ref.module, ".".join(parts[:i]))
                if found is not None:
                    break
            if found is None:
                continue
            resolved = self.resolve(found)
            if isinstance(resolved, (DictV, Seq)) and resolved.loc.ident in target_ids:
                return True
            if self.reaches(found, target_ids, depth + 1):
                return True
        return False


def has_each(value: Value) -> bool:
    return isinstance(value, Each) or (isinstance(value, (Attr, Sub)) and has_each(value.base))


def _ordering(call: CallV) -> bool:
    """`sorted(X)`, `frozenset(X)` and the like: X's elements, in some order."""
    func = call.func
    return (
        isinstance(func, Ref)
        and func.name in vocab.ORDER_WRAPPERS
        and len(call.args) == 1
        and not call.kwargs
    )
