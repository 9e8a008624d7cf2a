"""Bind every file's facts into agents (rule sets, prompts, guards with their rule ids), then
check the bound tree once: the file, card, prompt and guard checks.

Imported only when some file yielded facts: a tree with none never loads the binder.
"""

from __future__ import annotations

import dataclasses

from refusal_lint import prompttext, scoping
from refusal_lint.bind import (
    Agent,
    BoundError,
    BoundGuard,
    bind_error,
    bind_guard,
    py_ext_decl,
    py_prompts,
)
from refusal_lint.checks import card as card_checks
from refusal_lint.checks import files as file_checks
from refusal_lint.checks import guards as guard_checks
from refusal_lint.checks import prompt as prompt_checks
from refusal_lint.config import Config
from refusal_lint.facts import DictV, ExtDecl, FileFacts, Str
from refusal_lint.guardids import GuardIds
from refusal_lint.kinds import PromptForm
from refusal_lint.model import Finding, Loc, Prompt, RuleSet
from refusal_lint.resolve import ModuleIndex, Resolver
from refusal_lint.roles import Roles


@dataclasses.dataclass(frozen=True)
class Bound:
    """The tree's facts bound together: rule sets, agents with their prompts, guards and
    errors, and what binding itself found."""

    decls: list[ExtDecl]
    rule_sets: list[RuleSet]
    agents: list[Agent]
    scoping: list[Finding]  # RL004: a file no agent, or two, claim
    guards: list[BoundGuard]  # with no agent: every guard of the tree
    protocol_errors: list[BoundError]  # with no agent: every one of the tree
    missing: set[str]  # modules binding wanted but that were not read
    helpers: frozenset[str] = frozenset()  # helpers followed to their call sites, by name

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """Every card's rule ids, sorted."""
        return tuple(sorted({r.rule_id for rs in self.rule_sets for r in rs.rules}))


@dataclasses.dataclass(frozen=True)
class Checked:
    findings: list[Finding]
    agents: list[Agent]
    facts_found: bool


def bind(root: str, cfg: Config, facts: dict[str, FileFacts], index: ModuleIndex, roles: Roles) -> Bound:
    res = Resolver(facts, index)
    guard_ids = GuardIds(res, facts.values())
    decls: list[ExtDecl] = []
    for path in sorted(facts):
        f = facts[path]
        decls.extend(f.exts)
        decls.extend(d for ext in f.py_exts if (d := py_ext_decl(res, ext)) is not None)
    cards = card_checks.rule_sets(decls)
    params_ids = {c.params_id for c in cards if c.params_id}
    agents, scoping_findings = scoping.agents_of(root, cfg, cards, facts, roles)
    for agent in agents:
        ids = {agent.card.params_id} if agent.card and agent.card.params_id else set()
        # A prompt fed from the params map, or from a module's copy of it (same rule ids), is derived.
        maps = ids | (_copies_of(res, agent.card) if agent.card else set())
        if agent.prompt_spec is None:
            agent.prompts = counted(_prompts(res, facts, agent.files, maps), agent)
        else:
            agent.prompts = _configured_prompt(res, facts, agent, roles, maps)
        for path in sorted(agent.files):
            for g in facts[path].guards:
                agent.guards.extend(bind_guard(res, guard_ids, g, ids))
            for e in facts[path].protocol_errors:
                agent.protocol_errors.extend(bind_error(res, guard_ids, e, params_ids))
        agent.guards = _unique(agent.guards)
    guards: list[BoundGuard] = []
    errors: list[BoundError] = []
    if not agents:
        for path in sorted(p for p, f in facts.items() if f.has_facts()):
            guards += [bg for g in facts[path].guards for bg in bind_guard(res, guard_ids, g, set())]
            errors += [be for e in facts[path].protocol_errors for be in bind_error(res, guard_ids, e, set())]
    return Bound(
        decls, cards, agents, scoping_findings, guards, errors, res.missing, frozenset(guard_ids.followed)
    )


