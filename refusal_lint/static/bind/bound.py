"""What binding gives the checks (`Bound`), and a Python extension entry resolved to its
declaration (guards/bound.py: a guard or protocol error to the rule ids it fires; prompts.py:
a prompt value to prompts; agents.py binds the whole tree with these, into a `Bound`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from refusal_lint.core import spec
from refusal_lint.core.facts import (
    Attr,
    CallV,
    Const,
    DictV,
    Dyn,
    Each,
    ExtDecl,
    FileFacts,
    Fn,
    Item,
    Param,
    ParamItem,
    PyExt,
    Ref,
    Seq,
    Str,
    Sub,
    Value,
)
from refusal_lint.core.kinds import FnKind, ParamsKind, ValueKind
from refusal_lint.core.model import Loc, RuleSet
from refusal_lint.core.sourcetext import scrubbed
from refusal_lint.static.bind.agent import Agent, BoundError, BoundGuard
from refusal_lint.static.bind.classes import bound_value
from refusal_lint.static.bind.resolve import SPREAD_DEPTH, Resolver, has_each


@dataclass(frozen=True)
class Unclaimed:
    """A file that yields facts but that no agent claims (`shared`: two agents claim it
    equally); the file check makes it RL004."""

    path: str
    shared: bool


@dataclass(frozen=True)
class Bound:
    """The tree's facts bound together (agents.bind): rule sets, agents with their prompts,
    guards and errors, and what binding itself found. What the checks read."""

    decls: list[ExtDecl]
    rule_sets: list[RuleSet]
    agents: list[Agent]
    unclaimed: list[Unclaimed]  # files no agent, or two, claim
    guards: list[BoundGuard]  # with no agent: every guard of the tree
    protocol_errors: list[BoundError]  # with no agent: every one of the tree
    missing: set[str]  # modules binding wanted but that were not read
    helpers: frozenset[str] = frozenset()  # helpers followed to their call sites, by name
    methods: frozenset[str] = frozenset()  # methods looked up by name (receivers of unknown class)
    # Classes and functions whose calls hold a card's params (`params=self.rules`), by name
    constructed: frozenset[str] = frozenset()
    # `AgentExtension(uri=URI, ...)` whose URI is imported from a module not in the tree
    # (the extension, and the module as imported): maybe the card, unread (RL001 says so).
    foreign_uris: tuple[tuple[Loc, str], ...] = ()
    # Guards by inheritance, whose subclasses are too; classes whose attribute a guard
    # reads, whose subclasses may set it (`rule = Policy.DOSAGE`): ondemand.definers.
    subclassed: frozenset[str] = frozenset()

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """Every card's rule ids, sorted."""
        return tuple(sorted({r.rule_id for rs in self.rule_sets for r in rs.rules}))


# ---- cards built in Python ----------------------------------------------------------------


def _kind(v: Value | None) -> ValueKind:
    if isinstance(v, Str):
        return ValueKind.STRING
    if isinstance(v, DictV):
        return ValueKind.OBJECT
    if isinstance(v, Const):
        return ValueKind(v.kind)
    if isinstance(v, Seq):
        return ValueKind.ARRAY  # a list or tuple literal (`"reason",`: a trailing comma makes one)
    return ValueKind.UNKNOWN


def _items(res: Resolver, written: list[Item]) -> list[ParamItem]:
    out: list[ParamItem] = []
    for it in written:
        key = res.resolve_str(it.key)
        if key is None:
            continue
        value = res.resolve(it.value)
        reason = value.value if isinstance(value, Str) else None
        out.append(ParamItem(key=scrubbed(key.value), loc=it.loc, reason=reason, kind=_kind(value)))
    return out


def _filled_later(res: Resolver, d: DictV, it: Item) -> bool:
    """An item set after the display, under a key no literal names (`d[rule_id] = reason`)."""
    outside = it.loc.path != d.loc.path or not d.loc.line <= it.loc.line <= (d.loc.end_line or d.loc.line)
    return outside and not it.spread and not isinstance(res.resolve(it.key), Str)


