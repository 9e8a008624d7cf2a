"""Guards and protocol errors bound one at a time, as the checks see them: one per rule id
each fires (a helper's ids stand at the call sites passing them), with the reason it sends
(agents.py binds the whole tree with these)."""

from __future__ import annotations

import dataclasses

from refusal_lint.core import spec
from refusal_lint.core.facts import CallV, DictV, ErrorUse, Fn, Guard, Param, Ref, Str, Sub, Value
from refusal_lint.core.kinds import FnKind, GuardKind, GuardStatus
from refusal_lint.core.model import Loc
from refusal_lint.core.prompttext import PLACEHOLDER
from refusal_lint.static.bind.agent import BoundError, BoundGuard
from refusal_lint.static.bind.classes import bind_arg
from refusal_lint.static.bind.guards.ids import Fired, GuardIds
from refusal_lint.static.bind.prompts import loaded_params
from refusal_lint.static.bind.resolve import Resolver


def _from_map(res: Resolver, value: Value | None, params_ids: set[str]) -> bool:
    if isinstance(value, Sub):
        base = res.resolve(value.base)
        return isinstance(base, DictV) and base.ident in params_ids
    return False


def _reason(res: Resolver, value: Value | None, params_ids: set[str]) -> tuple[str | None, Loc | None, bool]:
    """A guard's reason to compare (its text, where it stands, whether a literal there), or
    none: absent, from the params map, or not a string known statically."""
    if value is None or _from_map(res, value, params_ids):
        return None, None, False
    r = res.resolve_str(value)
    if r is None or PLACEHOLDER.search(r.value):  # `"... %s hours" % HOURS`: filled in at run time
        return None, None, False
    if not r.value and not isinstance(value, Str):
        return None, None, False  # `self.reason`, a base's empty default: a subclass's is sent
    return r.value, value.loc, isinstance(value, Str)


def _site_arg(res: Resolver, ids: GuardIds, param: Param, site: CallV) -> Value | None:
    """The argument a helper's call site passes to `param`, where the site calls that helper
    itself (a chain of helpers binds the id only: its reasons are not followed)."""
    fn = res.lookup(param.loc.path, param.func) if param.func else None
    if not isinstance(fn, Fn) or fn not in ids.callees(site):
        return None
    return bind_arg(fn, site, param.name)


def _site_reason(
    res: Resolver, ids: GuardIds, g: Guard, f: Fired, reason: str | None, params_ids: set[str]
) -> tuple[str | None, Loc | None, bool]:
    """The reason a helper sends with an id its call site passes (RL303 there). Its own (a
    literal, a constant) is compared at each site, but not rewritten by --fix, which would
    give every other id the first one's reason."""
    if isinstance(g.reason, Param):  # a reason parameter: what the site passes
        return _reason(res, _site_arg(res, ids, g.reason, f.site) if f.site else None, params_ids)
    if isinstance(g.reason, Ref) and f.site is not None and (field := _built_field(res, g.reason, f.site)):
        # `self.reason` of a class built at the site (`KeywordGuard(ids.X, "I can't ...")`).
        return _reason(res, field, params_ids)
    if isinstance(g.reason, Sub) and isinstance(g.reason.key, Param) and f.site is not None:
        # `REASONS[rule]`: the entry for the site's id (a stale copy of the card's map is
        # RL303 there; the params map itself is never compared).
        key = _site_arg(res, ids, g.reason.key, f.site)
        if key is not None:
            return _reason(res, dataclasses.replace(g.reason, key=key), params_ids)
    return reason, None, False


def _built_field(res: Resolver, ref: Ref, site: CallV) -> Value | None:
    """What a call building a repo class (the id's site: that class or a subclass, ids.py
    `_field_fired`) passes to the field `ref` names (`G.reason`, read as `self.reason`)."""
    owner, _, name = ref.name.rpartition(".")
    cls = res.resolve(res.lookup(ref.module, owner)) if owner else None
    built = res.resolve(res.callee(site))
    if not (isinstance(cls, Fn) and cls.kind == FnKind.CLASS and isinstance(built, Fn)):
        return None
    return bind_arg(built, site, name) if built.kind == FnKind.CLASS else None


def bind_guard(res: Resolver, ids: GuardIds, g: Guard, params_ids: set[str]) -> list[BoundGuard]:
    """The guard as the checks see it: one BoundGuard per id it fires (a helper's ids stand
    at the call sites passing them), or one that only carries its payload's shape."""
    media_near = None
    if g.kind == GuardKind.PART:
        media = res.resolve_str(g.media)
        kind = spec.media_type_kind(media.value) if media is not None else None
        if kind == "near" and media is not None:
            media_near = media.value
        elif g.opaque or (kind is None and not g.shaped):
            return []  # some other Part (application/json, ...) with no refusal keys
    reason, reason_loc, literal = _reason(res, g.reason, params_ids)
    # The payload's shape alone (RL306), where no id is fired at the payload itself.
    shape = BoundGuard(
        loc=g.loc,
        kind=g.kind,
        status=GuardStatus.PASSTHROUGH,
        rule_id=None,
        extra_keys=g.extra_keys,
        media_near=media_near,
    )
    if g.kind != GuardKind.CALL and g.rule is None:
        return [dataclasses.replace(shape, status=GuardStatus.NONE)]
    is_guard, value = ids.id_value(g)
    if not is_guard or value is None:
        return []
    fired = ids.fired(value, g.loc)
    if fired is None:
        return []  # not a rule id at all (RefusalsExtension(RULES) passes a dict)
    if value in ids.class_attrs:  # a class's `rule = "raw-meat"`: it stands where its literal is
        fired = [dataclasses.replace(f, loc=f.rule.loc) if f.rule is not None else f for f in fired]
    if g.receiver and not all(f.status == GuardStatus.ID for f in fired):
        return []  # `tracker.refuse()` on some object, not on a rule id
    out: list[BoundGuard] = []
    for f in fired:
        here = f.loc == g.loc
        said = (reason, reason_loc, literal) if here else _site_reason(res, ids, g, f, reason, params_ids)
        out.append(
            BoundGuard(
                loc=f.loc,
                kind=g.kind,
                status=f.status,
                rule_id=f.rule.value if f.rule else None,
                reason=said[0],
                reason_loc=said[1],
                reason_literal=said[2],
                # The payload's shape (RL306) stands at the payload, with the id only if it is there.
                extra_keys=g.extra_keys if here else (),
                media_near=media_near if here else None,
            )
        )
    if (g.extra_keys or media_near) and not any(b.loc == g.loc for b in out):
        out.append(shape)
    return out


def bind_error(res: Resolver, ids: GuardIds, e: ErrorUse, params_ids: set[str]) -> list[BoundError]:
    """A refusal sent as a protocol error: at the call site passing the id when a helper
    raises it, else where it is raised (with `rule_id` null when the id is not known)."""
    if e.rule is not None:
        fired = [f for f in ids.fired(e.rule, e.loc) or () if f.rule is not None]
        return [BoundError(f.loc, e.name, f.rule.value if f.rule else None) for f in fired] or [
            BoundError(e.loc, e.name, None)
        ]
    for v in e.values:
        if isinstance(v, Sub):
            base = res.resolve(v.base)
            key = res.resolve_str(v.key)
            # The card's map: built in Python, or loaded at run time (`RULES[id]`, RULES the
            # JSON card's `["capabilities"]["extensions"][0]["params"]`).
            if (isinstance(base, DictV) and base.ident in params_ids) or loaded_params(res, v.base):
                return [BoundError(e.loc, e.name, key.value if key else None)]
    return [BoundError(e.loc, e.name, None)] if e.caught else []
