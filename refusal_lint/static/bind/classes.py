"""A repo callee's arguments, and a repo class as a callee (DESIGN §2 "Which argument is
the id"): the argument a call binds to a parameter (or field); a class without an
`__init__` of its own is built by its first repo base's constructor, so its parameters are
that base's (`class CutRefusal(Refusal): pass`), its own fields after them (a dataclass's
follow its bases', a field redefined keeps its place)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping

from refusal_lint.core.facts import Attr, CallV, Fn, Param, Ref, Value
from refusal_lint.core.kinds import FnKind

RULE_PARAMS = ("rule", "rule_id")  # the parameter (or field) a repo guard takes its id by


def inherited(fn: Fn, resolve: Callable[[Value], Value | None]) -> Fn:
    """`fn` with its constructor's parameters; `resolve` reads a base (inherited itself)."""
    for base in fn.bases:
        found = resolve(base)
        if isinstance(found, Fn) and found.kind == FnKind.CLASS:
            params = found.params + tuple(p for p in fn.params if p not in found.params)
            kwonly = found.kwonly + tuple(k for k in fn.kwonly if k not in found.kwonly)
            defaults = tuple({**dict(found.defaults), **dict(fn.defaults)}.items())  # its own win
            return dataclasses.replace(fn, params=params, kwonly=kwonly, bases=(), defaults=defaults)
    return dataclasses.replace(fn, bases=())


def subclass_map(
    modules: Iterable[Mapping[str, Value]], resolve: Callable[[Value], Value | None]
) -> dict[tuple[str, str], list[Fn]]:
    """Each repo class's subclasses, transitively (those whose bases binding reads), among
    the definitions of `modules`; `resolve` reads a base."""
    direct: dict[tuple[str, str], list[Fn]] = {}
    for defs in modules:
        for cls in (v for v in defs.values() if isinstance(v, Fn) and v.kind == FnKind.CLASS):
            for b in cls.bases:
                if isinstance(base := resolve(b), Fn) and base.kind == FnKind.CLASS:
                    direct.setdefault((base.path, base.qualname), []).append(cls)
    out: dict[tuple[str, str], list[Fn]] = {}
    for key in direct:
        todo, seen = list(direct[key]), set()
        while todo:
            cls = todo.pop()
            if (cls.path, cls.qualname) not in seen:
                seen.add((cls.path, cls.qualname))
                out.setdefault(key, []).append(cls)
                todo.extend(direct.get((cls.path, cls.qualname), []))
    return out


def bind_arg(fn: Fn, call: CallV, param: str) -> Value | None:
    """The argument a call passes to parameter (or field) `param` of a repo callee."""
    for name, value in call.kwargs:
        if name == param:
            return value
    if param not in fn.params:
        return None
    index = arg_index(fn, call, fn.params.index(param))
    return call.args[index] if 0 <= index < len(call.args) else None


def arg_index(fn: Fn, call: CallV, position: int) -> int:
    """Where `fn`'s positional parameter at `position` stands among a call's arguments:
    `obj.method(x)` binds self implicitly; a class's parameters are listed without it."""
    return position - (1 if fn.kind == FnKind.METHOD and method_name(call.func) is not None else 0)


def method_name(func: Value) -> str | None:
    """`absorb` for a call of `x.absorb` (a name on a receiver), None for a plain `f(...)`."""
    if isinstance(func, Attr):
        return func.name
    if isinstance(func, (Ref, Param)) and "." in func.name:
        return func.name.rsplit(".", 1)[-1]
    return None


def bound_value(fn: Fn, call: CallV, param: str) -> Value | None:
    """The id `param` holds in a call of `fn`: the argument passed, else its default (a call
    with `*args` or `**kw` is no CallV; a reason not passed is none). For `*args` passed on
    (`refuse(*args, **kwargs)`), the first argument past the named ones, else the call's
    `rule=`; for `**kwargs`, its `rule=`."""
    if param.startswith("*"):
        index = arg_index(fn, call, len(fn.params))
        if not param.startswith("**") and 0 <= index < len(call.args):
            return call.args[index]
        return next((v for k, v in call.kwargs if k in RULE_PARAMS), None)
    found = bind_arg(fn, call, param)
    return found if found is not None else next((v for name, v in fn.defaults if name == param), None)