def check(bound: Bound, facts: dict[str, FileFacts], roles: Roles) -> Checked:
    """Every finding of the bound tree: files, cards, then each agent against its rule set."""
    findings = file_checks.check(facts, roles.cards) + card_checks.check_decls(bound.decls)
    findings += bound.scoping
    for agent in bound.agents:
        found = (
            prompt_checks.check(agent.card, agent.prompts, agent.prompt_spec, agent.root)
            if agent.card
            else []
        )
        if agent.card is not None and agent.card.usable:
            # No card, or unusable params (RL100, RL103, RL104): the agent's RL2xx/RL3xx are skipped.
            found += guard_checks.check(agent.card, agent.guards, agent.protocol_errors)
        findings.extend(dataclasses.replace(f, agent=agent.name) for f in found)
    if not bound.agents:
        if not roles.cards:  # a configured card that is missing or unreadable is RL100 alone
            findings += guard_checks.check_cardless(bound.guards)
        findings += guard_checks.check(None, bound.guards, bound.protocol_errors)
    card_agent = {a.card.loc: a.name for a in bound.agents if a.card}
    # One fault, one finding: a guard call and the payload inside its repo callee may both
    # resolve to the same call site.
    findings = list(dict.fromkeys(findings))
    findings = [
        dataclasses.replace(f, agent=f.agent or scoping.agent_for(f, card_agent, bound.agents))
        for f in findings
    ]
    facts_found = (
        bool(bound.rule_sets)
        or any(f.guards or f.protocol_errors for f in facts.values())
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
        if old is None or (g.reason, g.extra_keys, g.media_near) > (
            old.reason,
            old.extra_keys,
            old.media_near,
        ):
            best[key] = g
    return list(best.values())


def _copies_of(res: Resolver, card: RuleSet) -> set[str]:
    """Module-level dicts whose keys are exactly the card's rule ids."""
    want = {r.rule_id for r in card.rules}
    out: set[str] = set()
    if not want:
        return out
    for defs in res.defs.values():
        for value in defs.values():
            if (
                isinstance(value, DictV)
                and {k.value for it in value.items if isinstance(k := it.key, Str)} == want
            ):
                out.add(value.ident)
    return out


def prompt_order(agent: Agent, path: str) -> tuple[bool, str]:
    """The order candidates are looked for in: near the card (under its agent's root) first."""
    return (not (agent.root == "" or path.startswith(agent.root + "/")), path)


def counted(prompts: list[Prompt], agent: Agent) -> list[Prompt]:
    """The candidates that count (DESIGN §2): those that mention a card rule or a near miss
    of one, list rules, or are derived; where none does, the first candidate found."""
    ordered = sorted(prompts, key=lambda p: (prompt_order(agent, p.loc.path), p.loc.line, p.loc.col))
    return [p for p in ordered if _counts(p, agent)] or ordered[:1]


def has_counted(agent: Agent) -> bool:
    """Has the agent a candidate that counts by its content (no further search can add one)?"""
    return any(_counts(p, agent) for p in agent.prompts)


def _counts(prompt: Prompt, agent: Agent) -> bool:
    ids = [r.rule_id for r in agent.card.rules] if agent.card else []
    return prompt.derived or prompttext.matters(prompt.lines, ids)


def _prompts(res: Resolver, facts: dict[str, FileFacts], files: set[str], ids: set[str]) -> list[Prompt]:
    """Every candidate of the agent's files, once: a string that a table shape already reads
    is no second candidate by its content (its lines are the same file lines)."""
    found: list[Prompt] = []
    for path in sorted(files):
        f = facts[path]
        found += f.prompts
        found += [p for pp in f.py_prompts for p in py_prompts(res, pp.value, ids, pp.form)]
    out: list[Prompt] = []
    seen: set[tuple[str, int]] = set()
    lines: set[tuple[str, int]] = set()
    for p in sorted(found, key=lambda p: p.form == PromptForm.CONTENT):  # table shapes first
        key = (p.loc.path, p.loc.line)
        mine = {(p.loc.path, pl.line) for pl in p.lines}
        if key in seen or (p.form == PromptForm.CONTENT and mine <= lines):
            continue
        seen.add(key)
        lines |= mine
        out.append(p)
    return out


def _configured_prompt(
    res: Resolver, facts: dict[str, FileFacts], agent: Agent, roles: Roles, ids: set[str]
) -> list[Prompt]:
    assert agent.prompt_spec is not None
    source = roles.prompts[agent.prompt_spec]
    if not source.module:
        return list(facts[source.path].prompts) if source.path in facts else []
    value = res.lookup(source.path, source.key or "")
    return py_prompts(res, value, ids, PromptForm.ASSIGNMENT) if value is not None else []
