"""Bind every file's facts into agents (rule sets, prompts, guards with their rule ids), then
check the bound tree once, through the registry of checks (checks/registry.py).

Imported only when some file yielded facts: a tree with none never loads the binder.
"""

from __future__ import annotations

import dataclasses
import functools
import sys

from refusal_lint.config import Config
from refusal_lint.core import prompttext
from refusal_lint.core.facts import FileFacts
from refusal_lint.core.kinds import GuardStatus, PromptForm
from refusal_lint.core.model import Finding, Loc, Prompt, PromptLine, RuleSet, message_path
from refusal_lint.static.bind import scoping
from refusal_lint.static.bind.agent import Agent, BoundError, BoundGuard
from refusal_lint.static.bind.bound import Bound, Unclaimed, decls_of
from refusal_lint.static.bind.guards.bound import bind_error, bind_guard
from refusal_lint.static.bind.guards.ids import GuardIds
from refusal_lint.static.bind.guards.subclasses import with_subclass_guards
from refusal_lint.static.bind.maps import copies, maps_of, tables_of
from refusal_lint.static.bind.modules import ModuleIndex
from refusal_lint.static.bind.prompts import Maps, py_prompts
from refusal_lint.static.bind.resolve import Resolver
from refusal_lint.static.bind.strs import STYLES, as_filled, filled
from refusal_lint.static.checks import card as card_checks
from refusal_lint.static.checks import files as file_checks
from refusal_lint.static.checks import registry
from refusal_lint.static.checks.base import Run
from refusal_lint.static.discover.roles import Roles


@dataclasses.dataclass(frozen=True)
class Checked:
    findings: list[Finding]
    agents: list[Agent]
    facts_found: bool


def bind(root: str, cfg: Config, facts: dict[str, FileFacts], index: ModuleIndex, roles: Roles) -> Bound:
    res = Resolver(facts, index)
    guard_ids, facts, subclassed = with_subclass_guards(res, facts)
    decls, constructed, foreign = decls_of(res, facts)
    cards = card_checks.rule_sets(decls)
    params_ids = {c.params_id for c in cards if c.params_id}
    agents, unclaimed = scoping.agents_of(root, cfg, cards, facts, roles)
    all_ids = tuple(sorted({r.rule_id for c in cards for r in c.rules}))
    unclaimed = [u for u in unclaimed if _yields_fact(res, guard_ids, facts[u.path], all_ids, params_ids)]
    owned = {p for a in agents for p in a.files}
    # A file no agent claims (RL004) fires no agent's rules: its guards count for none.
    claimed = owned | {u.path for u in unclaimed}
    # A pass-through helper no agent's files hold (a monorepo's common/parts.py) serves them
    # all: its payload, or the protocol error it sends one in (RL305), is bound for each at
    # the call sites in that agent's files, and what stands in the helper itself (its
    # payload's shape, RL306) once, under the first agent.
    shared = sorted(p for p, f in facts.items() if agents and p not in owned and f.fires() and not f.claims())
    tables = tables_of(res) if agents else ([], [], [])
    for agent in agents:
        ids = {agent.card.params_id} if agent.card and agent.card.params_id else set()
        # A prompt fed from the params map, or from a module's copy of it (same rule ids), is derived.
        maps = maps_of(res, agent.card, ids, tables)
        found = (
            _prompts(res, facts, agent.files, maps, agent.card)
            if agent.prompt_spec is None
            else _configured_prompt(res, facts, agent, roles, maps)
        )
        agent.prompts = counted(found, agent)
        # A protocol error carrying an entry of the params map or of a copy of it is a refusal.
        sent = (ids, params_ids | copies(res, agent.card, tables))
        for path in sorted(agent.files):
            _fire(res, guard_ids, facts[path], agent, sent)
        for path in shared:
            _serve(res, guard_ids, facts[path], agent, agent is agents[0], sent)
        # A shared helper's call sites in another agent's files fire that agent's rules, not
        # this one's (a monorepo's common/refusals.py in both agents' globs).
        agent.guards = [g for g in _unique(agent.guards) if _ours(g.loc.path, agent, claimed)]
        agent.protocol_errors = [e for e in agent.protocol_errors if _ours(e.loc.path, agent, claimed)]
    unclaimed = _unquoted([*unclaimed, *_orphans(agents, shared)], agents, facts)
    guards: list[BoundGuard] = []
    errors: list[BoundError] = []
    if not agents:
        for path in sorted(p for p, f in facts.items() if f.has_facts()):
            guards += [bg for g in facts[path].guards for bg in bind_guard(res, guard_ids, g, set())]
            errors += [be for e in facts[path].protocol_errors for be in bind_error(res, guard_ids, e, set())]
    return Bound(
        decls,
        cards,
        agents,
        unclaimed,
        guards,
        errors,
        res.missing,
        frozenset(guard_ids.followed),
        frozenset(guard_ids.methods_asked),
        constructed,
        tuple(foreign),
        subclassed | frozenset(guard_ids.overridden),
    )


