"""A repo class as a callee (DESIGN §2 "Which argument is the id"): one without an
`__init__` of its own is built by its first repo base's constructor, so its parameters are
that base's (`class CutRefusal(Refusal): pass`), its own fields after them (a dataclass's
follow its bases', a field redefined keeps its place)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping

from refusal_lint.core.facts import Fn, Value
from refusal_lint.core.kinds import FnKind


def inherited(fn: Fn, resolve: Callable[[Value], Value | None]) -> Fn:
    """`fn` with its constructor's parameters; `resolve` reads a base (inherited itself)."""
    for base in fn.bases:
        found = resolve(base)
        if isinstance(found, Fn) and found.kind == FnKind.CLASS:
            params = found.params + tuple(p for p in fn.params if p not in found.params)
            kwonly = found.kwonly + tuple(k for k in fn.kwonly if k not in found.kwonly)
            return dataclasses.replace(fn, params=params, kwonly=kwonly, bases=())
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
