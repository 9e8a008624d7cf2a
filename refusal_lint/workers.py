"""Run Python extraction in worker processes, so a parser crash or hang costs one file.

libcst's native parser can segfault on pathological input and can take minutes on some
valid files. Each worker takes one job at a time; the parent waits with a deadline, and a
worker that dies or overruns is replaced and its file gets an RL002 problem instead.
Workers start lazily, on the first job, and a second only when work piles up, so a run
that parses nothing never imports libcst anywhere.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import sys
import threading
import time
from multiprocessing.connection import Connection, wait

from refusal_lint.extract.job import Job
from refusal_lint.extract.run import extract
from refusal_lint.facts import FileFacts, Problem
from refusal_lint.model import Loc

MEMORY_LIMIT = 6 * 1024**3  # bytes of address space a worker may use


def _serve(conn: Connection) -> None:
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        try:
            result: FileFacts = extract(job)
        except Exception as exc:  # a bug of ours must cost one file, never the run
            result = FileFacts(
                job.path,
                job.kind,
                problem=Problem(
                    Loc(job.path), f"internal error reading this file: {type(exc).__name__}: {exc}"
                ),
            )
        conn.send(result)


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
        self.job: Job | None = None
        self.deadline = 0.0

    def give(self, job: Job, timeout: float) -> None:
        self.job = job
        self.deadline = time.monotonic() + timeout
        self.conn.send(job)

    def stop(self) -> None:
        self.conn.close()
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)


class Pool:
    """Jobs go in as they are found; `finish` waits for all and returns facts by path."""

    def __init__(self, size: int, timeout: float) -> None:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self.ctx = multiprocessing.get_context(method)
        self.size = max(1, size)
        self.timeout = timeout
        self.queue: list[Job] = []
        self.idle: list[_Worker] = []
        self.busy: list[_Worker] = []
        self.results: dict[str, FileFacts] = {}

    def submit(self, job: Job) -> None:
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

    def _collect(self, timeout: float) -> None:
        if not self.busy:
            return
        ready = wait([w.conn for w in self.busy], timeout=timeout)
        for w in list(self.busy):
            assert w.job is not None
            if w.conn in ready:
                try:
                    self.results[w.job.path] = w.conn.recv()
                    self.busy.remove(w)
                    self.idle.append(w)
                    continue
                except (EOFError, OSError):
                    w.proc.join(1)
                    code = w.proc.exitcode
                    why = (
                        f"the parser crashed on this file (signal {-code})"
                        if code is not None and code < 0
                        else "the parser's worker died on this file"
                    )
            elif time.monotonic() >= w.deadline:
                why = f"the parser did not finish this file within {self.timeout:g} s"
            else:
                continue
            self.results[w.job.path] = FileFacts(
                w.job.path, w.job.kind, problem=Problem(Loc(w.job.path), why + "; its facts are unchecked")
            )
            self.busy.remove(w)
            w.stop()
            self.idle.append(_Worker(self.ctx))

    def finish(self) -> dict[str, FileFacts]:
        try:
            while self.queue or self.busy:
                self._dispatch()
                if self.busy:
                    now = time.monotonic()
                    self._collect(max(0.0, min(w.deadline for w in self.busy) - now))
        except BaseException:
            self.close()
            raise
        out, self.results = self.results, {}
        return out

    def close(self) -> None:
        for w in self.idle + self.busy:
            w.stop()
        self.idle, self.busy = [], []