def _fire(
    res: Resolver, guard_ids: GuardIds, f: FileFacts, agent: Agent, maps: tuple[set[str], set[str]]
) -> None:
    """One of the agent's own files: its guards and protocol errors bound; and the repo
    module defining a guard's callee, where no file of the agent's (`refuse()` of a shared
    `common/refusals.py`), among the agent's `helpers`."""
    for g in f.guards:
        agent.guards.extend(bind_guard(res, guard_ids, g, maps[0]))
        callee = res.callee(g.call) if g.call is not None else None
        if callee is not None and callee.path not in agent.files:
            agent.helpers.add(callee.path)
    for e in f.protocol_errors:
        agent.protocol_errors.extend(bind_error(res, guard_ids, e, maps[1]))


def _serve(
    res: Resolver,
    guard_ids: GuardIds,
    f: FileFacts,
    agent: Agent,
    first: bool,
    maps: tuple[set[str], set[str]],
) -> None:
    """A shared helper's guards and protocol errors, bound for `agent`: those at the call
    sites in its files, and (`first` agent) those standing elsewhere; and the helper among
    the agent's `helpers` where it serves the agent so."""
    served = [bg for g in f.guards for bg in bind_guard(res, guard_ids, g, maps[0])]
    sent = [be for e in f.protocol_errors for be in bind_error(res, guard_ids, e, maps[1])]
    if any(loc.path in agent.files for loc in [*(b.loc for b in served), *(b.loc for b in sent)]):
        agent.helpers.add(f.path)
    agent.guards.extend(bg for bg in served if bg.loc.path in agent.files or first)
    agent.protocol_errors.extend(be for be in sent if be.loc.path in agent.files or first)


def _orphans(agents: list[Agent], shared: list[str]) -> list[Unclaimed]:
    """Files no agent claims that look like a shared helper (their guards' ids are parameters)
    but serve no agent and fire ids of their own: the helper's tests beside it
    (`emit_refusal(updater, {...}, "demo-rule")`). RL004, as a file holding a literal guard
    is, not the first agent's guards."""
    served = {p for a in agents for p in a.helpers}
    own = {g.loc.path for g in agents[0].guards if g.status == GuardStatus.ID} if agents else set()
    orphans = own & (set(shared) - served)
    if orphans:
        agents[0].guards = [g for g in agents[0].guards if g.loc.path not in orphans]
    return [Unclaimed(p, shared=False) for p in sorted(orphans)]


def _unquoted(
    unclaimed: list[Unclaimed], agents: list[Agent], facts: dict[str, FileFacts]
) -> list[Unclaimed]:
    """Less the modules of prompt lines an agent's prompt is built from (`... + PII_LINE`,
    imported from common/prompt_parts.py): part of that prompt, no file of no agent."""
    quoted = {pl.path for a in agents for p in a.prompts for pl in p.lines if pl.path}
    return [u for u in unclaimed if u.path not in quoted or facts[u.path].fires() or facts[u.path].exts]


def _yields_fact(
    res: Resolver, guard_ids: GuardIds, f: FileFacts, ids: tuple[str, ...], params_ids: set[str]
) -> bool:
    """Does a file no agent claims yield a fact some agent's checks would read (RL004): a
    guard that fires or a payload, an error use, a prompt candidate that counts (names a
    card rule or a near miss, lists rules, is derived)? Not a call binding to no guard
    (`refuse_politely("Sorry")`), a foreign extension, a prompt of unrelated code, nor a
    multi-agent host's rendering of a refusal it received (`{"rule": part.data["rule"],
    ...}`: an id passed through, in a well-formed payload)."""
    if any(_fires(bg) for g in f.guards for bg in bind_guard(res, guard_ids, g, set())):
        return True
    if any(bind_error(res, guard_ids, e, params_ids) for e in f.protocol_errors):
        return True
    maps = Maps(frozenset(params_ids))
    found = [p for pp in f.py_prompts for p in py_prompts(res, pp.value, maps, pp.form)]
    return any(p.derived or _matters(p.lines, ids, p.lead) for p in (*f.prompts, *found))


def _fires(bg: BoundGuard) -> bool:
    """A bound guard some agent's checks would read: an id fired or unresolved, or a
    payload's shape at fault."""
    return bg.status != GuardStatus.PASSTHROUGH or bool(bg.extra_keys) or bg.media_near is not None


