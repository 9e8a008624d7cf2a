"""Agent scoping (DESIGN §2 "Agents"): which rule set, prompt and guard files make one agent,
discovered from where the cards stand or given by `agents:` in the config."""

from __future__ import annotations

import os
import posixpath

from refusal_lint.config import Config
from refusal_lint.core.facts import FileFacts
from refusal_lint.core.filekinds import kind_of
from refusal_lint.core.kinds import FileKind, ProblemKind
from refusal_lint.core.model import Finding, Loc, RuleSet
from refusal_lint.static.bind.agent import Agent
from refusal_lint.static.bind.bound import Unclaimed
from refusal_lint.static.checks.files import RUN_WIDE
from refusal_lint.static.discover import walk as discover
from refusal_lint.static.discover.roles import Roles, config_relative, rel


def agents_of(
    root: str, cfg: Config, cards: list[RuleSet], facts: dict[str, FileFacts], roles: Roles
) -> tuple[list[Agent], list[Unclaimed]]:
    """The agents of the tree, and each file that no agent, or two, claim (RL004)."""
    if cfg.agents:
        return _configured_agents(cfg, root, cards, facts, roles), []
    unclaimed: list[Unclaimed] = []
    broken = _broken_card_files(facts)
    places = agent_roots([*(c.loc.path for c in cards), *broken])
    every = [*cards, *_broken_cards(cards, broken, places)]
    agents = _discovered_agents(root, every, facts, unclaimed, places)
    return [*agents, *(t for a in agents for t in _twins(a, cards, places))], unclaimed


def _twins(agent: Agent, cards: list[RuleSet], places: dict[str, str]) -> list[Agent]:
    """The other copies of an agent's card (exported to `.well-known/`, or kept at v0.3's
    `agent.json` too) that advertise other rules or reasons: each is checked against the
    same prompt and guards, as an agent of its own named after its card, so a stale copy
    is not merged away."""
    if agent.card is None or not agent.card.usable or len(agent.roots) == 0:
        return []
    own = _rules(agent.card)
    return [
        Agent(
            f"{agent.name} [{c.loc.path}]",
            agent.root,
            c,
            files=set(agent.files),
            roots=agent.roots,
            copy_of=agent.name,
        )
        for c in cards
        if c is not agent.card
        and c.usable
        and _rules(c) != own
        and _same_agent(c, agent.card, places)
        and any(places[c.loc.path] == r for r in agent.roots)
    ]


def _rules(card: RuleSet) -> set[tuple[str, str | None]]:
    return {(r.rule_id, r.reason) for r in card.rules}


def _broken_card_files(facts: dict[str, FileFacts]) -> list[str]:
    problems = {p: f.problem for p, f in facts.items()}
    return [p for p, b in sorted(problems.items()) if b and b.card and b.kind == ProblemKind.UNPARSABLE]


def _broken_cards(cards: list[RuleSet], broken: list[str], places: dict[str, str]) -> list[RuleSet]:
    """A card file no parser reads (RL002) still marks its agent's folder: its files are
    judged against no other agent's card (DESIGN §3: a card finding never cascades), and
    its guards against no card at all (RL001). Not where it stands above a card that reads
    (a card built in code and exported to `.well-known/`: the broken copy is that agent's)."""
    roots = [places[c.loc.path] for c in cards]
    out = []
    for path in broken:
        top = places[path]
        if not any(r == top or not top or r.startswith(top + "/") for r in roots):
            out.append(RuleSet(Loc(path), (), usable=False, broken=True))
    return out


def in_scope(path: str, agents: list[Agent], configured: bool) -> bool:
    """Is a prompt candidate's file under an agent's root (so its prompts can count)?"""
    if configured:
        return kind_of(path) == FileKind.PYTHON  # configured guard globs decide later
    return bool(owner(path, [a.root for a in agents]))


def claimed(path: str, agents: list[Agent]) -> bool:
    """Does an agent's root hold `path` (discovered agents: a card's root, or the roots that
    several cards of one agent share)? A file none holds is RL004 where it yields a fact."""
    return bool(owner(path, [root for a in agents for root in a.roots]))


def _same_agent(a: RuleSet, b: RuleSet, places: dict[str, str]) -> bool:
    """Two card sources of one agent: one's root holds the other's, and they have the same
    name or exactly the same rules. (Sibling agents never merge, whatever their names.)"""
    ra, rb = places[a.loc.path], places[b.loc.path]
    if not (ra == rb or not ra or not rb or rb.startswith(ra + "/") or ra.startswith(rb + "/")):
        return False
    if a.agent_name and b.agent_name and a.agent_name.strip().lower() == b.agent_name.strip().lower():
        return True
    return bool(a.rules) and _rules(a) == _rules(b)


