"""discover -> extract -> bind -> check: one run of `refusal-lint check`, no output."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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
from refusal_lint.cache import PROMPT_ONLY, SKIP, Cache
from refusal_lint.cache import key as cache_key
from refusal_lint.checks import card as card_checks
from refusal_lint.checks import guards as guard_checks
from refusal_lint.checks import prompt as prompt_checks
from refusal_lint.config import AgentConfig, Config
from refusal_lint.errors import UsageError
from refusal_lint.extract.job import Job, ScanJob
from refusal_lint.facts import DictV, ExtDecl, FileFacts, Str
from refusal_lint.guardids import GuardIds
from refusal_lint.model import Card, Finding, Loc, Prompt
from refusal_lint.resolve import ModuleIndex, Resolver

if TYPE_CHECKING:
    from refusal_lint.workers import Pool

IMPORT_ROUNDS = 8
SCAN_FILES = 48  # a worker's batch of Python files to read and prefilter: small enough to share
SCAN_BYTES = 1 << 20  # the load between two workers, large enough that messages stay few


@dataclass
class Settings:
    select: frozenset[str]
    ignore: frozenset[str]
    use_cache: bool = True
    jobs: int = 1
    parse_timeout: float = 20.0


@dataclass
class Result:
    root: str
    findings: list[Finding]
    agents: list[Agent]
    files_scanned: int
    notes: list[str] = field(default_factory=list)
    facts_found: bool = False


@dataclass(frozen=True)
class _Roles:
    """What the config says files are: configured cards, prompts and guard globs (root-relative)."""

    cards: dict[str, AgentConfig]
    prompt_files: dict[str, str | None]  # path -> YAML key path ('' whole file) or None (text)
    prompt_modules: dict[str, str]  # module path -> constant name


def _root_of(paths: list[str]) -> str:
    dirs = [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in paths]
    return os.path.commonpath(dirs) if len(dirs) > 1 else dirs[0]


def _rel(root: str, base: str, path: str) -> str:
    return os.path.relpath(os.path.join(base, path), root).replace(os.sep, "/")


def _prompt_source(spec: str, cfg: Config, root: str) -> tuple[str, str, str | None]:
    """A configured `prompt:`: ("file", path, YAML key path or None) or ("module", path, NAME)."""
    if "#" in spec:
        f, key = spec.split("#", 1)
        return "file", _rel(root, cfg.base, f), key
    if ".py:" in spec:
        f, name = spec.rsplit(":", 1)
        return "module", _rel(root, cfg.base, f), name
    return "file", _rel(root, cfg.base, spec), "" if spec.endswith((".yaml", ".yml")) else None


def _roles(cfg: Config, root: str) -> _Roles:
    cards: dict[str, AgentConfig] = {}
    prompt_files: dict[str, str | None] = {}
    modules: dict[str, str] = {}
    for a in cfg.agents:
        if a.card:
            cards[_rel(root, cfg.base, a.card)] = a
        if a.prompt:
            kind, path, key = _prompt_source(a.prompt, cfg, root)
            if kind == "module":
                modules[path] = key or ""
            else:
                prompt_files[path] = key
    return _Roles(cards, prompt_files, modules)


class _Extraction:
    """Reads files and runs (or looks up) extraction jobs; keeps every file's facts by path."""

    def __init__(self, root: str, cfg: Config, settings: Settings, roles: _Roles) -> None:
        self.root = root
        self.cfg = cfg
        self.settings = settings
        self.roles = roles
        self.facts: dict[str, FileFacts] = {}
        self.notes: list[str] = []
        cache_dir = (cfg.base if cfg.source else root) if settings.use_cache else None
        self.cache = Cache(cache_dir)
        self.entries: dict[str, discover.Entry] = {}
        self.pending: dict[str, Job] = {}
        self.scan_context = ""
        self.pool: Pool | None = None
        self.prompt_only: list[discover.Entry] = []  # read only where a card makes prompts matter
        self.ids: tuple[str, ...] = ()

    def read(self, entry: discover.Entry, configured: bool) -> bytes | None:
        if entry.size > self.cfg.max_file_size and not configured:
            self.notes.append(
                f"{entry.rel}: skipped, {entry.size} bytes is over max-file-size ({self.cfg.max_file_size})"
            )
            return None
        try:
            with open(entry.abs, "rb") as fh:
                return fh.read()
        except OSError as exc:
            self.notes.append(f"{entry.rel}: cannot read ({exc.strerror or exc})")
            return None

    def changed(self, entries: list[discover.Entry], context: str) -> list[discover.Entry]:
        """The entries the cache cannot answer by size and mtime; the others get their facts."""
        out = []
        for entry in entries:
            verdict = self.cache.verdict(entry.rel, entry.size, entry.mtime_ns, context)
            if verdict == SKIP:
                continue
            if verdict == PROMPT_ONLY:
                self.prompt_only.append(entry)
                continue
            if verdict is not None and (facts := self.cache.facts_for(verdict)) is not None:
                self.facts[entry.rel] = facts
                continue
            out.append(entry)
        return out

    def decide(
        self,
        entries: list[discover.Entry],
        context: str,
        make: Callable[[discover.Entry, bytes], Job | str | None],
    ) -> None:
        """Submit a job for each entry that needs one; unchanged files are answered unread."""
        for entry in self.changed(entries, context):
            data = self.read(entry, entry.rel in self.roles.cards or entry.rel in self.roles.prompt_files)
            job = make(entry, data) if data is not None else None
            if not isinstance(job, Job):
                if data is not None:
                    verdict = PROMPT_ONLY if job == PROMPT_ONLY else SKIP
                    self.cache.remember(entry.rel, entry.size, entry.mtime_ns, context, verdict)
                    if verdict == PROMPT_ONLY:
                        self.prompt_only.append(entry)
                continue
            self.cache.remember(entry.rel, entry.size, entry.mtime_ns, context, cache_key(job))
            self.submit(job)

    def submit(self, job: Job) -> None:
        """Facts from the cache, from this process (data files, the ast pre-check), or a worker."""
        hit = self.cache.get(job)
        if hit is not None:
            self.facts[job.path] = hit
            return
        from refusal_lint.extract import run as extract_run  # YAML and JSON readers: only when needed

        if job.kind != "python":
            self.done(job, extract_run.extract(job))
            return
        # Python goes to the workers whole: the ast pre-check runs there too, in parallel.
        self.pending[job.path] = job
        self._pool().submit(job)

    def done(self, job: Job, facts: FileFacts) -> None:
        self.facts[job.path] = facts
        self.cache.put(job, facts)

    def scan(self, entries: list[discover.Entry], context: str, needles: tuple[bytes, ...]) -> None:
        """Python files: unchanged ones answered from the cache unread, the rest read,
        prefiltered and parsed by the workers in batches."""
        todo = self.changed(entries, context)
        if not todo:
            return
        configured = frozenset(self.roles.cards) | frozenset(self.roles.prompt_modules)
        known = frozenset(self.cache.entries)
        # Largest first: the heavy files start early and the last batches are quick ones,
        # so the workers finish together (results do not depend on the order).
        batches: list[list[tuple[str, str, int]]] = [[]]
        size = 0
        for entry in sorted(todo, key=lambda e: -e.size):
            if len(batches[-1]) >= SCAN_FILES or size >= SCAN_BYTES:
                batches.append([])
                size = 0
            batches[-1].append((entry.rel, entry.abs, entry.size))
            size += min(entry.size, self.cfg.max_file_size)
        for batch in batches:
            self._pool().submit(
                ScanJob(
                    files=tuple(batch),
                    needles=needles,
                    guard_callables=self.cfg.guard_callables,
                    max_file_size=self.cfg.max_file_size,
                    configured=configured,
                    known=known,
                    ids=self.ids,
                )
            )
        self.scan_context = context

    def _pool(self) -> Pool:
        if self.pool is None:
            from refusal_lint.workers import Pool

            self.pool = Pool(self.settings.jobs, self.settings.parse_timeout)
        return self.pool

    def drain(self) -> None:
        """Wait for the workers' facts."""
        if self.pool is None:
            return
        results = self.pool.finish()
        for path, facts in results.facts.items():
            job = self.pending.pop(path, None)
            if job is not None:
                self.done(job, facts)
            else:
                self.facts[path] = facts  # a crash or a hang inside a batch: not cached
        for path, key, found in results.scanned:
            entry = self.entries[path]
            if found is None:
                found = self.cache.facts_for(key)
                if found is None:
                    continue
            else:
                self.cache.put_key(key, found)
            self.facts[path] = found
            self.cache.remember(path, entry.size, entry.mtime_ns, self.scan_context, key)
        for path in results.skipped:
            entry = self.entries[path]
            self.cache.remember(path, entry.size, entry.mtime_ns, self.scan_context, SKIP)
        for path in results.prompt_only:
            entry = self.entries[path]
            self.cache.remember(path, entry.size, entry.mtime_ns, self.scan_context, PROMPT_ONLY)
            self.prompt_only.append(entry)
        self.notes.extend(results.notes)

    def read_prompts(self, entries: list[discover.Entry]) -> None:
        """The second stage: prompt candidates, now that a card makes them matter."""
        for entry in entries:
            data = self.read(entry, False)
            if data is None:
                continue
            kind = discover.kind_of(entry.rel) or "text"
            if kind == "python" and not discover.python_prompt_candidate(data):
                continue
            if kind == "python":
                self.submit(
                    Job(
                        entry.rel,
                        kind,
                        data,
                        prompts=True,
                        guard_callables=self.cfg.guard_callables,
                        ids=self.ids,
                    )
                )
            else:
                self.submit(Job(entry.rel, kind, data, want_prompt=True))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()

    def python_job(self, entry: discover.Entry, complete: bool) -> Job | None:
        data = self.read(entry, complete)
        if data is None:
            return None
        return Job(
            entry.rel,
            "python",
            data,
            complete=complete,
            guard_callables=self.cfg.guard_callables,
            ids=self.ids,
        )


