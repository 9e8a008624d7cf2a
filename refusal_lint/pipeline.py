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
from refusal_lint.cache import PROMPT_ONLY, SKIP, Cache
from refusal_lint.cache import key as cache_key
from refusal_lint.config import Config
from refusal_lint.errors import UsageError
from refusal_lint.extract.job import Job, ScanJob
from refusal_lint.filekinds import FileKind, kind_of
from refusal_lint.roles import Roles, roles_of

if TYPE_CHECKING:
    from refusal_lint.bind import Agent
    from refusal_lint.facts import FileFacts
    from refusal_lint.model import Finding
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
    # Every shortcut off (REFUSAL_LINT_EXHAUSTIVE=1, for tests): no prefilter or pre-check
    # decides, every file is read for everything. Findings must not change.
    exhaustive: bool = False
    baseline: str | None = None  # a baseline file whose findings are hidden (--baseline, `baseline:`)


@dataclass
class Result:
    root: str
    findings: list[Finding]
    agents: list[Agent]
    files_scanned: int
    notes: list[str] = field(default_factory=list)
    facts_found: bool = False


class _Extraction:
    """Reads files and runs (or looks up) extraction jobs; keeps every file's facts by path."""

    def __init__(self, root: str, cfg: Config, settings: Settings, roles: Roles) -> None:
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
        by_name: Callable[[discover.Entry], bool] = lambda e: True,
    ) -> None:
        """Submit a job for each entry that needs one; unchanged files are answered unread,
        and so are those `by_name` rules out before their bytes matter."""
        for entry in self.changed(entries, context):
            if not by_name(entry):
                self.cache.remember(entry.rel, entry.size, entry.mtime_ns, context, SKIP)
                continue
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
            found = self.facts.get(entry.rel)
            if (
                found is not None
                and not found.has_facts()
                and found.problem is None
                and not found.suppressions
            ):
                # A card candidate that holds none: remembered as passed over (see drain).
                del self.facts[entry.rel]
                self.cache.remember(entry.rel, entry.size, entry.mtime_ns, context, SKIP)

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
                    exhaustive=self.settings.exhaustive,
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
            if found is not None and not found.complete and found.problem is None and not found.suppressions:
                # The pre-check proved it holds nothing: remembered as passed over, so a warm
                # run neither decodes it nor loads the fact model for it.
                self.cache.remember(path, entry.size, entry.mtime_ns, self.scan_context, SKIP)
                continue
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
            kind = kind_of(entry.rel) or "text"
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


def _data_job(
    entry: discover.Entry, data: bytes, cfg: Config, roles: Roles, exhaustive: bool = False
) -> Job | str | None:
    kind = kind_of(entry.rel)
    if kind is None:
        return None
    name = posixpath.basename(entry.rel)
    want_card = entry.rel in roles.cards or (
        not cfg.agents
        and kind != "text"
        and (exhaustive or discover.is_card_candidate(name, entry.rel, data))
    )
    want_prompt = entry.rel in roles.prompt_files or (
        not cfg.agents and (discover.is_prompt_file(entry.rel, kind, data) or (exhaustive and kind != "text"))
    )
    if want_prompt and not want_card and entry.rel not in roles.prompt_files and not exhaustive:
        return PROMPT_ONLY  # a prompt file matters only where a card does: read in the second stage
    if (kind == "text" and want_prompt) or (kind != "text" and (want_card or want_prompt)):
        return Job(
            entry.rel,
            kind,
            data,
            want_card,
            want_prompt,
            roles.prompt_files.get(entry.rel),
            exhaustive=exhaustive,
        )
    if kind != "text" and not cfg.agents and discover.data_prompt_candidate(data):
        return PROMPT_ONLY  # strings under prompt keys, in any config of an agent's scope
    return None


def _root_of(paths: list[str]) -> str:
    dirs = [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in paths]
    return os.path.commonpath(dirs) if len(dirs) > 1 else dirs[0]


def run(paths: list[str], cfg: Config, settings: Settings) -> Result:
    for p in paths:
        if not os.path.exists(p):
            raise UsageError(f"{p}: no such file or folder")
    root = _root_of(paths)
    recorded = None
    if settings.baseline is not None:
        from refusal_lint import baseline

        recorded = baseline.load(settings.baseline)  # a bad file stops the run before any work
    roles = roles_of(cfg, root)
    exclude_base = cfg.base if cfg.source else root
    walk = discover.walk(root, paths, list(cfg.exclude), exclude_base)
    ex = _Extraction(root, cfg, settings, roles)
    try:
        result = _run(ex, walk, root, cfg, settings, roles)
    finally:
        ex.close()
    if recorded is not None and settings.baseline is not None:
        from refusal_lint import baseline

        where = os.path.relpath(os.path.abspath(settings.baseline), root).replace(os.sep, "/")
        kept, stale = baseline.apply(result.findings, recorded, baseline.LineTexts(root), where)
        if "RL003" in settings.select and "RL003" not in settings.ignore:
            kept += stale
        result.findings = sorted(kept, key=lambda f: f.sort_key())
    return result


