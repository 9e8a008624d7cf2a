"""Extension helpers (DESIGN §2 "Card"): a function or class building the refusals
extension from what its callers pass (`refusals_extension(RULES)`, `extension(URI, RULES)`,
`RefusalsExtension(RULES)`), through helpers passing theirs on; each call site, or each
item of a table it is called over, a declaration of what it passes."""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Iterator

from refusal_lint.core.facts import (
    OR,
    Attr,
    CallV,
    DictV,
    Dyn,
    Each,
    Fn,
    Op,
    Param,
    PyExt,
    Ref,
    Seq,
    Sub,
    Value,
)
from refusal_lint.core.kinds import FnKind
from refusal_lint.core.model import Loc
from refusal_lint.static.bind.classes import bound_value
from refusal_lint.static.bind.resolve import Resolver


def declared(res: Resolver, ext: PyExt) -> tuple[list[str], list[tuple[PyExt, Value | None]]]:
    """The declarations an extension entry makes, each with the params a helper's sites
    pass it (None: its own); and the helpers' names, whose call sites binding reads for
    them (`Bound.constructed`), in either mode."""
    names: list[str] = []
    by_site = uri_helper(res, ext)
    names += [_short(fn) for fn in by_site[0]] if by_site else []
    out: list[tuple[PyExt, Value | None]] = []
    for one in (it for site in (by_site[1] if by_site else [ext]) for it in _per_item(res, site)):
        if by_site and _read_from_input(one.params):
            continue  # a peer's card read at run time (`ext(URI, raw["params"])`): none of ours
        helper = helper_params(res, one)
        names += helper[0] if helper else []
        out += helper[1] if helper else [(one, None)]
    return names, out


Sites = dict[str, list[tuple[Loc, Value]]]  # what a helper's sites pass as its params, by file


def _ctor_sites(res: Resolver, ext: PyExt) -> Sites | None:
    """For `params=self.rules` inside a helper class: what each call constructing it passes
    (`RefusalsExtension(RULES)`), by file."""
    if ext.owner is None or ext.init_arg is None:
        return None
    index, name = ext.init_arg
    out: Sites = {}
    for facts in res.facts.values():
        for call in facts.ctor_calls:
            if call.callee != ext.owner:
                continue
            arg = dict(call.kwargs).get(name)
            if arg is None and 0 <= index < len(call.args):
                arg = call.args[index]
            if arg is not None:
                out.setdefault(call.loc.path, []).append((call.loc, arg))
    return out


def _split(res: Resolver, ext: PyExt, by_file: Sites) -> list[tuple[PyExt, Value | None]]:
    """The declarations a helper's sites make (what each passes as the params, by file): one,
    where they pass one map; else one a file, at its first site, each of its own map (agents
    sharing the helper); in a file whose sites pass two (a public card and its extended
    card), one a site, which rule_sets joins as the file's cards are."""

    def agreed(args: list[Value]) -> Value | None:
        maps = {d.ident if isinstance(d := res.resolve(a), DictV) else "" for a in args}
        return args[0] if len(maps) == 1 and "" not in maps else None

    def at(site: Loc) -> PyExt:
        return dataclasses.replace(ext, loc=site, card=site.ident)

    every = [a for path in sorted(by_file) for _, a in sorted(by_file[path], key=_place)]
    if len(every) <= 1 or agreed(every) is not None:
        return [(ext, agreed(every) if every else None)]
    out: list[tuple[PyExt, Value | None]] = []
    for path in sorted(by_file):
        sites = sorted(by_file[path], key=_place)
        one = agreed([a for _, a in sites])
        out += (
            [(at(sites[0][0]), one)] if one is not None or len(sites) == 1 else [(at(s), a) for s, a in sites]
        )
    return out


def _place(site: tuple[Loc, Value]) -> tuple[int, int]:
    return site[0].line, site[0].col


