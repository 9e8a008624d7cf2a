"""Run Python extraction in worker processes, so a parser crash or hang costs one file.

A pathological file (deep nesting, a generated module of megabytes) can cost the parser and
the extractor's walk minutes or gigabytes, and a bug of ours can crash. Each worker takes
one job at a time under a CPU-time limit per file (RLIMIT_CPU: the kernel stops it with
SIGXCPU) and a memory limit; a worker that dies is replaced and its file gets an RL005
instead. Limits are CPU time, never wall-clock time, so the same tree gives the same
findings under any load (DESIGN §3); a wall-clock backstop catches only a worker blocked
without using CPU. Workers start lazily, on the first job, and a second only when work
piles up, so a run that parses nothing never starts a process."""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import multiprocessing.context
import os
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any, TypeAlias

from refusal_lint.core.facts import FileFacts
from refusal_lint.core.kinds import FileKind
from refusal_lint.core.nogc import no_gc
from refusal_lint.static.extract.job import Callee, Job, ScanJob
from refusal_lint.static.extract.run import unchecked, unchecked_job
from refusal_lint.static.extract.worker import one_job, worker_main

BACKSTOP = 30.0  # wall-clock seconds past the CPU limit before a blocked worker is given up


def _poller(fds: tuple[int, ...]) -> Any:
    """A poll object watching `fds` for input (a hang-up is always reported); None where
    the platform has no poll (Windows: `wait` then)."""
    if not hasattr(select, "poll"):
        return None
    p = select.poll()
    for fd in fds:
        p.register(fd, select.POLLIN)
    return p