def _context(*parts: object) -> str:
    """What, besides a file's bytes, decided whether it is read (config roles, needles)."""
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def _data_job(entry: discover.Entry, data: bytes, cfg: Config, roles: _Roles) -> Job | str | None:
    kind = discover.kind_of(entry.rel)
    if kind is None:
        return None
    name = posixpath.basename(entry.rel)
    want_card = entry.rel in roles.cards or (
        not cfg.agents and kind != "text" and discover.is_card_candidate(name, entry.rel, data)
    )
    want_prompt = entry.rel in roles.prompt_files or (
        not cfg.agents and discover.is_prompt_file(entry.rel, kind, data)
    )
    if (kind == "text" and want_prompt) or (kind != "text" and (want_card or want_prompt)):
        return Job(entry.rel, kind, data, want_card, want_prompt, roles.prompt_files.get(entry.rel))
    if kind != "text" and not cfg.agents and discover.data_prompt_candidate(data):
        return PROMPT_ONLY  # strings under prompt keys, in any config of an agent's scope
    return None


def run(paths: list[str], cfg: Config, settings: Settings) -> Result:
    for p in paths:
        if not os.path.exists(p):
            raise UsageError(f"{p}: no such file or folder")
    root = _root_of(paths)
    roles = _roles(cfg, root)
    exclude_base = cfg.base if cfg.source else root
    walk = discover.walk(root, paths, list(cfg.exclude), exclude_base)
    ex = _Extraction(root, cfg, settings, roles)
    try:
        return _run(ex, walk, root, cfg, settings, roles)
    finally:
        ex.close()


