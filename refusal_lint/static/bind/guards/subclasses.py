"""Guards by inheritance (DESIGN §2 "Guards"): a repo class named as no guard is, with no
`__init__` of its own, whose base is a guard (`class OutOfScope(Refusal): ...`) or such a
class in turn (`class PiiLeak(PolicyViolation)`), is built by that guard's constructor; so
each call of it is a guard, as a call of the base would be, whatever the class is called.
So is such a class with an `__init__` of its own that keeps its id in a `rule` attribute
(`self.rule = "seg-mix"`, ids.class_rule): its constructor takes no id, it holds one.
Its id binds as a repo callee's does (bind/guards/ids.py): by the `rule`/`rule_id` parameter
it inherits from a repo base; from a library's base, the `rule=` argument, else the first
positional one (as `guard-callables` reads a call)."""

from __future__ import annotations

import dataclasses

from refusal_lint.core.facts import CallV, FileFacts, Fn, Guard, Ref, Seq, Value
from refusal_lint.core.kinds import FnKind, GuardKind
from refusal_lint.static.bind.classes import RULE_PARAMS
from refusal_lint.static.bind.guards.ids import GuardIds
from refusal_lint.static.bind.resolve import Resolver
from refusal_lint.static.extract.guardclass import guard_subclass
from refusal_lint.static.extract.vocab import CLASS_BASES, is_guard_name

_DEPTH = 16  # bases followed up one class's hierarchy


def with_subclass_guards(
    res: Resolver, facts: dict[str, FileFacts]
) -> tuple[GuardIds, dict[str, FileFacts], frozenset[str]]:
    """The tree's guard ids; `facts`, each construction of a guard subclass added to its
    file's guards (where no guard stands at that call already: a `guard-callables` name is
    one); and those classes' names, whose subclasses binding reads (ondemand.definers).
    Following a class to its constructions names it among the helpers followed
    (`ids.followed`): the files not read yet that call it are read (ondemand.callers), in
    both modes alike."""
    ids = GuardIds(res, facts.values())
    added: dict[str, list[Guard]] = {}
    names: set[str] = set()
    for module in sorted(res.defs):
        for fn in res.defs[module].values():
            if not isinstance(fn, Fn):
                continue
            if is_guard_name(fn.qualname.rpartition(".")[2]) and (ids.class_rule(fn) or ids.default_id(fn)):
                ids.constructions(fn)  # guards by name firing an id of their class: each call site read
            if not _subclass(res, ids, fn, 0):
                continue
            names.add(fn.qualname.rpartition(".")[2])
            library = not any(isinstance(res.resolve(b), Fn) for b in fn.bases)
            for site in ids.constructions(fn):
                added.setdefault(site.loc.path, []).append(_guard(site, library))
    out = dict(facts)
    for path, guards in added.items():
        f = facts.get(path)
        taken = {g.loc for g in f.guards} if f is not None else set()
        new = tuple(g for g in guards if g.loc not in taken)
        if f is not None and new:
            out[path] = dataclasses.replace(f, guards=f.guards + new)
    return ids, out, frozenset(names)


def _subclass(res: Resolver, ids: GuardIds, fn: Fn, depth: int) -> bool:
    """Is `fn` a class built by a guard's constructor, through a base named as a guard or
    one that is such a class itself (none of them with an `__init__` of its own, unless it
    holds its id instead of taking one)?"""
    if fn.kind != FnKind.CLASS or depth > _DEPTH:
        return False
    bases = fn.bases  # kept where the class has no `__init__` of its own
    if not bases and ids.id_param(fn) is None and ids.class_rule(fn) is not None:
        written = res.defs.get(fn.path, {}).get(f"{fn.qualname}.{CLASS_BASES}")
        bases = written.items if isinstance(written, Seq) else ()
    name = fn.qualname.rpartition(".")[2]
    if not bases:
        return False
    if guard_subclass(name, [_name(b) for b in bases]):
        return True
    if is_guard_name(name):
        return False  # its calls are guards by name already
    for base in bases:
        found = res.resolve(base)  # the class with its inherited constructor: its own is kept
        own = res.defs.get(found.path, {}).get(found.qualname) if isinstance(found, Fn) else None
        if isinstance(own, Fn) and _subclass(res, ids, own, depth + 1):
            return True
    return False


def _name(base: Value) -> str:
    """The name a base is written as (`Refusal`, `errors.Refusal`)."""
    return base.name if isinstance(base, Ref) else ""


def _guard(site: CallV, library: bool) -> Guard:
    kwargs = dict(site.kwargs)
    rule = next((kwargs[k] for k in RULE_PARAMS if k in kwargs), site.args[0] if site.args else None)
    return Guard(site.loc, GuardKind.CALL, rule, kwargs.get("reason"), call=site, configured=library)
