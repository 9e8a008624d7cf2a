"""Which rule ids a guard fires (DESIGN §2, "Which argument is the id", "How ids resolve").

A guard's id is the `rule=`/`rule_id=` argument, or for a callee defined in the repo the
argument bound to its `rule`/`rule_id` parameter (or to a parameter that reaches another
guard's id). An id that is a parameter of a repo function is followed to that function's
call sites, transitively; a loop variable over a literal table fires each of its values.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass

from refusal_lint.core.facts import (
    Attr,
    CallV,
    Const,
    DictV,
    Dyn,
    FileFacts,
    Fn,
    Guard,
    Param,
    Ref,
    Seq,
    Str,
    Sub,
    Value,
)
from refusal_lint.core.kinds import FnKind, GuardKind, GuardStatus, ValueKind
from refusal_lint.core.model import Loc
from refusal_lint.static.bind.classes import RULE_PARAMS, bind_arg, bound_value, subclass_map
from refusal_lint.static.bind.guards.sites import CallSites
from refusal_lint.static.bind.resolve import Resolver
from refusal_lint.static.extract.guardclass import PARTIAL
from refusal_lint.static.extract.vocab import CLASS_BASES, is_exception_name, is_guard_name


def _last(func: Value) -> str:
    """The last name a callee is called by (`partial` of `functools.partial`)."""
    if isinstance(func, Attr):
        return func.name
    return func.name.rsplit(".", 1)[-1] if isinstance(func, Ref) else ""


MAX_HOPS = 12  # helper -> helper -> ... call-site chains followed


@dataclass(frozen=True)
class Fired:
    """One id a guard fires, where it is fired (the call site passing it, for a helper)."""

    status: GuardStatus
    loc: Loc
    rule: Str | None = None
    site: CallV | None = None  # the helper call passing the id, where `loc` is that call's


class GuardIds(CallSites):
    """The rule ids each guard fires, over the tree's call sites (sites.py)."""

    def __init__(self, res: Resolver, facts: Iterable[FileFacts]) -> None:
        super().__init__(res, facts)
        self._asking: set[Loc] = set()
        self._reach: dict[tuple[str, str], frozenset[str]] = {}
        self._subclasses: dict[tuple[str, str], list[Fn]] | None = None
        self.overridden: set[str] = set()  # classes whose attribute a guard reads (`_overrides`)
        self.class_attrs: set[Ref] = set()  # the `rule` class attributes guards fire (class_rule)

    # ---- the id argument -----------------------------------------------------------------

    def id_value(self, g: Guard) -> tuple[bool, Value | None]:
        """(is a guard, its id value). A repo callee binds the id by parameter name."""
        if g.kind != GuardKind.CALL or g.call is None or g.receiver:
            return True, g.rule
        call = self._unpartial(g.call)
        if call is None:
            return False, None  # a partial that fires the id where it binds it
        fns = self.callees(call)
        if not fns and call is not g.call:
            # `partial(refuse, "seg-mix")` of a library's guard: its `rule=`, else its first argument.
            first = next((v for k, v in call.kwargs if k in RULE_PARAMS), call.args[0] if call.args else None)
            if first is not None:
                return True, first
        if not fns:
            return g.rule is not None, g.rule  # a library's callee: the first positional argument
        for fn in fns:
            param = self.id_param(fn)
            if param is not None:
                head, _, rest = param.partition(".")
                value = bound_value(fn, call, head)
                absent = value is None or (isinstance(value, Const) and value.kind == ValueKind.NULL)
                if absent and not rest and (attr := self.class_rule(fn)) is not None:
                    # `raise RawMeat()`, its `rule=None` the class's `rule` (DRF's `default_code`)
                    return True, attr
                if value is None:
                    return False, None
                for name in rest.split(".") if rest else ():
                    value = Attr(value, name, value.loc)  # `exc.rule` of `refusal_parts(exc)`
                return True, value
        if not any(k in RULE_PARAMS for k, _ in call.kwargs):  # a passed `rule=` is the call's own
            for fn in fns:
                if (attr := self.class_rule(fn)) is not None:
                    return True, attr  # `raise RawMeat()`, `class RawMeat(RecipeRefusal): rule = "raw-meat"`
        if g.configured:  # the config names it a guard: its first argument is the id, as a library's
            return g.rule is not None, g.rule
        return False, None  # `def refusal(model, token)`: no rule parameter, no guard

    def class_rule(self, fn: Fn) -> Ref | None:
        """The `rule`/`rule_id` class attribute of a repo exception class built with no rule
        parameter (a hierarchy keeping its ids on its classes, as DRF's `default_code`): its
        own, else its nearest repo base's, where it is a string. Each construction fires it,
        whatever message the call passes. Not a model's column, an enum's member, a metric's
        setting: classes that are no exceptions."""
        found: Ref | None = None
        exception = False
        todo, seen = [fn], 0
        while todo and seen <= MAX_HOPS:
            cls, seen = todo.pop(0), seen + 1
            own = self.res.defs.get(cls.path, {}).get(cls.qualname)  # the callee carries its ctor's bases
            if not (isinstance(own, Fn) and own.kind == FnKind.CLASS):
                continue
            defs = self.res.defs[own.path]
            named = next((f"{own.qualname}.{n}" for n in RULE_PARAMS if f"{own.qualname}.{n}" in defs), None)
            if found is None and named is not None:
                found = Ref(own.path, named, own.loc)
            written = defs.get(f"{own.qualname}.{CLASS_BASES}")  # kept with an `__init__` too
            for base in written.items if isinstance(written, Seq) else ():
                exception = exception or (
                    isinstance(base, Ref) and is_exception_name(base.name.rpartition(".")[2])
                )
                if isinstance(b := self.res.resolve(base), Fn):
                    todo.append(b)
        if found is None or not exception or not isinstance(self.res.resolve(found), Str):
            return None
        self.class_attrs.add(found)
        return found

    def default_id(self, fn: Fn) -> bool:
        """Does a call passing no id fire one: its id parameter's (or field's) default is a
        string (`rule: Literal["seg-mix"] = "seg-mix"`, a payload class a rule)?"""
        value = next((v for name, v in fn.defaults if name in RULE_PARAMS), None)
        return value is not None and isinstance(self.res.resolve(value), Str)

    def _unpartial(self, call: CallV) -> CallV | None:
        """`refuse_balance(detail=...)` with `refuse_balance = partial(refuse, "x-y")`: the
        call of `refuse` its arguments make, the partial's first; None where the partial is
        itself a guard binding the id (guardclass.partial_call), which fires it once, there."""
        made = self.res.resolve(call.func) if isinstance(call.func, Ref) else None
        if not (isinstance(made, CallV) and made.args and _last(made.func) == PARTIAL):
            return call
        written = self._calls_at.get(made.loc)
        if written is not None and made.loc not in self._asking:
            self._asking.add(made.loc)  # `p = partial(p, ...)`: asked once
            fires = self.id_value(written)[1] is not None
            self._asking.discard(made.loc)
            if fires:
                return None
        return CallV(made.args[0], made.args[1:] + call.args, made.kwargs + call.kwargs, call.loc)

    def id_param(self, fn: Fn) -> str | None:
        for name in RULE_PARAMS:
            if name in fn.params or name in fn.kwonly:
                return name
        reach = self.reaching(fn)
        return min(reach, key=lambda p: _position(fn, p)) if reach else None

    def reaching(self, fn: Fn, depth: int = 0) -> frozenset[str]:
        """Parameters of `fn` that end up as a guard's id, inside it or through helpers it
        calls, with the attributes read of them (`exc.rule`)."""
        key = (fn.path, fn.qualname)
        if key in self._reach:
            return self._reach[key]
        self._reach[key] = frozenset()  # a recursive helper reaches nothing through itself
        out: set[str] = set()
        for user in self.inside.get(key, []):
            if isinstance(user, Guard):
                ok, value = self.id_value(user) if depth < MAX_HOPS else (False, None)
                if ok and isinstance(value, Param) and value.func == fn.qualname:
                    out.add(value.name)
                continue
            if depth >= MAX_HOPS:
                continue
            for callee in self.callees(user):
                params = set(self.reaching(callee, depth + 1))
                params |= {p for p in RULE_PARAMS if p in callee.params or p in callee.kwonly}
                for p in params:
                    head, dot, rest = p.partition(".")
                    arg = bind_arg(callee, user, head)
                    if isinstance(arg, Param) and arg.func == fn.qualname:
                        out.add(arg.name + dot + rest)
        result = frozenset(out)
        self._reach[key] = result
        return result

    # ---- the ids fired -------------------------------------------------------------------

    def fired(self, value: Value, loc: Loc, hops: int = 0) -> list[Fired] | None:
        """What firing `value` at `loc` means; None when it is no rule id at all (a dict, a number)."""
        if isinstance(value, Ref) and self._own_field(value):
            return self._field_fired(value, loc, hops)
        if self._built_guard(value):
            return [Fired(GuardStatus.PASSTHROUGH, loc)]
        out: list[Fired] = []
        not_ids = 0
        overrides = self._overrides(value)
        # A base declaring the attribute with no value (`rule: ClassVar[str]`) holds none of its own.
        own = (
            []
            if overrides and isinstance(value, Ref) and self.res.lookup(value.module, value.name) is None
            else [value]
        )
        leaves = [leaf for v in (*own, *overrides) for leaf in self._leaves(v)]
        for leaf in leaves:
            if isinstance(leaf, Str) and not leaf.value:
                not_ids += 1  # an empty default is no rule id
            elif isinstance(leaf, Str) and not _spaced(leaf.value):
                out.append(Fired(GuardStatus.ID, loc, leaf))
            elif isinstance(leaf, Str):
                not_ids += 1  # prose (`get_refusal_message("I cannot help")`) is never a rule id
            elif isinstance(leaf, Param):
                out.extend(self._through_helper(leaf, loc, hops))
            elif isinstance(leaf, Dyn) and len(leaf.refs) == 1 and self._own_field(leaf.refs[0]):
                out.append(Fired(GuardStatus.PASSTHROUGH, loc))
            elif isinstance(leaf, (Const, DictV, Fn, Seq)):
                not_ids += 1
            else:
                out.append(Fired(GuardStatus.UNRESOLVED, loc))
        if leaves and not_ids == len(leaves):
            return None
        return out

    def _leaves(self, value: Value) -> list[Value]:
        """Every value `value` can take (Resolver.expand); for a literal table's entry under a
        key known at run time only (`LABEL_TO_RULE[label]`), any of its values, as a loop
        over them takes each: only where each is a word (an id; `RULES[rule]` is a reason)."""
        if isinstance(value, Sub) and not isinstance(self.res.resolve(value.key), Str):
            table = self.res.resolve(value.base)
            if isinstance(table, DictV):
                items = self.res.entries(table)
                words: list[Value] = [
                    v
                    for it in items
                    if isinstance(v := self.res.resolve(it.value), Str) and v.value and not _spaced(v.value)
                ]
                if items and len(words) == len(items):
                    return words
        return self.res.expand(value)

    def _overrides(self, value: Value) -> list[Value]:
        """A class attribute a guard reads (`self.rule` in a base's method, set there or not):
        what each repo subclass setting it holds too (a tool class a rule, CrewAI's `BaseTool`)."""
        if isinstance(value, Ref) and "." in value.name:
            module, (owner, _, attr) = value.module, value.name.rpartition(".")
        elif isinstance(value, Param) and re.fullmatch(r"(?:self|cls)\.\w+", value.name):
            module, owner, attr = value.loc.path, value.func.rpartition(".")[0], value.name.partition(".")[2]
        else:
            return []
        base = self.res.lookup(module, owner) if owner else None
        if not (isinstance(base, Fn) and base.kind == FnKind.CLASS):
            return []
        subs = self._subs(base)
        return [v for sub in subs if (v := self.res.defs.get(sub.path, {}).get(f"{sub.qualname}.{attr}"))]

    def _subs(self, base: Fn) -> list[Fn]:
        """The repo subclasses of `base`, transitively; the files that may hold more are read
        (ondemand.definers)."""
        if self._subclasses is None:
            self._subclasses = subclass_map(self.res.defs.values(), self.res.resolve)
        subs = self._subclasses.get((base.path, base.qualname), [])
        self.overridden.update(c.qualname.rpartition(".")[2] for c in (base, *subs))
        return subs

    def _own_field(self, ref: Ref) -> bool:
        """`self.rule` in a method of a repo class with a `rule` field or parameter: the
        object's own id, which the calls constructing it fire (`Refusal("seg-mix", ...)`
        is the guard), as an exception's `exc.rule` is pass-through."""
        owner, _, name = ref.name.rpartition(".")
        if not owner or name not in RULE_PARAMS:
            return False
        cls = self.res.resolve(self.res.lookup(ref.module, owner))  # its fields after its bases'
        return isinstance(cls, Fn) and cls.kind == FnKind.CLASS and (name in cls.params or name in cls.kwonly)

    def _field_fired(self, ref: Ref, loc: Loc, hops: int) -> list[Fired]:
        """`self.rule` of a repo class with a `rule` field: what the calls building it pass, if no
        guard calls; its default (a CrewAI tool's) where one passes none; else subclasses' too."""
        owner, _, name = ref.name.rpartition(".")
        cls = self.res.resolve(self.res.lookup(ref.module, owner))  # its fields after its bases'
        default = d if isinstance(d := self.res.resolve(ref), Str) and d.value else None
        out: list[Fired] = []  # a table of `KeywordGuard(ids.DOSAGE, ...)` dataclasses fires those
        built = not is_guard_name(owner.rpartition(".")[2])  # else each construction is a guard call
        if isinstance(cls, Fn) and hops < MAX_HOPS and (default or built):
            # With no default, a plain subclass's constructions too (`Strict("x")`, Strict(G)).
            kinds = (
                [cls, *(c for c in self._subs(cls) if not is_guard_name(c.qualname))]
                if not default
                else [cls]
            )
            args = [
                (s, bind_arg(r, s, name))
                for k in kinds
                if isinstance(r := self.res.resolve(k), Fn)
                for s in self.constructions(k)
            ]
            out = [_at(f, s) for s, a in args if a is not None for f in self.fired(a, s.loc, hops + 1) or ()]
            if default is not None:
                omitted = not args or any(a is None for _, a in args)  # or a framework builds it
                return [*out, Fired(GuardStatus.ID, loc, default)] if omitted else out
        subs = [f for v in self._overrides(ref) for f in self.fired(v, loc, MAX_HOPS) or ()]
        real = [f for f in (*out, *subs) if f.status != GuardStatus.PASSTHROUGH]
        return real or [Fired(GuardStatus.PASSTHROUGH, loc)]

    def _built_guard(self, value: Value) -> bool:
        """`exc.rule` where `exc` is a refusal built by a guard call (`refusal_parts(Refusal(
        "seg-mix"))`, or through a name bound to it): that call fires the id, where its
        literal is, so this use passes it through, as `except ... as exc` does."""
        if not (isinstance(value, Attr) and value.name in RULE_PARAMS):
            return False
        built = self.res.resolve(value.base)
        if not isinstance(built, CallV):
            return False
        cls = self.res.callee(built)
        return (
            isinstance(cls, Fn)
            and cls.kind == FnKind.CLASS
            and is_guard_name(cls.qualname.rsplit(".", 1)[-1])
            and bind_arg(cls, built, value.name) is not None
        )

    def _through_helper(self, param: Param, loc: Loc, hops: int) -> list[Fired]:
        head, _, rest = param.name.partition(".")
        fn: Value | None
        if head in ("self", "cls"):
            # `self.rule` of a class built with the id (`@refuses("x-y", when=...)`, whose
            # `__call__` fires it): its construction sites fire what they pass.
            cls = self.res.lookup(param.loc.path, param.func.rpartition(".")[0]) if param.func else None
            field, _, rest = rest.partition(".")
            if isinstance(cls, Fn) and cls.kind == FnKind.CLASS and field in (*cls.params, *cls.kwonly):
                fn, head = cls, field
            else:
                fn = None
        else:
            fn = self.res.lookup(param.loc.path, param.func) if param.func else None
            if isinstance(fn, Fn) and fn.qualname.endswith(".__init__"):
                # A constructor's parameter: the calls building its class pass it.
                cls = self.res.lookup(param.loc.path, fn.qualname.rpartition(".")[0])
                fn = cls if isinstance(cls, Fn) and cls.kind == FnKind.CLASS else fn
        if not isinstance(fn, Fn) or hops >= MAX_HOPS:
            return [Fired(GuardStatus.PASSTHROUGH, loc)]  # `except ... as exc`, a lambda's parameter
        out: list[Fired] = []
        for site in self.sites(fn) if fn.kind != FnKind.CLASS else self.constructions(fn):
            arg = bound_value(fn, site, head)
            if arg is None:
                continue
            for name in rest.split(".") if rest else ():
                arg = Attr(arg, name, arg.loc)
            out.extend(_at(f, site) for f in self.fired(arg, site.loc, hops + 1) or ())
        # A helper no call site feeds is pass-through: it forwards refusals, fires none itself.
        real = [f for f in out if f.status != GuardStatus.PASSTHROUGH]
        return real or [Fired(GuardStatus.PASSTHROUGH, loc)]


def _at(f: Fired, site: CallV) -> Fired:  # fired at a helper's or a class's call site: with that call
    return dataclasses.replace(f, site=site) if f.loc == site.loc and f.site is None else f


def _position(fn: Fn, param: str) -> tuple[int, str]:  # ties by name: a set's order is the hash's
    return (fn.params.index(head) if (head := param.partition(".")[0]) in fn.params else 99, param)


def _spaced(text: str) -> bool:
    return any(c.isspace() for c in text)
