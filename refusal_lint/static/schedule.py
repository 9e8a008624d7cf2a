"""Extraction scheduling: which files are read, by whom, and what the cache answers. Data and
text files are read here; Python files go to the worker processes in batches (read,
prefiltered and parsed there). Unchanged files are answered from the cache by size and
stamp (its mtime or ctime), unread; prompt-only files are remembered for the second stage."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from refusal_lint.config import Config
from refusal_lint.core.filekinds import kind_of, no_prompt_by_content
from refusal_lint.core.kinds import FileKind
from refusal_lint.static.cache import (
    DEFERRED,
    PROMPT_ONLY,
    SKIP,
    Cache,
    context,
    deferred_verdict,
    read_deferred,
)
from refusal_lint.static.cache import key as cache_key
from refusal_lint.static.discover import walk as discover
from refusal_lint.static.discover.contents import read_bytes, too_large_matters
from refusal_lint.static.discover.roles import Roles
from refusal_lint.static.discover.roots import module_prefix
from refusal_lint.static.extract.job import Callee, Job, ScanJob
from refusal_lint.static.gate import datafiles, imports, prefilter
from refusal_lint.static.gate.text import shapes
from refusal_lint.static.settings import Settings

if TYPE_CHECKING:
    from refusal_lint.core.facts import FileFacts
    from refusal_lint.static.workers import Pool, Spare

SCAN_FILES = 48  # a worker's batch of Python files to read and prefilter: small enough to share
SCAN_BYTES = 1 << 20  # the load between two workers, large enough that messages stay few


class Extraction:
    """Reads files and runs (or looks up) extraction jobs; keeps every file's facts by path."""

    def __init__(self, root: str, cfg: Config, settings: Settings, roles: Roles) -> None:
        self.root, self.cfg, self.settings, self.roles = root, cfg, settings, roles
        self.prefix = module_prefix(root)  # where imports are matched (bind/modules.py)
        self.facts: dict[str, FileFacts] = {}
        self.notes: list[str] = []
        cache_dir = (cfg.base if cfg.source else root) if settings.use_cache else None
        self.cache = Cache(cache_dir, settings.memory)
        self.entries: dict[str, discover.Entry] = {}
        self.pending: dict[str, Job] = {}
        # The prompt stage's reads guessed ahead (ondemand.read_ahead): the files in the
        # workers, and the facts back, by job, until the same job asks (none may: unused).
        self.guessing: set[str] = set()
        self.ahead: dict[Job, FileFacts] = {}
        self.scan_context = ""
        self.scan_needles: tuple[bytes, ...] = ()
        self.pool: Pool | None = None
        self.prompt_only: list[discover.Entry] = []  # read only where a card makes prompts matter
        self.ids: tuple[str, ...] = ()  # the data cards' rule ids, known before Python is read
        self.card_ids: tuple[str, ...] = ()  # every card's, known once the tree is bound
        self.texts: dict[str, bytes | None] = {}  # the prompt stage's reads
        # ondemand._naming's answers this run: by kind and name, the files asked, those holding it.
        self.named: dict[str, dict[str, tuple[set[str], set[str]]]] = {}
        # This process's own work while it waits on the workers, a step a call, made anew
        # for each wait (pipeline: ondemand.waiting); and the warming that takes its turn.
        self.waiting: Callable[[], Callable[[], bool]] | None = None
        self.meanwhile: Callable[[], bool] | None = None
        # The prompt stage's text answers the scan gave (gate/answers.py), and their context.
        self.answers: dict[str, dict[str, Any]] = {}
        self.answers_context = ""
        self.answers_ids: tuple[str, ...] = ()
        # Scanned files whose parse waits for binding (gate/deferred.py, ondemand.settle):
        # the callees it must judge, and whether the file may hold prompt candidates.
        self.deferred: dict[str, tuple[tuple[Callee, ...], bool]] = {}

    def read(self, entry: discover.Entry, configured: bool) -> bytes | None:
        data, note = self._bytes(entry, configured)
        large = data is None and entry.size > self.cfg.max_file_size
        if large and too_large_matters(entry, prefilter.too_large_matters):
            from refusal_lint.static.extract.run import too_large  # RL005 for it, not RL200

            self.facts[entry.rel] = too_large(entry.rel, entry.size, self.cfg.max_file_size)
        elif note is not None:
            self.notes.append(note)
        return data

    def _bytes(self, entry: discover.Entry, configured: bool) -> tuple[bytes | None, str | None]:
        return read_bytes(entry.rel, entry.abs, entry.size, entry.data, self.cfg.max_file_size, configured)

    def _remember(self, entry: discover.Entry, context: str, verdict: str) -> None:
        """What the cache answers for this file while its size and stamp stay (never for bytes
        that are not the disk's)."""
        if entry.data is None:
            self.cache.remember(entry.rel, entry.size, entry.stamp_ns, context, verdict)

    def changed(self, entries: list[discover.Entry], context: str) -> list[discover.Entry]:
        """The entries the cache cannot answer by size and stamp; the others get their facts."""
        out = []
        for entry in entries:
            if entry.data is not None:
                out.append(entry)  # bytes not the disk's: the disk's size and stamp say nothing
                continue
            verdict = self.cache.verdict(entry.rel, entry.size, entry.stamp_ns, context)
            if verdict == SKIP:
                continue
            if verdict == PROMPT_ONLY:
                self.prompt_only.append(entry)
                continue
            if verdict is not None and verdict.startswith(DEFERRED):
                self.deferred[entry.rel] = read_deferred(verdict)
                continue
            if verdict is not None and (facts := self.cache.facts_for(verdict)) is not None:
                self.facts[entry.rel] = facts
                if datafiles.read_again(entry, facts, self.roles):
                    self.prompt_only.append(entry)
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
                self._remember(entry, context, SKIP)
                continue
            data = self.read(entry, entry.rel in self.roles.cards or entry.rel in self.roles.prompt_files)
            job = make(entry, data) if data is not None else None
            if not isinstance(job, Job):
                if data is not None:
                    verdict = PROMPT_ONLY if job == PROMPT_ONLY else SKIP
                    self._remember(entry, context, verdict)
                    if verdict == PROMPT_ONLY:
                        self.prompt_only.append(entry)
                continue
            self._remember(entry, context, cache_key(job))
            self.submit(job)
            found = self.facts.get(entry.rel)
            if found is not None and datafiles.read_again(entry, found, self.roles):
                self.prompt_only.append(entry)
            if found is not None and found.holds_nothing():
                # A card candidate that holds none: remembered as passed over (see drain), or
                # as a file whose strings may still be prompts where a card makes them matter
                # (exhaustive: also a prompt file whose parse error cannot matter yet).
                del self.facts[entry.rel]
                later = not self.cfg.agents and not no_prompt_by_content(entry.rel)
                later = later and (not job.want_prompt or job.exhaustive)
                self._remember(entry, context, PROMPT_ONLY if later else SKIP)
                if later:
                    self.prompt_only.append(entry)

    def submit(self, job: Job) -> None:
        """Facts from the cache, from this process (data files, the ast pre-check), or a worker."""
        hit = self.cache.get(job)
        if hit is not None:
            self.facts[job.path] = hit
            return
        if (guessed := self.ahead.pop(job, None)) is not None:
            self.done(job, guessed)  # the same job, done ahead: the same facts
            return
        if job.path in self.guessing:
            self.drain(guesses=job.path)  # one job a path in the workers: the guess comes back first
            self.submit(job)
            return
        from refusal_lint.static.extract import run as extract_run  # YAML and JSON readers: only when needed

        if job.kind != FileKind.PYTHON:
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
        configured = frozenset(self.roles.cards) | frozenset(self.roles.prompt_modules)
        changed, limit = self.changed(entries, context), self.cfg.max_file_size
        todo = [e for e in changed if e.size <= limit or e.rel in configured]
        for entry in (e for e in changed if e.size > limit and e.rel not in configured):
            self.read(entry, False)  # over max-file-size: RL005 or a note (`read`), never parsed
        if not todo:
            return
        known = frozenset(self.cache.entries)
        relevance, stems = self._relevance()
        # Largest first, so the workers finish together (results do not depend on the order).
        batches: list[list[tuple[str, str, int, bytes | None]]] = [[]]
        size = 0
        for entry in sorted(todo, key=lambda e: -e.size):
            if len(batches[-1]) >= SCAN_FILES or size >= SCAN_BYTES:
                batches.append([])
                size = 0
            batches[-1].append((entry.rel, entry.abs, entry.size, entry.data))
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
                    relevance=relevance,
                    stems=stems,
                )
            )
        self.scan_context, self.scan_needles = context, needles

    def _relevance(self) -> tuple[tuple[str, ...], frozenset[str]]:
        """The data cards' ids and the tree's module stems, for the scan's text answers."""
        if not self.ids or self.settings.exhaustive:
            return (), frozenset()
        from refusal_lint.static.gate import answers

        ctx = answers.context(self.ids, self.entries, self.prefix)
        if ctx != self.answers_context:
            self.answers, self.answers_context, self.answers_ids = {}, ctx, self.ids
        return self.ids, imports.module_stems(self.entries)

    def _pool(self) -> Pool:
        if self.pool is None:
            from refusal_lint.static.workers import Pool

            self.pool = Pool(self.settings.jobs, self.settings.parse_timeout)
        return self.pool

    def drain(self, guesses: Spare = False) -> None:
        """Wait for the workers' facts, doing this process's own work meanwhile
        (ondemand.waiting); for the guesses still out too where `guesses`."""
        if self.pool is None:
            return
        results = self.pool.finish(self.waiting() if self.waiting is not None else None, spare=guesses)
        for path, facts in results.facts.items():
            job = self.pending.pop(path, None)
            if job is not None and path in self.guessing:
                self.guessing.discard(path)
                # A limit hit too (RL005, never cached): the same job would spend the limit again.
                self.ahead[job] = facts
            elif job is not None:
                self.done(job, facts)
            else:
                self.facts[path] = facts  # a crash or a hang inside a batch: not cached
        lost: list[discover.Entry] = []
        for path, key, found in results.scanned:
            entry = self.entries[path]
            if found is not None and found.holds_nothing():
                # It holds nothing: remembered as passed over (a warm run decodes nothing).
                self._remember(entry, self.scan_context, SKIP)
                continue
            if found is not None:
                self.cache.put_key(key, found)
            elif (found := self.cache.facts_for(key)) is None:
                lost.append(entry)  # the cache could not give them back: read it again
                continue
            self.facts[path] = found
            self._remember(entry, self.scan_context, key)
        for path, _, callees, prompt in results.deferred:
            self._remember(self.entries[path], self.scan_context, deferred_verdict(callees, prompt))
            self.deferred[path] = (callees, prompt)
        for path in results.skipped:
            self._remember(self.entries[path], self.scan_context, SKIP)
        for path in results.prompt_only:
            entry = self.entries[path]
            self._remember(entry, self.scan_context, PROMPT_ONLY)
            self.prompt_only.append(entry)
        self.notes.extend(results.notes)
        self.answers.update(results.answers)
        if lost:
            self.scan(lost, self.scan_context, self.scan_needles)
            self.drain()

    def read_data(self, entries: list[discover.Entry]) -> None:
        """Phase 1: data and text files, cheap, in this process; their rule ids sharpen the
        Python prefilter of phase 2."""
        cfg, roles, exhaustive = self.cfg, self.roles, self.settings.exhaustive
        self.decide(
            entries,
            context(
                "data", sorted(roles.cards), sorted(roles.prompt_files.items()), bool(cfg.agents), exhaustive
            ),
            lambda e, d: datafiles.job(e, d, cfg, roles, exhaustive),
            # Documentation is never a prompt; other text files are, by their name or content.
            lambda e: (
                kind_of(e.rel) != FileKind.TEXT
                or e.rel in roles.prompt_files
                or (not cfg.agents and not no_prompt_by_content(e.rel))
            ),
        )
        self.ids = tuple(sorted({d.key for f in self.facts.values() for e in f.exts for d in e.items}))

    def read_python(self, entries: list[discover.Entry]) -> None:
        """Phase 2: Python files, in the workers, prefiltered by the card's rule ids and the
        configured guard callables."""
        cfg = self.cfg
        # Read again once a Python card's ids are known: this reading's verdicts replace the last.
        again = {e.rel for e in entries}
        self.prompt_only = [e for e in self.prompt_only if e.rel not in again]
        self.deferred = {p: d for p, d in self.deferred.items() if p not in again}
        ids = {i.encode() for i in self.ids if len(i) > 2}
        needles = tuple(sorted(ids | {g.rsplit(".", 1)[-1].encode() for g in cfg.guard_callables}))
        py_ctx = context(
            "py",
            [n.decode() for n in needles],
            list(self.ids),
            self.settings.exhaustive,
            list(cfg.guard_callables),
            sorted(self.roles.cards),
            sorted(self.roles.prompt_modules),
        )
        self.scan(entries, py_ctx, needles)
        self.drain()

    def read_prompts(self, entries: list[discover.Entry], content: bool = False) -> None:
        """The prompt stage's reading: prompt candidates, now that a card makes them matter.
        `content`: these files' text can matter (relevance.py), so strings of any form that
        mention a card id are candidates too, and the prompt-shape gates do not apply."""
        ids = tuple(sorted({*self.ids, *self.card_ids})) if content else self.ids
        for entry in entries:
            data = self.prompt_text(entry)
            if data is None:
                continue
            if (kind := kind_of(entry.rel) or FileKind.TEXT) != FileKind.PYTHON:
                card = datafiles.wants_card(entry.rel, data, self.cfg, self.roles, self.settings.exhaustive)
                self.submit(Job(entry.rel, kind, data, card, True, ids=ids if content else ()))
            elif content:
                self.submit(self._python(entry.rel, data, prompts=True, ids=ids, content=True))
            elif shapes.python_prompt_candidate(data):
                self.submit(self.prompt_job(entry.rel, data))
        self.drain()

    def prompt_job(self, rel: str, data: bytes) -> Job:
        """A Python file's prompt candidates of the shapes the prompt stage reads by form."""
        return self._python(rel, data, prompts=True, ids=self.ids)

    def guess(self, job: Job) -> None:
        """Start `job` in the workers ahead of need (ondemand.read_ahead), its facts kept aside."""
        if self.cache.get(job) is None:
            self.pending[job.path] = job
            self.guessing.add(job.path)
            self._pool().submit(job, spare=True)

    def pump(self) -> None:
        """Keep the workers busy with guesses during this process's own work (Pool.pump)."""
        if self.pool is not None and self.guessing:
            self.pool.pump()

    def peek_text(self, entry: discover.Entry) -> bytes | None:
        """`prompt_text`, leaving a file unread now for it to read and note (timing-free notes)."""
        if entry.rel not in self.texts and (data := self._bytes(entry, False)[0]) is not None:
            self.texts[entry.rel] = data
        return self.texts.get(entry.rel)

    def prompt_text(self, entry: discover.Entry) -> bytes | None:
        """A file's bytes, read once for the prompt stage (its gate and its parse)."""
        if entry.rel not in self.texts:
            self.texts[entry.rel] = self.read(entry, False)
        return self.texts[entry.rel]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()

    def python_job(self, entry: discover.Entry, read_whole: bool) -> Job | None:
        data = self.read(entry, read_whole)
        return self._python(entry.rel, data, read_whole=read_whole) if data is not None else None

    def _python(
        self,
        rel: str,
        data: bytes,
        read_whole: bool = False,
        prompts: bool = False,
        ids: tuple[str, ...] | None = None,
        content: bool = False,
    ) -> Job:
        return Job(
            rel,
            FileKind.PYTHON,
            data,
            read_whole=read_whole,
            prompts=prompts,
            guard_callables=self.cfg.guard_callables,
            ids=self.ids if ids is None else ids,
            content=content,
        )