def _written(res: Resolver, d: DictV, depth: int = 0) -> list[Item]:
    """`res.flat(d)` (the items as written, spreads and comprehensions expanded), less each
    item a later one overrides by a spread or against one (`{**BASE, "k": ...}`, `BASE |
    {...}`, as YAML's merge key is): no repeat (RL107), which is a key written twice in one
    literal. A spread left unread (a name the resolver cannot follow) is all it returns:
    the map's keys are not known. Keys a function sets later (`PARAMS[rule_id] = reason`)
    add none; a map they fill alone is unread so."""
    items = [it for it in d.items if not _filled_later(res, d, it)]
    if d.items and not items:
        return [Item(Const(ValueKind.SPREAD, d.loc), Dyn(d.loc), d.loc)]
    groups: list[tuple[bool, list[Item]]] = []
    for it in items:
        if it.spread:
            inner = res.resolve(it.value)
            if not isinstance(inner, DictV) or depth >= SPREAD_DEPTH:
                return [it]  # a map the resolver cannot follow (imported from a library): unknown
            nested = _written(res, inner, depth + 1)
            if any(n.spread for n in nested):
                return nested
            groups.append((True, nested))
        else:
            groups.append((False, res.comprehended(it) if has_each(it.key) else [it]))
    keys = [[k.value if (k := res.resolve_str(it.key)) else None for it in items] for _, items in groups]
    out: list[Item] = []
    for i, (spread, items) in enumerate(groups):
        later = {
            k for (s, _), ks in zip(groups[i + 1 :], keys[i + 1 :], strict=True) if s or spread for k in ks
        }
        out.extend(it for it, k in zip(items, keys[i], strict=True) if k is None or k not in later)
    return out


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
    where they pass one map or all stand in one file (a public card and an extended card);
    else one a file, at its first site, each of its own map (agents sharing the helper)."""

    def agreed(args: list[Value]) -> Value | None:
        maps = {d.ident if isinstance(d := res.resolve(a), DictV) else "" for a in args}
        return args[0] if len(maps) == 1 and "" not in maps else None

    every = [a for path in sorted(by_file) for _, a in sorted(by_file[path], key=_place)]
    if len(by_file) <= 1 or agreed(every) is not None:
        return [(ext, agreed(every) if every else None)]
    out: list[tuple[PyExt, Value | None]] = []
    for path in sorted(by_file):
        sites = sorted(by_file[path], key=_place)
        first = sites[0][0]
        out.append((dataclasses.replace(ext, loc=first, card=first.ident), agreed([a for _, a in sites])))
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
    fn = _param_of(res, ext.params)
    if fn is None or not isinstance(ext.params, Param):
        return None
    names, by_file = [_short(fn)], Sites()
    for call in _calls_of(res, fn):
        if (arg := bound_value(fn, call, ext.params.name)) is not None:
            for loc, passed in _passed_on(res, call.loc, arg, names, 0):
                by_file.setdefault(loc.path, []).append((loc, passed))
    default = next((v for p, v in fn.defaults if p == ext.params.name), None)
    if not by_file and not isinstance(res.resolve(default), DictV):
        return names, []  # a factory no code calls builds no card
    return names, _split(res, ext, by_file)


def _passed_on(res: Resolver, loc: Loc, arg: Value, names: list[str], depth: int) -> list[tuple[Loc, Value]]:
    """A site's params, or where a helper passes on its own parameter (`make_card(name,
    rules)` calling `refusals_extension(rules)`), what that helper's sites pass in turn."""
    outer = _param_of(res, arg)
    if outer is None or not isinstance(arg, Param) or depth >= _HELPER_DEPTH:
        return [(loc, arg)]
    names.append(_short(outer))
    return [
        found
        for call in _calls_of(res, outer)
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


def _calls_of(res: Resolver, fn: Fn) -> list[CallV]:
    """The calls of `fn` read so far: in a function's body, or in a module-level value
    (`EXTENSIONS = [...]`)."""
    held = [
        *(c for f in res.facts.values() for c in f.calls),
        *(v for d in res.defs.values() for v in d.values()),
    ]
    # One call may be both (`CARD = AgentCard(...)` in a function): each once, by its place.
    calls = {call.loc: call for call in (c for top in held for c in _nested(top)) if res.callee(call) == fn}
    return list(calls.values())


def _nested(value: Value) -> Iterator[CallV]:
    """The calls a value holds (`AgentCard(capabilities=...(extensions=[helper(RULES)]))`)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, CallV):
            yield v
            stack.extend((*v.args, *(a for _, a in v.kwargs)))
        elif isinstance(v, Seq):
            stack.extend(v.items)


def foreign_uri(res: Resolver, ext: PyExt) -> str | None:
    """The module a declaration's uri is imported from, where the tree has no such module
    (`from agents.chat.policy import URI` in a folder checked alone): as imported."""
    if not isinstance(ext.uri, Ref):
        return None
    imp = res.imports.get(ext.uri.module, {}).get(ext.uri.name.split(".", 1)[0])
    if imp is None or res.index.module(ext.uri.module, imp.module, imp.level) is not None:
        return None
    return "." * imp.level + imp.module


def py_ext_decl(res: Resolver, ext: PyExt, helper: Value | None = None) -> ExtDecl | None:
    """`ext` bound: its uri and params resolved (`helper`: the dict a helper function's call
    sites pass as its params, `helper_params`)."""
    uri = res.resolve(ext.uri)
    problems: list[str] = []
    if isinstance(uri, Str):
        if spec.uri_kind(uri.value) is None:
            return None
        uri_text: str | None = uri.value
    elif isinstance(uri, Const) and ext.params is not None:
        problems.append(f"`uri` is {_kind(uri)}, not a string")
        uri_text = None
    else:
        return None
    if ext.required is not None:
        req = res.resolve(ext.required)
        if not (isinstance(req, Const) and req.kind == ValueKind.BOOL) and not isinstance(req, (Dyn, Param)):
            problems.append(f"`required` is {_kind(req)}, not a boolean")
    raw = helper or ext.params
    params = res.resolve(raw) if raw is not None else None
    ploc = ext.params.loc if ext.params is not None else None
    decl = ExtDecl(
        loc=ext.loc, card=ext.card, uri=uri_text, problems=tuple(problems), agent_name=ext.agent_name
    )
    if params is None:
        return dataclasses.replace(decl, params_kind=ParamsKind.ABSENT)
    # Its items as written, spreads and comprehensions expanded (one left unexpanded: run time).
    written = _written(res, params) if isinstance(params, DictV) else []
    if isinstance(params, DictV) and not any(has_each(it.key) or it.spread for it in written):
        items = tuple(_items(res, written))
        return dataclasses.replace(decl, params_loc=ploc, items=items, params_id=params.ident)
    if isinstance(params, (Const, Str, Seq)):
        null = isinstance(params, Const) and params.kind == ValueKind.NULL
        return dataclasses.replace(
            decl, params_kind=ParamsKind.NULL if null else ParamsKind.OTHER, params_loc=ploc
        )
    return dataclasses.replace(decl, params_kind=ParamsKind.UNRESOLVED, params_loc=ploc)


Foreign = list[tuple[Loc, str]]  # declarations whose uri's module the tree lacks


def decls_of(res: Resolver, facts: dict[str, FileFacts]) -> tuple[list[ExtDecl], frozenset[str], Foreign]:
    """Every extension declaration, data and Python; the classes whose constructor calls, or
    functions whose calls, hold a declaration's params (`params=self.rules`, `params=rules`
    a parameter), for binding to read them (by name: ondemand.callers); and the
    declarations whose uri is imported from a module the tree does not hold."""
    decls: list[ExtDecl] = []
    constructed: set[str] = set()
    foreign: Foreign = []
    for path in sorted(facts):
        f = facts[path]
        decls.extend(f.exts)
        for ext in f.py_exts:
            if (by_site := uri_helper(res, ext)) is not None:
                constructed.update(
                    f.qualname.rpartition(".")[2] for f in by_site[0]
                )  # their sites, unread too
            for one in (it for site in (by_site[1] if by_site else [ext]) for it in _per_item(res, site)):
                if by_site and _read_from_input(one.params):
                    continue  # a peer's card read at run time (`ext(URI, raw["params"])`): none of ours
                helper = helper_params(res, one)
                constructed.update(helper[0] if helper else [])  # their sites, unread ones too
                for piece, params in helper[1] if helper else [(one, None)]:
                    if (d := py_ext_decl(res, piece, params)) is not None:
                        decls.append(d)
                    elif (module := foreign_uri(res, piece)) is not None:
                        foreign.append((piece.loc, module))
    return decls, frozenset(constructed), foreign
