"""The call sites binding follows (DESIGN §2 "Which argument is the id"): a helper's id is
what its call sites pass, a class's field what the calls building it pass; a call is known
by its callee's place, under any name bound to it (an alias, an import under another name)."""

from __future__ import annotations

from collections.abc import Iterable

from refusal_lint.core.facts import CallV, FileFacts, Fn, Guard, Param, Ref, Value
from refusal_lint.core.kinds import FnKind
from refusal_lint.core.model import Loc
from refusal_lint.static.bind.classes import method_name
from refusal_lint.static.bind.resolve import Resolver


class CallSites:
    """The tree's calls and guard calls, indexed by the name a call spells and by the
    parameter an argument is; the calls of a repo function by any name bound to it."""

    def __init__(self, res: Resolver, facts: Iterable[FileFacts]) -> None:
        self.res = res
        # Call sites by the callee's last name: resolved only when a helper is followed.
        self.by_name: dict[str, list[CallV]] = {}
        # Guards and call sites whose argument is a parameter of function (path, qualname).
        self.inside: dict[tuple[str, str], list[Guard | CallV]] = {}
        self._calls_at: dict[Loc, Guard] = {}  # guard calls by place: a partial's (guardclass.partial_call)
        for f in facts:
            for call in f.calls:
                self._index(call)
            for g in f.guards:
                if g.call is not None:
                    self._index(g.call)
                    self._calls_at[g.loc] = g
                if isinstance(g.rule, Param) and g.rule.func:
                    self.inside.setdefault((g.loc.path, g.rule.func), []).append(g)
        # Helpers followed to their call sites: a call site may stand in a file not read yet.
        self.followed: set[str] = set()
        self._alias_names: dict[tuple[str, str], list[str]] | None = None
        # The repo's methods by name: what `x.name(...)` binds to when x's class is not known;
        # the names asked, for the files not read yet that may define one (ondemand.definers).
        self.methods: dict[str, list[Fn]] = {}
        self.methods_asked: set[str] = set()
        for defs in res.defs.values():
            for v in defs.values():
                if isinstance(v, Fn) and v.kind == FnKind.METHOD:
                    self.methods.setdefault(v.qualname.rsplit(".", 1)[-1], []).append(v)

    def _index(self, call: CallV) -> None:
        # The name the call spells: a function-level import's key (`emit@1:emitter:emit`,
        # extract/python/state.py) spells it before its `@`.
        name = getattr(call.func, "name", "").rsplit(".", 1)[-1].split("@", 1)[0]
        if name:
            self.by_name.setdefault(name, []).append(call)
        for v in (*call.args, *(v for _, v in call.kwargs)):
            if isinstance(v, Param) and v.func:
                self.inside.setdefault((v.loc.path, v.func), []).append(call)

    def callees(self, call: CallV) -> list[Fn]:
        """The repo function, method or class a call reaches; for a method call on a
        receiver of unknown class, the repo's methods of that name (DESIGN §2)."""
        fn = self.res.callee(call)
        if fn is not None:
            return [fn]
        name = method_name(call.func)
        if not name:
            return []
        self.methods_asked.add(name)
        return list(self.methods.get(name, ()))

    def constructions(self, cls: Fn) -> list[CallV]:  # the calls building a repo class
        return self._calls(cls)

    def sites(self, fn: Fn) -> list[CallV]:
        constructor = fn.qualname.rpartition(".")[2] == "__init__"
        return [] if fn.kind == FnKind.CLASS or constructor else self._calls(fn)

    def _calls(self, fn: Fn) -> list[CallV]:
        """The calls of `fn` by any name bound to it; known by its place (a class callee is
        the class with the constructor it inherits, resolve.py)."""
        key = (fn.path, fn.qualname)
        names = [fn.qualname.rsplit(".", 1)[-1], *self._aliases().get(key, ())]
        self.followed.update(names)
        return [
            c
            for n in names
            for c in self.by_name.get(n, [])
            if key in [(f.path, f.qualname) for f in self.callees(c)]
        ]

    def _aliases(self) -> dict[tuple[str, str], list[str]]:
        """The other names of each repo function, module-level (`deny = refuse`) or imported
        under another (`from .policy import deny as block`): its call sites are spelt by
        them too."""
        if self._alias_names is None:
            self._alias_names = {}
            for defs in self.res.defs.values():
                for name, value in defs.items():
                    fn = self.res.resolve(value) if isinstance(value, Ref) else None
                    self._alias(fn, name.rsplit(".", 1)[-1])
            for module, imports in self.res.imports.items():
                for local, ref in imports.items():
                    short = local.split("@", 1)[0]  # a function-level import's key spells it first
                    if ref.name is not None and short != ref.name:
                        self._alias(self.res.lookup(module, local), short)
        return self._alias_names

    def _alias(self, fn: Value | None, short: str) -> None:
        if isinstance(fn, Fn) and short != fn.qualname.rsplit(".", 1)[-1]:
            assert self._alias_names is not None
            names = self._alias_names.setdefault((fn.path, fn.qualname), [])
            if short not in names:
                names.append(short)