def _run(
    ex: _Extraction, walk: discover.Walk, root: str, cfg: Config, settings: Settings, roles: _Roles
) -> Result:
    ex.notes.extend(walk.skipped)
    ex.entries = {e.rel: e for e in walk.files}

    # Phase 1: data and text files (cheap, in this process); their rule ids sharpen the
    # Python prefilter of phase 2.
    data_ctx = _context("data", sorted(roles.cards), sorted(roles.prompt_files.items()), bool(cfg.agents))
    py_entries = [e for e in walk.files if discover.kind_of(e.rel) == "python"]
    ex.decide(
        [e for e in walk.files if discover.kind_of(e.rel) != "python"],
        data_ctx,
        lambda e, d: _data_job(e, d, cfg, roles),
    )
    ex.ids = tuple(sorted({d.key for f in ex.facts.values() for e in f.exts for d in e.items}))
    needles = tuple(
        sorted(
            {d.key.encode() for f in ex.facts.values() for e in f.exts for d in e.items if len(d.key) > 2}
            | {g.rsplit(".", 1)[-1].encode() for g in cfg.guard_callables}
        )
    )
    py_ctx = _context(
        "py",
        [n.decode() for n in needles],
        list(ex.ids),
        list(cfg.guard_callables),
        sorted(roles.cards),
        sorted(roles.prompt_modules),
    )

    ex.scan(py_entries, py_ctx, needles)
    ex.drain()
    index = ModuleIndex(e.rel for e in py_entries)
    result = _bind(ex, root, cfg, index, roles)
    # Prompt candidates matter only inside an agent's scope: a tree with no card never
    # reads them (DESIGN §2; issue: work is scoped by what can yield a finding).
    if result.agents and ex.prompt_only:
        ex.read_prompts([e for e in ex.prompt_only if _in_scope(e, result.agents, cfg)])
        ex.drain()
        result = _bind(ex, root, cfg, index, roles)
    ex.cache.save()
    result.files_scanned = len(walk.files)
    result.notes = ex.notes
    result.findings = _filter(_file_columns(result.findings, root), ex.facts, cfg, settings, root)
    return result


def _in_scope(entry: discover.Entry, agents: list[Agent], cfg: Config) -> bool:
    """Does a prompt candidate's file belong to an agent (so its prompts can count)?"""
    if cfg.agents:
        return discover.kind_of(entry.rel) == "python"  # configured guard globs decide later
    if len(agents) == 1:
        return True
    return bool(owner(entry.rel, [a.root for a in agents]))


