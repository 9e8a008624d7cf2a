"""A repo class as a callee (DESIGN §2 "Which argument is the id"): one without an
`__init__` of its own is built by its first repo base's constructor, so its parameters are
that base's (`class CutRefusal(Refusal): pass`), its own fields after them (a dataclass's
follow its bases', a field redefined keeps its place)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

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
