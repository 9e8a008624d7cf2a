"""discover -> extract -> bind -> check: one run of `refusal-lint check`, no output."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, TypeGuard

from refusal_lint.config import Config
from refusal_lint.core.errors import UsageError
from refusal_lint.core.filekinds import kind_of, prompt_by_name
from refusal_lint.core.kinds import FileKind
from refusal_lint.core.nogc import no_gc
from refusal_lint.static import memo, ondemand
from refusal_lint.static.discover.projects import Owners, Wanted, names_its_files, python_scope
from refusal_lint.static.discover.roles import Roles, roles_of
from refusal_lint.static.discover.roots import own_name, project_of
from refusal_lint.static.settings import Settings

if TYPE_CHECKING:
    from refusal_lint.core.model import Finding
    from refusal_lint.static.bind.agent import Agent
    from refusal_lint.static.bind.bound import Bound
    from refusal_lint.static.bind.modules import ModuleIndex
    from refusal_lint.static.discover import walk as discover
    from refusal_lint.static.schedule import Extraction

__all__ = ["Result", "Settings", "run"]


@dataclass
class Result:
    root: str
    findings: list[Finding]
    agents: list[Agent]
    files_scanned: int
    notes: list[str] = field(default_factory=list)
    facts_found: bool = False
    unfixable: list[str] = field(default_factory=list)  # the edits --fix would refuse, and why


def _root_of(paths: list[str]) -> str:
    dirs = [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in paths]
    return os.path.commonpath(dirs) if len(dirs) > 1 else dirs[0]


def _targets(paths: list[str], cfg: Config) -> tuple[list[str], str, Wanted | None]:
    """What is walked, from where, and (for files, and folders that name theirs) which
    files' agents are wanted."""
    within = [p for p in paths if os.path.isdir(p) and names_its_files(p, cfg)]
    whole = [p for p in paths if os.path.isdir(p) and p not in within]
    files = [own_name(p, cfg) for p in paths if not os.path.isdir(p)]
    if not files and not within:
        return whole, _root_of(whole), None
    targets = whole + sorted({project_of(p, cfg) for p in (*files, *within)})
    root = _root_of(targets)

    def rel(given: list[str]) -> tuple[str, ...]:
        return tuple(os.path.relpath(os.path.abspath(p), root).replace(os.sep, "/") for p in given)

    return targets, root, Wanted(rel(files), rel(whole), rel(within))


def run(paths: list[str], cfg: Config, settings: Settings) -> Result:
    """Check PATHs: folders whole, files by their agents (DESIGN §1). Paths in the result are
    relative to `Result.root`; reporters show them relative to the current folder."""
    with no_gc():  # a run's facts and cache notes hold no cycle (core/nogc.py)
        return _checked(paths, cfg, settings)


def _checked(paths: list[str], cfg: Config, settings: Settings) -> Result:
    for p in paths:
        if not settings.contents.exists(p):
            raise UsageError(f"{p}: no such file or folder")
    targets, root, wanted = _targets(paths, cfg)
    recorded = None
    if settings.baseline is not None:
        from refusal_lint.static import baseline

        # A bad file stops the run before any work; its paths are the project's (config's
        # folder, else the git work tree's top: the same entries from any folder of it).
        recorded = baseline.rebased(baseline.load(settings.baseline), project_of(root, cfg), root)
    roles = roles_of(cfg, root)
    exclude_base = cfg.base if cfg.source else root
    walk = settings.contents.walk(root, targets, list(cfg.exclude), exclude_base)
    wanted = wanted.naming(e.rel for e in walk.files).taken(walk.files, root) if wanted is not None else None
    run_key = memo.key(root, targets, exclude_base, cfg, settings, walk) if wanted is None else None
    kept = memo.load(exclude_base, run_key) if run_key is not None else None
    if _whole(kept):
        result, owners = kept, None
    else:
        # The stages are imported only for a run worked out (a kept one is answered without).
        from refusal_lint.static.schedule import Extraction

        ex = Extraction(root, cfg, settings, roles)
        ex.waiting = partial(ondemand.waiting, ex)
        try:
            result, owners = _run(ex, walk, root, cfg, settings, roles, wanted)
        finally:
            ex.close()
        failed = ex.pool is not None and ex.pool.failed
        if run_key is not None and not failed and not any(f.unchecked() for f in ex.facts.values()):
            memo.save(exclude_base, run_key, result)  # the cache's folder
    if owners is not None:
        result.findings = owners.findings(result.findings)
        owning = {id(a) for a in owners.owning}
        result.agents = [a for a in result.agents if id(a) in owning or _in_folders(wanted, a.root)]
        if recorded is not None:
            recorded = [e for e in recorded if owners.keeps(e.path)]  # other agents' entries are not stale
    result.notes = [*result.notes, *_unread_params(result.agents)]  # a kept result's are not kept
    if recorded is not None and settings.baseline is not None:
        from refusal_lint.static import filter as filtering

        result.findings = filtering.unrecorded(result.findings, recorded, settings.baseline, settings, root)
    if any(f.edit is not None for f in result.findings):
        from refusal_lint.static import fix

        result.findings, result.unfixable = fix.fixable(result.findings, root, settings.contents.read)
    return result