def helper_params(res: Resolver, ext: PyExt) -> tuple[list[str], list[tuple[PyExt, Value | None]]] | None:
    """The declarations a helper's params make (`_split`): `params=self.rules` in a helper
    class (what its constructions pass), `params=rules` a parameter of a repo function (`def
    refusals_extension(rules): return AgentExtension(uri=URI, params=rules)`: what its
    call sites pass, or its default; through helpers passing theirs on); and the helpers'
    names, whose call sites are read for them (`Bound.constructed`), in either mode."""
    by_file = _ctor_sites(res, ext)
    if by_file is not None:
        return [ext.owner or ""], _split(res, ext, by_file) if by_file else []
    param, fallback = _either(ext.params)
    fn = _param_of(res, param)
    if fn is None or not isinstance(param, Param):
        return None
    names, by_file = [_short(fn)], Sites()
    for call in _calls_of(res, fn):
        if (arg := bound_value(fn, call, param.name)) is not None:
            for loc, passed in _passed_on(res, call.loc, arg, names, 0):
                by_file.setdefault(loc.path, []).append((loc, _or(passed, fallback)))
    default = next((v for p, v in fn.defaults if p == param.name), None)
    if not by_file and not isinstance(res.resolve(default and _or(default, fallback)), DictV):
        return names, [] if not _named(res, fn) else [(ext, None)]  # no code calls it: no card
    return names, _split(res, ext, by_file)


def _either(params: Value | None) -> tuple[Value | None, Value | None]:
    """`rules or DEFAULT_RULES`: the parameter, and the default taken where it is empty."""
    if isinstance(params, Op) and params.op == OR and isinstance(params.base, Seq):
        return params.base.items[0], params.base.items[1]
    return params, None


def _or(value: Value, fallback: Value | None) -> Value:
    return value if fallback is None else Op(OR, Seq((value, fallback), value.loc), value.loc)


def _passed_on(res: Resolver, loc: Loc, arg: Value, names: list[str], depth: int) -> list[tuple[Loc, Value]]:
    """A site's params, or where a helper passes on its own parameter (`make_card(name,
    rules)` calling `refusals_extension(rules)`), what that helper's sites pass in turn."""
    outer = _param_of(res, arg)
    if outer is None or not isinstance(arg, Param) or "." in arg.name or depth >= _HELPER_DEPTH:
        return [(loc, arg)]  # (`self.rules` is no parameter the method's callers pass)
    names.append(_short(outer))
    calls = _calls_of(res, outer)
    if not calls and _named(res, outer):
        return [(loc, arg)]  # called where binding cannot see (`partial(make_card, ...)`): unknown
    return [
        found
        for call in calls
        if (value := bound_value(outer, call, arg.name)) is not None
        for found in _passed_on(res, call.loc, value, names, depth + 1)
    ]


def _short(fn: Fn) -> str:
    return fn.qualname.rpartition(".")[2]


def uri_helper(res: Resolver, ext: PyExt, depth: int = 0) -> tuple[list[Fn], list[PyExt]] | None:
    """`uri=uri`, a parameter of a repo function too (`def extension(uri, params=None): return
    AgentExtension(uri=uri, params=params)`, one helper for each extension of a card): the
    functions, and each call site as a declaration of its own, of what it passes; a site
    in a helper calling it in turn (`return _entry(uri, params)`), by that one's sites."""
    fn = _param_of(res, ext.uri)
    if fn is None or not isinstance(ext.uri, Param) or depth > _HELPER_DEPTH:
        return None
    fns, out = [fn], []
    for site in _uri_sites(res, ext, fn):
        outer = uri_helper(res, site, depth + 1)
        fns.extend(outer[0] if outer else [])
        out.extend(outer[1] if outer else [site])
    return fns, out


_HELPER_DEPTH = 4  # helpers calling helpers, followed


def _uri_sites(res: Resolver, ext: PyExt, fn: Fn) -> list[PyExt]:
    assert isinstance(ext.uri, Param)
    func, uri_name = ext.uri.func, ext.uri.name

    def passed(call: CallV, value: Value | None, key: str) -> Value | None:
        if isinstance(value, Param) and value.func == func:
            return bound_value(fn, call, value.name) or value
        if value is None and key not in (*fn.params, *fn.kwonly):
            return dict(call.kwargs).get(key)  # passed on by the helper's `**kwargs`
        return value

    sites = sorted(_calls_of(res, fn), key=lambda c: (c.loc.path, c.loc.line, c.loc.col))
    return [
        dataclasses.replace(
            ext,
            loc=c.loc,
            card=c.loc.ident,
            uri=uri,
            params=passed(c, ext.params, "params"),
            required=passed(c, ext.required, "required"),
        )
        for c in sites
        if (uri := bound_value(fn, c, uri_name)) is not None
    ]