def _ours(path: str, agent: Agent, claimed: set[str]) -> bool:
    """Does a guard standing in `path` count for `agent`: its own file, or a shared helper's
    (one no agent claims, and no RL004)?"""
    return path in agent.files or path not in claimed


def check(bound: Bound, facts: dict[str, FileFacts], roles: Roles, walked: frozenset[str]) -> Checked:
    """Every finding of the bound tree (checks/registry.py), each named after its agent."""
    findings = registry.findings(Run(bound, facts, frozenset(roles.cards), walked))
    card_agent = {a.card.loc: a.name for a in bound.agents if a.card}
    named = [
        dataclasses.replace(f, agent=f.agent or scoping.agent_for(f, card_agent, bound.agents))
        for f in findings
    ]
    # One fault, one finding: a guard call and the payload inside its repo callee may both
    # resolve to the same call site; a file two configured agents' globs both take is checked
    # for each (a payload's shape, an id neither card has): under the first agent.
    firsts: dict[Finding, Finding] = {}
    for f in named:
        firsts.setdefault(dataclasses.replace(f, agent=None), f)
    findings = list(firsts.values())
    # Copies of one agent's card that disagree: each finding says which copy it read, and
    # --fix writes neither copy's reason (which one is right is not known).
    twinned = {a.copy_of for a in bound.agents if a.copy_of}
    cards = {
        a.name: a.card.loc.path
        for a in bound.agents
        if a.card is not None and (a.copy_of or a.name in twinned)
    }
    findings = [
        dataclasses.replace(f, message=f"{f.message} (card `{message_path(cards[f.agent])}`)", edit=None)
        if f.agent in cards and f.loc.path != cards[f.agent]
        else f
        for f in findings
    ]
    facts_found = (
        bool(bound.rule_sets)
        or any(f.fires() for f in facts.values())
        or any(f.code in (file_checks.RL002.code, file_checks.RL100.code) for f in findings)
    )
    return Checked(findings, bound.agents, facts_found)


def _unique(guards: list[BoundGuard]) -> list[BoundGuard]:
    """One guard per place and id: a guard call and the payload in its repo callee both fire
    the id at the call site; keep the one that says most (a reason, a payload's keys)."""
    best: dict[tuple[Loc, str, str | None], BoundGuard] = {}
    for g in guards:
        key = (g.loc, g.status, g.rule_id)
        old = best.get(key)
        if old is None or _says(g) > _says(old):
            best[key] = g
    return list(best.values())


def _says(g: BoundGuard) -> tuple[bool, str, tuple[str, ...], bool, str]:
    """How much a guard says, to keep the one that says most (None: says nothing)."""
    return (g.reason is not None, g.reason or "", g.extra_keys, g.media_near is not None, g.media_near or "")


def prompt_order(agent: Agent, path: str) -> tuple[bool, str]:
    """The order candidates are looked for in: near the card (under its agent's root) first."""
    return (not agent.under_root(path), path)


def counted(prompts: list[Prompt], agent: Agent) -> list[Prompt]:
    """The candidates that count (DESIGN §2): those that mention a card rule or a near miss
    of one, list rules, or are derived; where none does, the first candidate found."""
    ordered = sorted(prompts, key=lambda p: (prompt_order(agent, p.loc.path), p.loc.line, p.loc.col))
    return [p for p in ordered if _counts(p, agent)] or ordered[:1]


def has_counted(agent: Agent) -> bool:
    """Has the agent a candidate that counts by its content (no further search can add one)?"""
    return any(_counts(p, agent) for p in agent.prompts)


def _counts(prompt: Prompt, agent: Agent) -> bool:
    ids = tuple(r.rule_id for r in agent.card.rules) if agent.card else ()
    return prompt.derived or _matters(prompt.lines, ids, prompt.lead)


@functools.lru_cache(maxsize=4096)
def _matters(lines: tuple[PromptLine, ...], ids: tuple[str, ...], lead: tuple[PromptLine, ...]) -> bool:
    """prompttext.matters, once a candidate and card: a run binds the same candidates
    again after each on-demand read (a pure function of the text and the ids)."""
    return prompttext.matters(lines, list(ids), lead)


