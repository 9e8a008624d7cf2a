"""Run Python extraction in worker processes, so a parser crash or hang costs one file.

libcst's native parser can segfault on pathological input and can take minutes on some
valid files. Each worker takes one job at a time; the parent waits with a deadline, and a
worker that dies or overruns is replaced and its file gets an RL002 problem instead.
Workers start lazily, on the first job, and a second only when work piles up, so a run
that parses nothing never imports libcst anywhere.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import multiprocessing.context
import sys
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from refusal_lint.extract.job import Job, ScanJob
from refusal_lint.extract.run import extract
from refusal_lint.facts import FileFacts, Problem
from refusal_lint.model import Loc

MEMORY_LIMIT = 6 * 1024**3  # bytes of address space a worker may use


def _safe_extract(job: Job) -> FileFacts:
    try:
        return extract(job)
    except Exception as exc:  # a bug of ours must cost one file, never the run
        why = f"internal error reading this file: {type(exc).__name__}: {exc}"
        return FileFacts(job.path, job.kind, problem=Problem(Loc(job.path), why))


def _scan(job: ScanJob, conn: Connection) -> None:
    """Read, prefilter and parse a batch; report each parsed file as it is done."""
    from refusal_lint.cache import key
    from refusal_lint.discover import python_prompt_candidate, python_worth_parsing

    skips: list[str] = []
    prompt_only: list[str] = []  # read in a second stage, and only where a card makes them matter
    notes: list[str] = []
    for i, (rel, path, size) in enumerate(job.files):
        configured = rel in job.configured
        if size > job.max_file_size and not configured:
            notes.append(f"{rel}: skipped, {size} bytes is over max-file-size ({job.max_file_size})")
            continue
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            notes.append(f"{rel}: cannot read ({exc.strerror or exc})")
            continue
        if not configured and not python_worth_parsing(data, job.needles):
            (prompt_only if python_prompt_candidate(data) else skips).append(rel)
            continue
        one = Job(rel, "python", data, complete=configured, guard_callables=job.guard_callables, ids=job.ids)
        k = key(one)
        if k in job.known:
            conn.send(("cached", i, k))
            continue
        conn.send(("start", i))
        facts = _safe_extract(one)
        if not facts.complete and python_prompt_candidate(data):
            conn.send(("prompt", i))  # no card, guard or payload: only its prompts may matter
            continue
        conn.send(("file", i, k, facts))
    conn.send(("end", skips, notes, prompt_only))


def _serve(conn: Connection) -> None:
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if isinstance(job, ScanJob):
            _scan(job, conn)
        else:
            conn.send(("end", _safe_extract(job)))


def _worker_main(conn: Connection) -> None:
    import faulthandler

    faulthandler.disable()  # a crash is reported by the parent, as RL002, not as a dump
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):
        pass
    # Deep syntax trees need a deep stack: give the visitor one, in a thread of its own.
    sys.setrecursionlimit(20_000)
    threading.stack_size(512 * 1024 * 1024)
    t = threading.Thread(target=_serve, args=(conn,))
    t.start()
    t.join()


class _Worker:
    def __init__(self, ctx: multiprocessing.context.BaseContext) -> None:
        parent, child = multiprocessing.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)  # type: ignore[attr-defined]
        self.proc.start()
        child.close()
        self.conn = parent
        self.job: Job | ScanJob | None = None
        self.deadline = 0.0
        self.index = -1  # the file of a ScanJob being parsed; -1 while reading

    def give(self, job: Job | ScanJob, timeout: float) -> None:
        self.job = job
        self.deadline = time.monotonic() + timeout
        self.index = -1
        self.conn.send(job)

    def stop(self) -> None:
        self.conn.close()
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)


@dataclass
class Results:
    facts: dict[str, FileFacts] = field(default_factory=dict)  # plain jobs, by path
    scanned: list[tuple[str, str, FileFacts | None]] = field(
        default_factory=list
    )  # (path, key, facts or cached)
    skipped: list[str] = field(default_factory=list)  # scanned and passed over by the prefilter
    prompt_only: list[str] = field(default_factory=list)  # scanned: may hold prompts, nothing else
    notes: list[str] = field(default_factory=list)


class Pool:
    """Jobs go in as they are found; `finish` waits for all and returns what they found."""

    def __init__(self, size: int, timeout: float) -> None:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self.ctx = multiprocessing.get_context(method)
        self.size = max(1, size)
        self.timeout = timeout
        self.queue: list[Job | ScanJob] = []
        self.idle: list[_Worker] = []
        self.busy: list[_Worker] = []
        self.results = Results()

    def submit(self, job: Job | ScanJob) -> None:
        self.queue.append(job)
        # A second worker (and its libcst import) only pays once work piles up.
        if (
            not self.idle
            and len(self.idle) + len(self.busy) < self.size
            and (not self.busy or len(self.queue) > 1)
        ):
            self.idle.append(_Worker(self.ctx))
        self._dispatch()
        self._collect(0.0)

    def _dispatch(self) -> None:
        while self.idle and self.queue:
            w = self.idle.pop()
            w.give(self.queue.pop(0), self.timeout)
            self.busy.append(w)

    def _message(self, w: _Worker, msg: tuple[Any, ...]) -> bool:
        """Handle one message from a worker; True when its job is done."""
        job = w.job
        if msg[0] == "end":
            if isinstance(job, ScanJob):
                self.results.skipped += msg[1]
                self.results.notes += msg[2]
                self.results.prompt_only += msg[3]
            else:
                assert job is not None
                self.results.facts[job.path] = msg[1]
            return True
        assert isinstance(job, ScanJob)
        i = msg[1]
        if msg[0] == "start":
            w.index = i  # a crash or a hang from now on is this file's
            w.deadline = time.monotonic() + self.timeout
            return False
        rel = job.files[i][0]
        if msg[0] == "prompt":
            self.results.prompt_only.append(rel)
        else:
            self.results.scanned.append((rel, msg[2], msg[3] if msg[0] == "file" else None))
        w.index = -1  # reported: a crash from now on happens while reading, in no file's parse
        return False

    def _fail(self, w: _Worker, why: str) -> None:
        """The worker died or overran: its file gets the blame, the rest of its batch goes on."""
        job = w.job
        assert job is not None
        if isinstance(job, ScanJob):
            if w.index >= 0:
                rel = job.files[w.index][0]
                self.results.facts[rel] = _failed(rel, why)
                rest = job.files[w.index + 1 :]
            else:
                # Not while parsing: while reading. Blame no file, and do not loop on it.
                rest = ()
                self.results.notes.append(f"{why} while reading {len(job.files)} files; they are unchecked")
            if rest:
                self.queue.append(dataclasses.replace(job, files=rest))
        else:
            self.results.facts[job.path] = _failed(job.path, why)
        self.busy.remove(w)
        w.stop()
        self.idle.append(_Worker(self.ctx))

    def _collect(self, timeout: float) -> None:
        if not self.busy:
            return
        ready = wait([w.conn for w in self.busy], timeout=timeout)
        for w in list(self.busy):
            if w.conn in ready:
                try:
                    done = False
                    while not done and w.conn.poll():
                        done = self._message(w, w.conn.recv())
                except (EOFError, OSError):
                    w.proc.join(1)
                    code = w.proc.exitcode
                    self._fail(
                        w,
                        f"the parser crashed on this file (signal {-code})"
                        if code is not None and code < 0
                        else "the parser's worker died on this file",
                    )
                    continue
                if done:
                    self.busy.remove(w)
                    self.idle.append(w)
            elif time.monotonic() >= w.deadline:
                self._fail(w, f"the parser did not finish this file within {self.timeout:g} s")

    def finish(self) -> Results:
        try:
            while self.queue or self.busy:
                self._dispatch()
                if self.busy:
                    now = time.monotonic()
                    self._collect(max(0.0, min(w.deadline for w in self.busy) - now))
        except BaseException:
            self.close()
            raise
        out, self.results = self.results, Results()
        return out

    def close(self) -> None:
        for w in self.idle + self.busy:
            w.stop()
        self.idle, self.busy = [], []


def _failed(path: str, why: str) -> FileFacts:
    return FileFacts(path, "python", problem=Problem(Loc(path), why + "; its facts are unchecked"))