def _per_item(res: Resolver, ext: PyExt) -> list[PyExt]:
    """`[AgentExtension(uri=u, params=p) for u, p in EXTENSIONS.items()]`, or a helper called
    so: a declaration per item of the repo's table, its key the uri and its value the params."""
    uri, params = ext.uri, ext.params
    if not (isinstance(uri, Each) and uri.mode in ("items", "iter") and uri.index == 0):
        return [ext]
    table = res.resolve(uri.over)
    if isinstance(table, DictV) and uri.mode == "items" and not any(it.spread for it in table.items):
        pairs = [(it.key, it.value) for it in table.items]
    elif isinstance(table, Seq) and uri.mode == "iter" and all(_pair(el) for el in table.items):
        pairs = [(el.items[0], el.items[1]) for el in table.items if isinstance(el, Seq)]
    else:
        return [ext]
    paired = isinstance(params, Each) and (params.over, params.mode, params.index) == (uri.over, uri.mode, 1)
    return [dataclasses.replace(ext, uri=key, params=value if paired else params) for key, value in pairs]


def _pair(value: Value) -> bool:
    return isinstance(value, Seq) and len(value.items) == 2


def _read_from_input(value: Value | None) -> bool:
    """Is `value` read out of a function's input (`raw["params"]`, `card.params`), or made
    of nothing a module binds (`raw.get("params") or {}`, raw a loop's)?"""
    if isinstance(value, Dyn) and not value.refs:
        return True
    while isinstance(value, (Sub, Attr)):
        value = value.base
        if isinstance(value, Param):
            return True
    return False


def _param_of(res: Resolver, value: Value | None) -> Fn | None:
    """The repo function (not a class) whose parameter `value` is."""
    fn = res.lookup(value.loc.path, value.func) if isinstance(value, Param) and value.func else None
    return fn if isinstance(fn, Fn) and fn.kind != FnKind.CLASS else None


def _held(res: Resolver) -> list[Value]:
    """The values binding reads calls out of: calls in a function's body (a call named for
    refusals, `refusals_extension(rules)`, is read as a guard first), module-level values."""
    return [
        *(c for f in res.facts.values() for c in f.calls),
        *(g.call for f in res.facts.values() for g in f.guards if g.call is not None),
        *(v for d in res.defs.values() for v in d.values()),
    ]


# Each binding's calls by the repo function they reach, made once: every helper, and each
# helper a helper's site passes on to, asks for its calls (a scan of the tree's calls each).
_BY_CALLEE: weakref.WeakKeyDictionary[Resolver, dict[tuple[str, str], dict[Loc, CallV]]] = (
    weakref.WeakKeyDictionary()
)


def _calls_of(res: Resolver, fn: Fn) -> list[CallV]:
    """The calls of `fn` read so far (`EXTENSIONS = [...]`, a function's body)."""
    index = _BY_CALLEE.get(res)
    if index is None:
        index = _BY_CALLEE[res] = {}
        for call in (c for top in _held(res) for c in _nested(top) if isinstance(c, CallV)):
            if (callee := res.callee(call)) is not None:
                # One call may be both (`CARD = AgentCard(...)` in a function): once, by its place.
                index.setdefault((callee.path, callee.qualname), {})[call.loc] = call
    found = index.get((fn.path, fn.qualname), {})
    return [call for call in found.values() if res.callee(call) == fn]


def _named(res: Resolver, fn: Fn) -> bool:
    """Is `fn` passed as a value (`partial(fn, required=True)`, a dispatch table): called
    where binding cannot see, not by no code?"""
    return any(
        isinstance(v, Ref) and res.resolve(v) == fn for top in _held(res) for v in _nested(top, refs=True)
    )


def _nested(value: Value, refs: bool = False) -> Iterator[Value]:
    """The calls a value holds (`AgentCard(capabilities=...(extensions=[helper(RULES)]))`),
    and with `refs` the names passed among them."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, CallV) or (refs and isinstance(v, Ref)):
            yield v
        if isinstance(v, CallV):
            stack.extend((*v.args, *(a for _, a in v.kwargs)))
        elif isinstance(v, Seq):
            stack.extend(v.items)
        elif isinstance(v, DictV) and refs:
            stack.extend(it.value for it in v.items)