def _discovered_agents(
    root: str,
    cards: list[RuleSet],
    facts: dict[str, FileFacts],
    unclaimed: list[Unclaimed],
    places: dict[str, str],
) -> list[Agent]:
    # A repo often holds one agent's card twice (built in code, and exported to
    # .well-known/): such cards make one agent, whose files are those under either root.
    groups: list[list[RuleSet]] = []
    for c in sorted(cards, key=lambda c: ("/.well-known/" not in "/" + c.loc.path, c.loc.path)):
        home = next((g for g in groups if any(_same_agent(c, other, places) for other in g)), None)
        if home is None:
            groups.append([c])
        else:
            home.append(c)
    agents = []
    root_of: dict[str, list[Agent]] = {}  # two agents' cards in one folder share it (RL004)
    for group in groups:
        primary = group[0]
        roots = sorted({places[c.loc.path] for c in group})
        top = roots[0] if len(roots) == 1 else posixpath.commonpath(roots) if all(roots) else ""
        name = primary.agent_name or (posixpath.basename(top) if top else os.path.basename(root)) or "agent"
        agent = Agent(name, top, primary, roots=tuple(roots))
        agents.append(agent)
        for r in roots:
            root_of.setdefault(r, []).append(agent)
    fact_paths = sorted(p for p, f in facts.items() if f.has_facts())
    if len(agents) <= 1:
        for a in agents:
            a.files = set(fact_paths) | set(_sites(facts))
        return agents

    def claim(path: str) -> list[Agent]:
        """The agents whose roots hold `path`, each once."""
        return list({id(a): a for r in owner(path, list(root_of)) for a in root_of[r]}.values())

    for path in _sites(facts):
        if len(claimed := claim(path)) == 1:
            claimed[0].files.add(path)
    for path in fact_paths:
        if len(claimed := claim(path)) == 1:
            claimed[0].files.add(path)
        elif not facts[path].claims():
            continue  # a shared pass-through helper: it serves every agent, and fires nothing itself
        else:
            unclaimed.append(Unclaimed(path, shared=bool(claimed)))
    return agents


def _sites(facts: dict[str, FileFacts]) -> list[str]:
    """Files holding only calls that may pass a helper an id (`block("seg-mix")`, the helper
    a shared module's): the agent that claims one fires what its calls pass, no other; a
    file no agent claims, or two, is still no RL004 for them."""
    return sorted(p for p, f in facts.items() if f.calls and not f.has_facts())


def _configured_agents(
    cfg: Config, root: str, cards: list[RuleSet], facts: dict[str, FileFacts], roles: Roles
) -> list[Agent]:
    agents = []
    fact_paths = sorted(p for p, f in facts.items() if f.has_facts())
    for a in cfg.agents:
        card_rel = rel(root, cfg.base, a.card) if a.card else ""
        card = next((c for c in cards if c.loc.path == card_rel), None)
        top = agent_roots([card_rel])[card_rel]
        agent = Agent(a.name, top, card, prompt_spec=a.prompt, card_path=card_rel)
        spec = discover.gitignore_spec(list(a.guards)) if a.guards else None
        for path in [*fact_paths, *_sites(facts)]:
            if path == card_rel or (spec is not None and spec.match_file(config_relative(root, cfg, path))):
                agent.files.add(path)
        agents.append(agent)
    return agents


def agent_for(f: Finding, card_agent: dict[Loc, str], agents: list[Agent]) -> str | None:
    if f.code in RUN_WIDE:
        return None
    for loc, name in card_agent.items():
        if loc.path == f.loc.path:
            return name
    for a in agents:
        if f.loc.path in a.files or f.loc.path == a.card_path:  # a configured card: missing too
            return a.name
    return None


def agent_roots(cards: list[str]) -> dict[str, str]:
    """Each card file's agent root: its folder, or the parent of .well-known/ (for a Python
    card, the innermost package holding it, which is its folder too). In a src layout
    (`packages/billing/src/billing/card.py`) it is the folder holding `src/`, as it is the
    one holding `.well-known/`: that is where the package's prompts and tests stand. Not
    where two cards in different folders would share it (two agents of one `src/`), lest
    neither own its files."""
    natural = {p: agent_root(p) for p in cards}
    lifted = {p: _above_src(r) for p, r in natural.items()}
    sharing: dict[str, set[str]] = {}
    for p, top in lifted.items():
        sharing.setdefault(top, set()).add(natural[p])
    return {p: lifted[p] if len(sharing[lifted[p]]) == 1 else natural[p] for p in cards}


def _above_src(root: str) -> str:
    parts = root.split("/")
    return "/".join(parts[: len(parts) - 1 - parts[::-1].index("src")]) if "src" in parts else root


def agent_root(path: str) -> str:
    """A card file's folder, or the parent of .well-known/."""
    folder = posixpath.dirname(path)
    parts = folder.split("/") if folder else []
    if ".well-known" in parts:
        return "/".join(parts[: parts.index(".well-known")])
    return folder


def owner(path: str, roots: list[str]) -> list[str]:
    """Roots that claim `path`: the nearest ancestors (several only on a tie)."""
    best: list[str] = []
    depth = -1
    for root in roots:
        if root == "" or path.startswith(root + "/"):
            d = len(root.split("/")) if root else 0
            if d > depth:
                best, depth = [root], d
            elif d == depth:
                best.append(root)
    return best