def _whole(kept: object) -> TypeGuard[Result]:
    """A kept result that is one, as far down as a report reads (a file edited by hand)."""
    from refusal_lint.core.model import Finding
    from refusal_lint.static.bind.agent import Agent

    return (
        isinstance(kept, Result)
        and all(isinstance(f, Finding) for f in kept.findings)
        and all(isinstance(a, Agent) for a in kept.agents)
    )


def _in_folders(wanted: Wanted | None, path: str) -> bool:
    return wanted is not None and wanted.in_folders(path)


def _run(
    ex: Extraction,
    walk: discover.Walk,
    root: str,
    cfg: Config,
    settings: Settings,
    roles: Roles,
    wanted: Wanted | None = None,
) -> tuple[Result, Owners | None]:
    from refusal_lint.static import filter as filtering

    ex.notes.extend(walk.skipped)
    ex.entries = {e.rel: e for e in walk.files}
    py_entries = [e for e in walk.files if kind_of(e.rel) == FileKind.PYTHON]
    ex.read_data([e for e in walk.files if kind_of(e.rel) != FileKind.PYTHON])
    scope = py_entries if wanted is None else python_scope(wanted, ex.facts, py_entries, cfg, roles, root)
    ex.read_python(scope)
    binder = _Binder(ex, root, cfg, roles, [e.rel for e in py_entries])
    if ex.deferred and not settings.exhaustive:
        ondemand.read_callees_ahead(ex, binder.index)
    if ex.ids and ex.prompt_only and not settings.exhaustive:
        # The prompt stage's likely reads and text questions, started while binding runs.
        ondemand.read_ahead(ex)
        ex.meanwhile = ondemand.warming(ex, list(ex.prompt_only), ex.ids, binder.index)
    bound = binder.bind()
    if len(scope) < len(py_entries) and (bound is None or len(bound.agents) < 2):
        # The cards made one agent after all, which owns every file of the tree: read the rest.
        read = {e.rel for e in scope}
        ex.read_python([e for e in py_entries if e.rel not in read])
        scope = py_entries
        bound = binder.bind()
    ids = bound.rule_ids if bound else ()
    if not set(ids) <= set(ex.ids):
        # A card built in Python: its ids were not known when Python was first read, and a
        # file that mentions them may hold a guard passing one, or a prompt by its content.
        ex.ids = tuple(sorted({*ex.ids, *ids}))
        ex.read_python(scope)
        bound = binder.bind()
    if ex.deferred:
        bound = _settle(ex, bound, binder, wanted is None)
    if bound is not None and bound.agents and ex.prompt_only:
        bound = _prompt_stage(ex, bound, binder)
    # A file read by two stages (the scan, then the prompt stage) is noted once.
    result = Result(root, [], [], len(walk.files), list(dict.fromkeys(ex.notes)))
    if bound is not None:
        from refusal_lint.static.bind import agents

        checked = agents.check(bound, ex.facts, roles, frozenset(ex.entries))
        result.findings, result.agents = checked.findings, checked.agents
        result.facts_found = checked.facts_found
    unchecked = frozenset(p for a in result.agents if not a.checked for p in a.files)
    result.findings = filtering.select_and_suppress(result.findings, ex.facts, cfg, settings, root, unchecked)
    ex.cache.save()
    owners = Owners(wanted, result.agents, roles, cfg, root) if wanted is not None else None
    return result, owners


def _unread_params(agents: list[Agent]) -> list[str]:
    """An agent whose card's params are computed at run time (`json.loads(...)`, `load_rules()`)
    has no rules to check, which no finding says (DESIGN names none for it): a note does, so
    that "All checks passed!" is not taken for an agreement checked. Of the agents reported."""
    return [
        f"{at.path}:{at.line}: the refusals extension's params are computed at run time; "
        "its rules are not checked (write them as a dict literal or a module-level name)"
        for a in agents
        if a.card is not None and (at := a.card.computed) is not None
    ]


def _settle(ex: Extraction, bound: Bound | None, binder: _Binder, whole: bool) -> Bound | None:
    """Deferred files (gate/deferred.py): parsed where binding says they may hold a fact,
    settled as holding nothing where it says not; then bound again."""
    for rel in ondemand.settle(ex, bound, binder.cfg, binder.index, whole):
        job = ex.python_job(ex.entries[rel], False)
        if job is not None:
            ex.submit(job)
    ex.drain()
    return binder.bind()


PROMPT_CHUNK = 8  # files read at a time while looking for an agent's first prompt candidate