def _run(
    ex: _Extraction, walk: discover.Walk, root: str, cfg: Config, settings: Settings, roles: Roles
) -> Result:
    ex.notes.extend(walk.skipped)
    ex.entries = {e.rel: e for e in walk.files}

    # Phase 1: data and text files (cheap, in this process); their rule ids sharpen the
    # Python prefilter of phase 2.
    data_ctx = _context(
        "data", sorted(roles.cards), sorted(roles.prompt_files.items()), bool(cfg.agents), settings.exhaustive
    )
    py_entries = [e for e in walk.files if kind_of(e.rel) == "python"]
    ex.decide(
        [e for e in walk.files if kind_of(e.rel) != "python"],
        data_ctx,
        lambda e, d: _data_job(e, d, cfg, roles, settings.exhaustive),
        # A text file is a prompt by its name (or the config) alone: the rest are not read.
        lambda e: (
            kind_of(e.rel) != FileKind.TEXT
            or e.rel in roles.prompt_files
            or (not cfg.agents and discover.is_prompt_file(e.rel, "text", b""))
        ),
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
        settings.exhaustive,
        list(cfg.guard_callables),
        sorted(roles.cards),
        sorted(roles.prompt_modules),
    )

    ex.scan(py_entries, py_ctx, needles)
    ex.drain()
    py_paths = [e.rel for e in py_entries]
    result = _bind(ex, root, cfg, py_paths, roles)
    # Prompt candidates matter only inside an agent's scope: a tree with no card never
    # reads them. Those near a card (under its agent's root) are read first; the rest of a
    # single agent's scope only when no prompt was found there (no RL200 for a prompt kept
    # elsewhere, and no parsing of a monorepo's unrelated code when it sits beside the card).
    if result.agents and ex.prompt_only:
        near = [
            e
            for e in ex.prompt_only
            if _in_scope(e, result.agents, cfg)
            or (not cfg.agents and discover.is_prompt_file(e.rel, _kind(e), b""))
        ]
        ex.read_prompts(near)
        ex.drain()
        result = _bind(ex, root, cfg, py_paths, roles)
        single = result.agents[0] if len(result.agents) == 1 and not cfg.agents else None
        if single is not None and single.card is not None and single.card.rules and not single.prompts:
            read = {e.rel for e in near}
            ex.read_prompts([e for e in ex.prompt_only if e.rel not in read])
            ex.drain()
            result = _bind(ex, root, cfg, py_paths, roles)
    ex.cache.save()
    result.files_scanned = len(walk.files)
    result.notes = ex.notes
    result.findings = _filter(_file_columns(result.findings, root), ex.facts, cfg, settings, root)
    return result


def _kind(entry: discover.Entry) -> str:
    return kind_of(entry.rel) or "text"


def _in_scope(entry: discover.Entry, agents: list[Agent], cfg: Config) -> bool:
    """Is a prompt candidate's file under an agent's root (so its prompts can count)?"""
    if cfg.agents:
        return kind_of(entry.rel) == "python"  # configured guard globs decide later
    from refusal_lint.bind import owner

    return bool(owner(entry.rel, [a.root for a in agents]))


def _bind(ex: _Extraction, root: str, cfg: Config, py_paths: list[str], roles: Roles) -> Result:
    """Bind and check; modules that facts import are read on demand, even where the
    prefilter passed them over: bind, read what the resolver found missing, bind again.
    A tree where no file yielded anything, and no config names a file, is done here."""
    if not (cfg.agents or roles.cards or any(f.has_facts() or f.problem for f in ex.facts.values())):
        return Result(root, [], [], 0)
    from refusal_lint import agents
    from refusal_lint.resolve import ModuleIndex

    index = ModuleIndex(py_paths)
    tried: set[str] = set()
    for _ in range(IMPORT_ROUNDS):
        checked, missing = agents.check(root, cfg, ex.facts, index, roles)
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
    return Result(root, checked.findings, checked.agents, 0, facts_found=checked.facts_found)


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
            and kind_of(f.loc.path) in (FileKind.PYTHON, FileKind.YAML, FileKind.JSON)
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
                    loc = dataclasses.replace(
                        f.loc, col=m.start() + 1, end_line=f.loc.line, end_col=m.end() + 1
                    )
                    f = dataclasses.replace(f, loc=loc)
        out.append(f)
    return out


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
    own = {(p, s.line): s for p, f in facts.items() for s in f.suppressions}
    # Each line a comment covers: its own, or a YAML block scalar under its key.
    sup = {(p, ln): s for (p, _), s in own.items() for ln in range(s.line, max(s.line, s.end_line) + 1)}
    for f in kept:
        # The comment may end any line of the finding's span (a call written over several lines).
        lines = range(f.loc.line, max(f.loc.line, f.loc.end_line) + 1)
        hit = next(
            (s for ln in lines if (s := sup.get((f.loc.path, ln))) and (not s.codes or f.code in s.codes)),
            None,
        )
        if hit is not None:
            used.add((f.loc.path, hit.line))
            continue
        out.append(f)
    if "RL003" in settings.select and "RL003" not in settings.ignore and len(used) < len(own):
        from refusal_lint import model  # only a tree with suppressions pays for it

        for (path, line), s in sorted(own.items()):
            if (path, line) not in used:
                what = f"[{','.join(s.codes)}]" if s.codes else ""
                out.append(model.Finding("RL003", s.loc, f"unused suppression `refusal-lint: ignore{what}`"))
    return sorted(out, key=lambda f: f.sort_key())
