"""Bind every file's facts into agents and check each agent: which card, prompt and guards
belong together (agent scoping, DESIGN §2 "Agents"), then the card, prompt and guard checks.

Imported only when some file yielded facts: a tree with none never loads the binder.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath

from refusal_lint import discover
from refusal_lint.bind import (
    Agent,
    BoundError,
    BoundGuard,
    agent_root,
    bind_error,
    bind_guard,
    owner,
    py_ext_decl,
    py_prompts,
)
from refusal_lint.checks import card as card_checks
from refusal_lint.checks import guards as guard_checks
from refusal_lint.checks import prompt as prompt_checks
from refusal_lint.config import Config
from refusal_lint.facts import DictV, ExtDecl, FileFacts, Str
from refusal_lint.guardids import GuardIds
from refusal_lint.model import Card, Finding, Loc, Prompt, PromptForm
from refusal_lint.resolve import ModuleIndex, Resolver
from refusal_lint.roles import Roles, prompt_source, rel


@dataclasses.dataclass
class Checked:
    findings: list[Finding]
    agents: list[Agent]
    facts_found: bool


def check(
    root: str, cfg: Config, facts: dict[str, FileFacts], index: ModuleIndex, roles: Roles
) -> tuple[Checked, set[str]]:
    """Findings and agents of the tree; the modules binding wanted but that were not read."""
    res = Resolver(facts, index)
    guard_ids = GuardIds(res, facts.values())
    decls: list[ExtDecl] = []
    for path in sorted(facts):
        f = facts[path]
        decls.extend(f.exts)
        decls.extend(d for ext in f.py_exts if (d := py_ext_decl(res, ext)) is not None)
    findings, cards = card_checks.check_decls(decls)
    for path in sorted(facts):
        problem = facts[path].problem
        if problem is not None:
            code = "RL100" if path in roles.cards and problem.code == "RL002" else problem.code
            findings.append(Finding(code, problem.loc, problem.message))
    for card_path in roles.cards:
        if card_path not in facts:
            findings.append(Finding("RL100", Loc(card_path), f"configured card `{card_path}` not found"))

    params_ids = {c.params_id for c in cards if c.params_id}
    agents = (
        _configured_agents(cfg, root, cards, facts, roles)
        if cfg.agents
        else _discovered_agents(root, cards, facts, findings)
    )
    fact_paths = [p for p, f in facts.items() if f.has_facts()]
    for agent in agents:
        ids = {agent.card.params_id} if agent.card and agent.card.params_id else set()
        # A prompt fed from the params map, or from a module's copy of it (same rule ids), is derived.
        maps = ids | (_copies_of(res, agent.card) if agent.card else set())
        if agent.prompt_spec is None:
            agent.prompts = _prompts(res, facts, agent.files, maps)
        else:
            agent.prompts = _configured_prompt(res, facts, agent, cfg, root, maps)
        for path in sorted(agent.files):
            for g in facts[path].guards:
                agent.guards.extend(bind_guard(res, guard_ids, g, ids))
            for e in facts[path].errors:
                agent.errors.extend(bind_error(res, guard_ids, e, params_ids))
        agent.guards = _unique(agent.guards)
        found = (
            prompt_checks.check(agent.card, agent.prompts, agent.prompt_spec, agent.root)
            if agent.card
            else []
        )
        if agent.card is not None and agent.card.usable:
            # No card, or unusable params (RL100, RL103, RL104): the agent's RL2xx/RL3xx are skipped.
            found += guard_checks.check(agent.card, agent.guards, agent.errors)
        findings.extend(dataclasses.replace(f, agent=agent.name) for f in found)
    if not agents:
        guards: list[BoundGuard] = []
        errors: list[BoundError] = []
        for path in sorted(fact_paths):
            guards += [bg for g in facts[path].guards for bg in bind_guard(res, guard_ids, g, set())]
            errors += [be for e in facts[path].errors for be in bind_error(res, guard_ids, e, set())]
        if not roles.cards:  # a configured card that is missing or unreadable is RL100 alone
            findings += guard_checks.check_cardless(guards)
        findings += guard_checks.check(None, guards, errors)
    card_agent = {a.card.loc: a.name for a in agents if a.card}
    # One fault, one finding: a guard call and the payload inside its repo callee may both
    # resolve to the same call site.
    findings = list(dict.fromkeys(findings))
    findings = [dataclasses.replace(f, agent=f.agent or _agent_for(f, card_agent, agents)) for f in findings]
    facts_found = (
        bool(cards)
        or any(f.guards or f.errors for f in facts.values())
        or any(f.code in ("RL002", "RL100") for f in findings)
    )
    return Checked(findings, agents, facts_found), res.missing


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


def _copies_of(res: Resolver, card: Card) -> set[str]:
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


def _agent_for(f: Finding, card_agent: dict[Loc, str], agents: list[Agent]) -> str | None:
    if f.code in ("RL002", "RL003", "RL004"):
        return None
    for loc, name in card_agent.items():
        if loc.path == f.loc.path:
            return name
    for a in agents:
        if f.loc.path in a.files:
            return a.name
    return None


def _same_agent(a: Card, b: Card) -> bool:
    """Two card sources of one agent: one's root holds the other's, and they have the same
    name or exactly the same rules. (Sibling agents never merge, whatever their names.)"""
    ra, rb = agent_root(a.loc.path), agent_root(b.loc.path)
    if not (ra == rb or not ra or not rb or rb.startswith(ra + "/") or ra.startswith(rb + "/")):
        return False
    if a.agent_name and b.agent_name and a.agent_name.strip().lower() == b.agent_name.strip().lower():
        return True
    return bool(a.rules) and {(r.rule_id, r.reason) for r in a.rules} == {
        (r.rule_id, r.reason) for r in b.rules
    }


def _discovered_agents(
    root: str, cards: list[Card], facts: dict[str, FileFacts], findings: list[Finding]
) -> list[Agent]:
    # A repo often holds one agent's card twice (built in code, and exported to
    # .well-known/): such cards make one agent, whose files are those under either root.
    groups: list[list[Card]] = []
    for c in sorted(cards, key=lambda c: ("/.well-known/" not in "/" + c.loc.path, c.loc.path)):
        home = next((g for g in groups if any(_same_agent(c, other) for other in g)), None)
        if home is None:
            groups.append([c])
        else:
            home.append(c)
    agents = []
    root_of: dict[str, Agent] = {}
    for group in groups:
        primary = group[0]
        roots = sorted({agent_root(c.loc.path) for c in group})
        top = roots[0] if len(roots) == 1 else posixpath.commonpath(roots) if all(roots) else ""
        name = primary.agent_name or (posixpath.basename(top) if top else os.path.basename(root)) or "agent"
        agent = Agent(name, top, primary)
        agents.append(agent)
        for r in roots:
            root_of.setdefault(r, agent)
    fact_paths = sorted(p for p, f in facts.items() if f.has_facts())
    if len(agents) <= 1:
        for a in agents:
            a.files = set(fact_paths)
        return agents
    for path in fact_paths:
        claim = {id(root_of[r]): root_of[r] for r in owner(path, list(root_of))}
        if len(claim) == 1:
            next(iter(claim.values())).files.add(path)
        elif not facts[path].claims():
            continue  # a shared pass-through helper: it serves every agent, and fires nothing itself
        else:
            findings.append(
                Finding(
                    "RL004",
                    Loc(path),
                    (
                        "this file belongs to two agents equally: their cards share its folder"
                        if claim
                        else "this file belongs to no agent: several cards were found and none is above it"
                    )
                    + "; say which agent it belongs to with `agents:` in the config (`guards:` globs)",
                )
            )
    return agents


def _configured_agents(
    cfg: Config, root: str, cards: list[Card], facts: dict[str, FileFacts], roles: Roles
) -> list[Agent]:
    agents = []
    fact_paths = sorted(p for p, f in facts.items() if f.has_facts())
    for a in cfg.agents:
        card_rel = rel(root, cfg.base, a.card) if a.card else ""
        card = next((c for c in cards if c.loc.path == card_rel), None)
        agent = Agent(a.name, posixpath.dirname(card_rel), card, prompt_spec=a.prompt)
        spec = discover.gitignore_spec(list(a.guards)) if a.guards else None
        for path in fact_paths:
            sub = os.path.relpath(os.path.join(root, path), cfg.base).replace(os.sep, "/")
            if path == card_rel or (spec is not None and spec.match_file(sub)):
                agent.files.add(path)
        agents.append(agent)
    return agents


def _prompts(res: Resolver, facts: dict[str, FileFacts], files: set[str], ids: set[str]) -> list[Prompt]:
    out: list[Prompt] = []
    seen: set[tuple[str, int]] = set()
    for path in sorted(files):
        f = facts[path]
        candidates = list(f.prompts)
        candidates += [p for pp in f.py_prompts for p in py_prompts(res, pp.value, ids, pp.form)]
        for p in candidates:
            key = (p.loc.path, p.loc.line)
            if key not in seen:
                seen.add(key)
                out.append(p)
    return out


def _configured_prompt(
    res: Resolver, facts: dict[str, FileFacts], agent: Agent, cfg: Config, root: str, ids: set[str]
) -> list[Prompt]:
    assert agent.prompt_spec is not None
    kind, path, key = prompt_source(agent.prompt_spec, cfg, root)
    if kind == "file":
        return list(facts[path].prompts) if path in facts else []
    value = res.lookup(path, key or "")
    return py_prompts(res, value, ids, PromptForm.ASSIGNMENT) if value is not None else []