class _Worker:
    def __init__(self, ctx: multiprocessing.context.BaseContext, cpu_limit: float) -> None:
        parent, child = multiprocessing.Pipe()
        self.proc = ctx.Process(  # type: ignore[attr-defined]
            target=worker_main, args=(child, cpu_limit, os.getpid()), daemon=True
        )
        self.proc.start()
        child.close()
        self.conn = parent
        self.poller = _poller((parent.fileno(),))
        self.job: Job | ScanJob | None = None
        self.deadline = 0.0
        self.cpu_seen = -1.0  # the worker's CPU seconds when its deadline was last set
        self.index = -1  # the file of a ScanJob being parsed; -1 while reading
        self.spare = False  # its job is a guess (Pool.spare)

    def cpu_seconds(self) -> float:
        """CPU time the worker has used (Linux /proc); -1 where it cannot be told."""
        try:
            with open(f"/proc/{self.proc.pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return -1.0

    def progressing(self, timeout: float) -> bool:
        """At its deadline: has the worker used CPU since (it is working, only starved by
        load)? Then it gets another `timeout`; the CPU limit, not the clock, stops it."""
        used = self.cpu_seconds()
        if used < 0 or used <= self.cpu_seen:
            return False
        self.cpu_seen = used
        self.deadline = time.monotonic() + timeout
        return True

    def readable(self) -> bool:
        """Has the worker sent something (or hung up)? `conn.poll()` without the selector
        it makes and drops each call (a scan asks once a file)."""
        if self.poller is None:
            return self.conn.poll()
        return bool(self.poller.poll(0))

    def give(self, job: Job | ScanJob, timeout: float, spare: bool) -> None:
        self.job = job
        self.spare = spare
        self.deadline = time.monotonic() + timeout
        self.cpu_seen = self.cpu_seconds()
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
    # scanned, its parse waiting for binding: (path, key, callees, may hold prompts)
    deferred: list[tuple[str, str, tuple[Callee, ...], bool]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)  # gate/answers.py's, by path


# The guesses a wait takes in: none, all, or the one of a path (a job the run needs now).
Spare: TypeAlias = bool | str


def _waited(spare: Spare, job: object) -> bool:
    if isinstance(spare, str):
        return isinstance(job, Job) and job.path == spare
    return spare


class Pool:
    """Jobs go in as they are found; `finish` waits for all and returns what they found."""

    def __init__(self, size: int, cpu_limit: float, backstop: float | None = None) -> None:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self.ctx = multiprocessing.get_context(method)
        self.size = max(1, size)
        self.cpu_limit = cpu_limit
        # Wall-clock seconds a file may take: far past its CPU limit, for a worker blocked idle.
        self.timeout = backstop if backstop is not None else cpu_limit * 4 + BACKSTOP
        self.queue: list[Job | ScanJob] = []
        # Guesses (Extraction.guess): given a worker only when no job waits, and waited for
        # only when asked, so a wrong guess never holds back a file the run needs.
        self.spare: list[Job] = []
        self.idle: list[_Worker] = []
        self.busy: list[_Worker] = []
        self.results = Results()
        # A worker died or overran in this run: what it held is read again by the next
        # (the cache keeps none of it), so the run is never kept whole (memo.py).
        self.failed = False
        self._fds: tuple[int, ...] = ()
        self._poll: Any = None

    def submit(self, job: Job | ScanJob, spare: bool = False) -> None:
        if spare:
            assert isinstance(job, Job)
            self.spare.append(job)
        else:
            self.queue.append(job)
        # A second worker (and its start-up) only pays once work piles up.
        self._grow(len(self.queue) + len(self.spare) > 1)
        self._dispatch()
        self._collect(0.0)

    def _grow(self, piled: bool) -> None:
        """One more worker where none is free and the pool may grow: the first, or another
        once work has `piled` up."""
        if not self.idle and len(self.busy) < self.size and (not self.busy or piled):
            self.idle.append(_Worker(self.ctx, self.cpu_limit))

    def _dispatch(self, guesses_wanted: Spare = False) -> None:
        """Give idle workers jobs, the run's first. `guesses_wanted`: the run waits on the
        guesses themselves (or on the one of that path: it goes first), so they may take
        every worker."""
        while self.idle and (self.queue or self.spare):
            if not self.queue and not guesses_wanted and sum(w.spare for w in self.busy) >= self.size - 1 > 0:
                break  # a worker stays free for the next job the run needs: a guess waits
            w = self.idle.pop()
            if self.queue:
                w.give(self.queue.pop(0), self.timeout, spare=False)
            else:
                first = next((i for i, j in enumerate(self.spare) if _waited(guesses_wanted, j)), 0)
                w.give(self.spare.pop(first), self.timeout, spare=True)
            self.busy.append(w)

    def _message(self, w: _Worker, msg: tuple[Any, ...]) -> bool:
        """Handle one message from a worker; True when its job is done."""
        job = w.job
        if msg[0] == "end":
            if isinstance(job, ScanJob):
                self.results.skipped += msg[1]
                self.results.notes += msg[2]
                self.results.prompt_only += msg[3]
                self.results.answers.update(msg[4])
            else:
                assert job is not None
                self.results.facts[job.path] = msg[1]
            return True
        assert isinstance(job, ScanJob)
        i = msg[1]
        if msg[0] == "start":
            w.index = i  # a crash or a hang from now on is this file's
            w.deadline = time.monotonic() + self.timeout
            w.cpu_seen = w.cpu_seconds()
            return False
        rel = job.files[i][0]
        if msg[0] == "prompt":
            self.results.prompt_only.append(rel)
        elif msg[0] == "deferred":
            self.results.deferred.append((rel, msg[2], msg[3], msg[4]))
        else:
            self.results.scanned.append((rel, msg[2], msg[3] if msg[0] == "file" else None))
        w.index = -1  # reported: a crash from now on happens while reading, in no file's parse
        return False

    def _fail(self, w: _Worker, why: str) -> None:
        """The worker died or overran: its file gets the blame, the rest of its batch goes on."""
        self.failed = True
        job = w.job
        assert job is not None
        if isinstance(job, ScanJob):
            if w.index >= 0:
                rel = job.files[w.index][0]
                self.results.facts[rel] = _scan_failed(job, w.index, why)
                rest = job.files[w.index + 1 :]
            else:
                # Not while parsing: while reading. Blame no file, and do not loop on it.
                rest = ()
                self.results.notes.append(f"{why} while reading {len(job.files)} files; they are unchecked")
            if rest:
                self.queue.append(dataclasses.replace(job, files=rest))
        else:
            self.results.facts[job.path] = unchecked_job(job, why)
        self.busy.remove(w)
        w.stop()
        self.idle.append(_Worker(self.ctx, self.cpu_limit))

    def _ready(self, timeout: float) -> list[_Worker]:
        """The busy workers that have sent something (or died) within `timeout` seconds.
        One poll object while the busy set stands (the run's main process asks between
        each step of its own work, thousands of times a run), not a selector made and
        dropped each call, as `multiprocessing.connection.wait` does."""
        fds = tuple(w.conn.fileno() for w in self.busy)
        if fds != self._fds:
            self._fds, self._poll = fds, _poller(fds)
        if self._poll is None:
            ready = wait([w.conn for w in self.busy], timeout=timeout)
            return [w for w in self.busy if w.conn in ready]
        got = {fd for fd, _ in self._poll.poll(math.ceil(timeout * 1000) if timeout > 0 else 0)}
        return [w for w in self.busy if w.conn.fileno() in got]

    def _collect(self, timeout: float) -> None:
        if not self.busy:
            return
        ready = self._ready(timeout)
        for w in list(self.busy):
            if w in ready:
                try:
                    done = False
                    while not done and w.readable():
                        with no_gc():
                            message = w.conn.recv()
                        done = self._message(w, message)
                except (EOFError, OSError):
                    w.proc.join(1)
                    code = w.proc.exitcode
                    if code == -signal.SIGXCPU:
                        why = f"the parser used up its CPU time limit ({self.cpu_limit:g} s) on this file"
                    elif code is not None and code < 0:
                        why = f"the parser crashed on this file (signal {-code})"
                    else:
                        why = "the parser's worker died on this file"
                    self._fail(w, why)
                    continue
                if done:
                    self.busy.remove(w)
                    self.idle.append(w)
            elif time.monotonic() >= w.deadline and not w.progressing(self.timeout):
                self._fail(w, f"the parser made no progress on this file for {self.timeout:g} s")

    def finish(self, meanwhile: Callable[[], bool] | None = None, spare: Spare = False) -> Results:
        """Wait for every job, the spare ones too where `spare` (or the one of that path;
        those done are returned either way). `meanwhile`: this process's own work, one
        small step a call (False once none is left), done while the workers are busy,
        between their messages."""
        try:
            # A guess waited for, behind the others the workers hold, may need a worker of its own.
            self._grow(any(_waited(spare, j) for j in self.spare))
            self._dispatch(spare)
            while (
                self.queue
                or any(not w.spare or _waited(spare, w.job) for w in self.busy)
                or any(_waited(spare, j) for j in self.spare)
            ):
                self._dispatch(spare)
                if self.busy:
                    if meanwhile is not None and meanwhile():
                        self._collect(0.0)
                        continue
                    meanwhile = None
                    now = time.monotonic()
                    self._collect(max(0.0, min(w.deadline for w in self.busy) - now))
        except BaseException:
            self.close()
            raise
        out, self.results = self.results, Results()
        return out

    def pump(self) -> None:
        """Between the steps of this process's own long work, while no job of the run can
        be waiting for a worker (the prompt stage's text questions): take what workers sent
        and give every free one a guess, so a core does not sit idle until the next wait."""
        self._collect(0.0)
        self._dispatch(guesses_wanted=True)

    def close(self) -> None:
        for w in self.idle + self.busy:
            w.stop()
        self.idle, self.busy = [], []


def _scan_failed(job: ScanJob, index: int, why: str) -> FileFacts:
    """RL005 for the file of a batch a worker died or overran on, unless that file is not
    needed (its bytes read again here, a rare path): the same verdict as a single job's."""
    from refusal_lint.static.discover.contents import read_bytes

    rel, path, size, given = job.files[index]
    data, _ = read_bytes(rel, path, size, given, job.max_file_size, rel in job.configured)
    if data is None:
        return unchecked(rel, FileKind.PYTHON, why)
    return unchecked_job(one_job(job, rel, data), why)
