"""What binding gives the checks (`Bound`), and a Python extension entry resolved to its
declaration (guards/bound.py: a guard or protocol error to the rule ids it fires; prompts.py:
a prompt value to prompts; agents.py binds the whole tree with these, into a `Bound`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from refusal_lint.core import spec
from refusal_lint.core.facts import (
    CallV,
    Const,
    DictV,
    Dyn,
    ExtDecl,
    FileFacts,
    Item,
    Param,
    ParamItem,
    PyExt,
    Ref,
    Seq,
    Str,
    Value,
)
from refusal_lint.core.kinds import ParamsKind, ValueKind
from refusal_lint.core.model import Loc, RuleSet
from refusal_lint.core.sourcetext import scrubbed
from refusal_lint.static.bind.agent import Agent, BoundError, BoundGuard
from refusal_lint.static.bind.helpers import declared
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


def foreign_uri(res: Resolver, ext: PyExt) -> str | None:
    """Why a declaration whose uri is imported from a module the tree lacks may still be the
    card (`from agents.chat.policy import URI` in a folder checked alone)."""
    if not isinstance(ext.uri, Ref):
        return None
    imp = res.imports.get(ext.uri.module, {}).get(ext.uri.name.split(".", 1)[0])
    if imp is None or res.index.module(ext.uri.module, imp.module, imp.level) is not None:
        return None
    module = "." * imp.level + imp.module
    return (
        f"its `uri` comes from `{module}`, not in the tree checked: check the folder that import starts from"
    )


COMPUTED_URI = "its `uri` is computed at run time: write it as a literal, a name or an f-string of names"


def computed_uri(res: Resolver, ext: PyExt) -> bool:
    """A declaration of rules whose uri only a run computes (`uri=refusals_uri()`: DESIGN §2
    reads literals and names), which may still be the card."""
    return _rules_like(res, ext.params) and not isinstance(res.resolve(ext.uri), (Str, Const))


def _rules_like(res: Resolver, params: Value | None) -> bool:
    """Are `params` a map of rules: kebab-case ids to one-line reasons (prose), not some other
    extension's settings (`{"endpoint": URL, "sample_rate": 0.5}`)?"""
    if params is None or isinstance(params, CallV):
        return False  # a map a call computes (`dict_to_struct(...)`), as the gates read it
    value = res.resolve(params)
    return isinstance(value, DictV) and bool(value.items) and all(_rule_item(res, it) for it in value.items)


def _rule_item(res: Resolver, it: Item) -> bool:
    key, reason = res.resolve_str(it.key), res.resolve(it.value)
    return (
        not it.spread
        and key is not None
        and spec.is_kebab(key.value)
        and isinstance(reason, Str)
        and " " in reason.value.strip()
    )


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


Foreign = list[tuple[Loc, str]]  # declarations whose uri binding cannot read, and why


def decls_of(res: Resolver, facts: dict[str, FileFacts]) -> tuple[list[ExtDecl], frozenset[str], Foreign]:
    """Every extension declaration, data and Python; the classes whose constructor calls, or
    functions whose calls, hold a declaration's params (`params=self.rules`, `params=rules`
    a parameter), for binding to read them (by name: ondemand.callers); and the
    declarations whose uri binding cannot read (`foreign_uri`, then `computed_uri`)."""
    decls: list[ExtDecl] = []
    constructed: set[str] = set()
    foreign: Foreign = []
    computed: Foreign = []
    for path in sorted(facts):
        f = facts[path]
        decls.extend(f.exts)
        for ext in f.py_exts:
            names, pieces = declared(res, ext)
            constructed.update(names)  # the helpers' sites, unread ones too
            for piece, params in pieces:
                if (d := py_ext_decl(res, piece, params)) is not None:
                    decls.append(d)
                elif (why := foreign_uri(res, piece)) is not None:
                    foreign.append((piece.loc, why))
                elif computed_uri(res, piece):
                    computed.append((piece.loc, COMPUTED_URI))
    return decls, frozenset(constructed), foreign + computed
