"""The rule maps of the tree that a prompt may be filled from, or a protocol error may carry
an entry of, for each card: its params map and the module dicts that copy it (derived),
and the stale or partial copies (their items are stated)."""

from __future__ import annotations

from refusal_lint.core.facts import Attr, DictV, Each, Seq, Str, Sub
from refusal_lint.core.model import RuleSet
from refusal_lint.static.bind.prompts import Maps
from refusal_lint.static.bind.resolve import Resolver

Tables = tuple[list[tuple[str, frozenset[str]]], list[DictV], list[DictV]]


def tables_of(res: Resolver) -> Tables:
    """The tree's module-level dicts (each one's ident and string keys), the params maps its
    Python cards resolve to, and the dicts themselves: found once, for every agent's
    `maps_of` and `copies`."""
    dicts = [d for defs in res.defs.values() for d in defs.values() if isinstance(d, DictV)]
    keyed = [(d.ident, frozenset(k.value for it in d.items if isinstance(k := it.key, Str))) for d in dicts]
    params = [
        p
        for f in res.facts.values()
        for ext in f.py_exts
        if ext.params is not None and isinstance(p := res.resolve(ext.params), DictV)
    ]
    return keyed, params, dicts


def copies(res: Resolver, card: RuleSet | None, tables: Tables) -> set[str]:
    """The module dicts of reasons (every value a string) keyed by exactly the card's ids,
    Enum members' too: a protocol error carrying an entry of one carries a refusal (RL305),
    as one of the params map does."""
    want = {r.rule_id for r in card.rules} if card else set()
    return {
        d.ident
        for d in tables[2]
        if want
        and len(d.items) == len(want)
        and {k.value if (k := res.resolve_str(it.key)) else "" for it in d.items} == want
        and all(isinstance(res.resolve(it.value), Str) for it in d.items)
    }


def maps_of(res: Resolver, card: RuleSet | None, ids: set[str], tables: Tables) -> Maps:
    """The maps a prompt of the card's agent may be filled from (prompts.Maps): its params
    map (`ids`) and module-level dicts whose keys are exactly the card's rule ids; the
    tables the params map is built from by a comprehension (`{r.id: r.reason for r in
    TABLE}`: a prompt iterating TABLE agrees with the card by construction, as one iterating
    the map); and, apart, the dicts keyed by some of its ids but not all (a stale copy)."""
    want = {r.rule_id for r in card.rules} if card else set()
    if card is None or not want:
        return Maps(frozenset(ids))
    out: set[str] = set(ids)
    other: set[str] = set()
    keyed, params, dicts = tables
    reasons = {r.rule_id: r.reason for r in card.rules}
    for (ident, keys), table in zip(keyed, dicts, strict=True):
        if keys == want and (ident in ids or _agrees(res, table, reasons)):
            out.add(ident)
        elif keys & want and ident not in ids:
            other.add(ident)  # a stale copy: other reasons, or some of the ids only
    for p in params:
        if p.ident == card.params_id:
            out.update(_iterated(res, p))
    return Maps(frozenset(out), frozenset(other - out))


def _agrees(res: Resolver, table: DictV, reasons: dict[str, str | None]) -> bool:
    """Does no value of a dict keyed by the card's ids give one a reason of its own (a table
    of checks, of enum members, agrees; `OLD = {"dosage": "I can't help."}` does not)?"""
    for it in table.items:
        key, value = res.resolve_str(it.key), res.resolve_str(it.value)
        if key is not None and value is not None and value.value != reasons.get(key.value, value.value):
            return False
    return True


def _iterated(res: Resolver, params: DictV) -> set[str]:
    """The tables a dict comprehension's items are read from (what its `for` iterates)."""
    out: set[str] = set()
    for it in params.items:
        for v in (it.key, it.value):
            while isinstance(v, (Attr, Sub)):
                v = v.base
            if isinstance(v, Each) and isinstance(table := res.resolve(v.over), (DictV, Seq)):
                out.add(table.loc.ident)
    return out