def _bind(ex: _Extraction, root: str, cfg: Config, index: ModuleIndex, roles: _Roles) -> Result:
    """Bind and check; modules that facts import are read on demand, even where the
    prefilter passed them over: bind, read what the resolver found missing, bind again."""
    tried: set[str] = set()
    for _ in range(IMPORT_ROUNDS):
        result, missing = _check(root, cfg, ex.facts, index, roles)
        need = [
            j
            for m in sorted(missing - tried)
            if m in ex.entries and (j := ex.python_job(ex.entries[m], True))
        ]
        tried |= missing
        if not need:
            break
        for job in need:
            ex.submit(job)
        ex.drain()
    return result


def _file_columns(findings: list[Finding], root: str) -> list[Finding]:
    """RL202/RL203 in a YAML or Python prompt: the column where the id stands in the file.

    Checks see a prompt line as text (dedented, unquoted), so their column is the one in
    that text; the file's own line says where the id really is."""
    lines: dict[str, list[str]] = {}
    out = []
    for f in findings:
        if (
            f.code in ("RL202", "RL203")
            and f.rule_id
            and f.loc.path.endswith((".py", ".pyi", ".yaml", ".yml", ".json"))
        ):
            if f.loc.path not in lines:
                try:
                    with open(os.path.join(root, f.loc.path), encoding="utf-8-sig", errors="replace") as fh:
                        lines[f.loc.path] = fh.read().splitlines()
                except OSError:
                    lines[f.loc.path] = []
            source = lines[f.loc.path]
            if 0 < f.loc.line <= len(source):
                m = re.search(r"(?<![\w-])" + re.escape(f.rule_id) + r"(?![\w-])", source[f.loc.line - 1])
                if m is not None:
                    loc = Loc(f.loc.path, f.loc.line, m.start() + 1, f.loc.line, m.end() + 1)
                    f = dataclasses.replace(f, loc=loc)
        out.append(f)
    return out


# ---- binding and checking ---------------------------------------------------------------


def _check(
    root: str, cfg: Config, facts: dict[str, FileFacts], index: ModuleIndex, roles: _Roles
) -> tuple[Result, set[str]]:
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
    for rel in roles.cards:
        if rel not in facts:
            findings.append(Finding("RL100", Loc(rel), f"configured card `{rel}` not found"))

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
    return Result(root, findings, agents, 0, facts_found=facts_found), res.missing


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
    cfg: Config, root: str, cards: list[Card], facts: dict[str, FileFacts], roles: _Roles
) -> list[Agent]:
    agents = []
    fact_paths = sorted(p for p, f in facts.items() if f.has_facts())
    for a in cfg.agents:
        card_rel = _rel(root, cfg.base, a.card) if a.card else ""
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
    kind, path, key = _prompt_source(agent.prompt_spec, cfg, root)
    if kind == "file":
        return list(facts[path].prompts) if path in facts else []
    value = res.lookup(path, key or "")
    return py_prompts(res, value, ids, "assignment") if value is not None else []


# ---- selection, per-file ignores, suppressions -----------------------------------------------


def _filter(
    findings: list[Finding], facts: dict[str, FileFacts], cfg: Config, settings: Settings, root: str
) -> list[Finding]:
    kept = [f for f in findings if f.code in settings.select and f.code not in settings.ignore]
    if cfg.per_file_ignores:
        specs = [(discover.gitignore_spec([glob]), codes) for glob, codes in cfg.per_file_ignores]
        base = cfg.base if cfg.source else root

        def ignored(f: Finding) -> bool:
            sub = os.path.relpath(os.path.join(root, f.loc.path), base).replace(os.sep, "/")
            return any(f.code in codes and spec.match_file(sub) for spec, codes in specs)

        kept = [f for f in kept if not ignored(f)]
    used: set[tuple[str, int]] = set()
    out = []
    sup = {(p, s.line): s for p, f in facts.items() for s in f.suppressions}
    for f in kept:
        # The comment may end any line of the finding's span (a call written over several lines).
        lines = range(f.loc.line, max(f.loc.line, f.loc.end_line) + 1)
        hit = next(
            (ln for ln in lines if (s := sup.get((f.loc.path, ln))) and (not s.codes or f.code in s.codes)),
            None,
        )
        if hit is not None:
            used.add((f.loc.path, hit))
            continue
        out.append(f)
    if "RL003" in settings.select and "RL003" not in settings.ignore:
        for (path, line), s in sorted(sup.items()):
            if (path, line) not in used:
                what = f"[{','.join(s.codes)}]" if s.codes else ""
                out.append(Finding("RL003", s.loc, f"unused suppression `refusal-lint: ignore{what}`"))
    return sorted(out, key=Finding.sort_key)