def _prompts(
    res: Resolver, facts: dict[str, FileFacts], files: set[str], maps: Maps, card: RuleSet | None
) -> list[Prompt]:
    """Every candidate of the agent's files, once: a string that a table shape already reads
    is no second candidate by its content (its lines are the same file lines), nor one that
    is a card's reason whole (the card itself, keyed by names: `{Rule.DIAGNOSIS: "..."}`)."""
    rules = card.rules if card is not None else ()
    reasons, ids = {r.reason for r in rules}, tuple(r.rule_id for r in rules)
    found: list[Prompt] = []
    for path in sorted(files):
        f = facts[path]
        found += f.prompts
        found += [p for pp in f.py_prompts for p in py_prompts(res, pp.value, maps, pp.form)]
    out: list[Prompt] = []
    seen: dict[tuple[str, int, str], int] = {}
    lines: set[tuple[str, int]] = set()  # the file lines the table shapes' candidates read
    # Where they start: a derived one's lines are no file lines (`"""...""".format_map(RULES)`),
    # yet its literal, where it starts, is that candidate's and no second one by its content.
    starts: set[tuple[str, int, int]] = set()
    for p in sorted(found, key=lambda p: p.form == PromptForm.CONTENT):  # table shapes first
        # Two strings on one line (`instructions=["You are ...", "Refuse seg-mix ..."]`) are two
        # candidates. A template's first line and its fill's are one (`50%%` is `50%` filled).
        key = (p.loc.path, p.loc.line, as_filled(p.lines[0].text) if p.lines else "")
        mine = {(p.loc.path, pl.line) for pl in p.lines}
        if key in seen and not _siblings(p, out[seen[key]]):
            # One template, two candidates: `TEMPLATE = "...{rules}"` and `SYSTEM_PROMPT =
            # TEMPLATE.format(rules=RULES)`. The fill says more than the template.
            if _fills(p, out[seen[key]]):
                out[seen[key]] = p
            continue
        at = (p.loc.path, p.loc.line, p.loc.col)
        if p.form == PromptForm.CONTENT and (
            (mine <= lines or at in starts)
            or (len(p.lines) == 1 and p.lines[0].text.strip() in reasons)
            or not (p.derived or _matters(p.lines, ids, p.lead))  # a name filled in no id (content.py)
        ):
            continue
        seen[key] = len(out)
        if p.form != PromptForm.CONTENT:
            lines |= mine
            starts.add(at)
        out.append(p)
    return out


def _siblings(p: Prompt, q: Prompt) -> bool:
    """Two fills of one template from two maps (`T % RULES`, `T % OLD`): each states its own
    items, so a stale one is not hidden by one that agrees. (A line holding a slot is the
    template's, not a fill.)"""
    pairs = [(a.text, b.text) for a, b in zip(p.lines, q.lines, strict=False) if not _same(a.text, b.text)]
    return (
        len(p.lines) == len(q.lines)
        and bool(pairs)
        and not any(prompttext.PLACEHOLDER.search(t) for pair in pairs for t in pair)
    )


def _same(a: str, b: str) -> bool:  # one line, as written and as filled (`100%%`, `100%`)?
    return a == b or any(filled(a, style) == b or filled(b, style) == a for style in STYLES)


def _fills(p: Prompt, q: Prompt) -> bool:
    """Is `p` the better of two candidates of one template: the one filled in the code that
    states the items of the map it is filled from (`.format(rules=...)`: the template's
    lines and then those), else a derived one (filled from the params map)?"""
    n, m = len(p.lines), len(q.lines)
    if n != m and (p.lines[:m] == q.lines or q.lines[:n] == p.lines):
        return n > m
    texts, raw = [pl.text for pl in p.lines], [ql.text for ql in q.lines]
    if n == m and texts != raw:
        # `PROMPT_TMPL % {...}` and PROMPT_TMPL itself: the fill, whose `%%` reads `%`, is
        # what the model is sent.
        return any([filled(t, style) for t in raw] == texts for style in STYLES)
    return p.derived and not q.derived


def _configured_prompt(
    res: Resolver, facts: dict[str, FileFacts], agent: Agent, roles: Roles, maps: Maps
) -> list[Prompt]:
    assert agent.prompt_spec is not None
    source = roles.prompts[agent.prompt_spec]
    if not source.module:
        held = facts[source.path].prompts if source.path in facts else ()
        return [p for p in held if source.key is None or p.key == source.key]
    value = res.lookup(source.path, source.key or "")
    if value is None:
        return []
    found = py_prompts(res, value, maps, PromptForm.ASSIGNMENT)
    if found or source.path not in facts:
        return found
    # A name bound to what a framework builds from the prompt (`ChatPromptTemplate.from_messages(
    # [("system", ...)])`, a class whose docstring names the rules): the file's candidates
    # that stand in its binding, up to the module's next one.
    start = value.loc.line
    later = [v.loc.line for v in res.defs.get(source.path, {}).values() if v.loc.line > start]
    end = min(later, default=sys.maxsize)
    inside = [p for p in _prompts(res, facts, {source.path}, maps, agent.card) if start <= p.loc.line < end]
    return inside