def _prompt_stage(ex: Extraction, bound: Bound, binder: _Binder) -> Bound:
    """Prompt candidates, now that a card makes them matter (DESIGN §2 "What is read").

    An agent's scope counts; beside several discovered agents, so does a file no agent's
    root holds, which is RL004 if it yields a candidate that counts. A file is parsed when
    its text, or that of a module it imports, can hold what a finding reads (relevance.py);
    in an agent's scope, the rest can only say that *some* candidate exists (RL200 against
    RL201), so they are read in order, near the card first, up to the first candidate.
    REFUSAL_LINT_EXHAUSTIVE=1 reads them all: the output is the same."""
    from refusal_lint.static.bind.agents import has_counted, prompt_order
    from refusal_lint.static.bind.scoping import in_scope
    from refusal_lint.static.gate.relevance import of

    cfg = binder.cfg
    ex.meanwhile = None  # what it asked ahead is asked now
    single = len(bound.agents) == 1 and not cfg.agents
    eligible = [
        e
        for e in ex.prompt_only
        if single
        or in_scope(e.rel, bound.agents, bool(cfg.agents))
        or (not cfg.agents and prompt_by_name(e.rel))
    ]
    # A file no agent's root holds is RL004 where it yields a candidate that counts: read
    # where its text can make one count, as an agent's own files are.
    listed = {e.rel for e in eligible}
    unowned = _unowned(ex, bound) if not single and not cfg.agents else []
    asked = eligible + [e for e in unowned if e.rel not in listed]
    if ex.settings.exhaustive:
        ex.card_ids = bound.rule_ids
        ex.read_prompts(asked, content=True)
        return binder.bind() or bound
    relevance = of(bound.rule_ids)
    strong, weak = ondemand.relevant(ex, asked, relevance, binder.index)
    ex.read_prompts([e for e in asked if e.rel in strong], content=True)
    ex.read_prompts([e for e in asked if e.rel in weak])
    read = strong | weak
    bound = binder.bind() or bound
    for i in range(len(bound.agents)):
        agent = bound.agents[i]
        # Without rules too: `agents[].prompts` names the first candidate found (DESIGN §2).
        if agent.prompt_spec is not None or has_counted(agent):
            continue
        rest = sorted((e for e in eligible if e.rel not in read), key=lambda e: prompt_order(agent, e.rel))
        while rest and not (
            agent.prompts
            and prompt_order(agent, agent.prompts[0].loc.path) < prompt_order(agent, rest[0].rel)
        ):
            chunk, rest = rest[:PROMPT_CHUNK], rest[PROMPT_CHUNK:]
            ex.read_prompts(chunk)
            read.update(e.rel for e in chunk)
            bound = binder.bind() or bound
            agent = bound.agents[i]
    return bound


def _unowned(ex: Extraction, bound: Bound) -> list[discover.Entry]:
    """Several discovered agents: the prompt-only files no agent's root holds (RL004 where
    one yields a candidate that counts: agents.py's `_yields_fact`)."""
    from refusal_lint.static.bind.scoping import claimed

    return [e for e in ex.prompt_only if not claimed(e.rel, bound.agents)]


class _Binder:
    """Binding over the facts read so far. Modules that facts import, files that call a
    helper binding follows, and files that define a method binding looked up by name, are
    read on demand, even where the prefilter passed them over: bind, read what binding found
    missing, bind again."""

    def __init__(self, ex: Extraction, root: str, cfg: Config, roles: Roles, py_paths: list[str]) -> None:
        self.ex, self.root, self.cfg, self.roles, self.py_paths = ex, root, cfg, roles, py_paths
        self._index: ModuleIndex | None = None

    @property
    def index(self) -> ModuleIndex:
        if self._index is None:
            from refusal_lint.static.bind.modules import ModuleIndex

            self._index = ModuleIndex(self.py_paths, self.ex.prefix)
        return self._index

    def bind(self) -> Bound | None:
        """The tree bound; None where no file yielded anything and no config names a file."""
        ex, cfg, py_paths = self.ex, self.cfg, self.py_paths
        if not (
            cfg.agents
            or self.roles.cards
            or any(f.has_facts() or (f.problem and f.problem.needed) for f in ex.facts.values())
        ):
            return None
        from refusal_lint.static.bind import agents

        tried: set[str] = set()
        # Until no module binding reaches is unread: each round reads one it had not tried,
        # so it ends; a fixed number of rounds would cut a long re-export chain short, which
        # the exhaustive reading follows to its end (a mode difference).
        while True:
            bound = agents.bind(self.root, cfg, ex.facts, self.index, self.roles)
            wanted = (
                bound.missing
                | ondemand.callers(ex, bound.helpers | bound.constructed, py_paths)
                | ondemand.definers(ex, bound, py_paths)
            )
            need = [
                j
                for m in sorted(wanted - tried)
                if m in ex.entries and (j := ex.python_job(ex.entries[m], True))
            ]
            tried |= wanted
            if not need:
                break
            for job in need:
                ex.submit(job)
            ex.drain()
        return bound
