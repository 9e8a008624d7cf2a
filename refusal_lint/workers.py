"""Run extraction jobs; Python ones in worker processes, so a parser crash or hang costs one file.

libcst's native parser can segfault on pathological input and can take minutes on some
valid files. Each worker takes one job at a time; the parent waits with a deadline, and a
worker that dies or overruns is replaced and its file gets an RL002 problem instead.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
import time
from collections.abc import Iterable
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

    def stop(self) -> None:
        self.conn.close()
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)


def _failed(job: Job, why: str) -> FileFacts:
    return FileFacts(job.path, job.kind, problem=Problem(Loc(job.path), why))


def run_python(jobs: list[Job], n_workers: int, timeout: float) -> dict[str, FileFacts]:
    """Extract Python jobs in isolated workers; results by path."""
    results: dict[str, FileFacts] = {}
    if not jobs:
        return results
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    queue = list(reversed(jobs))
    workers = [_Worker(ctx) for _ in range(max(1, min(n_workers, len(jobs))))]
    try:
        idle = list(workers)
        busy: list[_Worker] = []
        while queue or busy:
            while idle and queue:
                w = idle.pop()
                w.job = queue.pop()
                w.deadline = time.monotonic() + timeout
                w.conn.send(w.job)
                busy.append(w)
            now = time.monotonic()
            ready = wait([w.conn for w in busy], timeout=max(0.0, min(w.deadline for w in busy) - now))
            for w in list(busy):
                assert w.job is not None
                if w.conn in ready:
                    try:
                        results[w.job.path] = w.conn.recv()
                        busy.remove(w)
                        idle.append(w)
                        continue
                    except (EOFError, OSError):
                        code = w.proc.exitcode
                        w.proc.join(1)
                        code = w.proc.exitcode if code is None else code
                        why = (
                            f"the parser crashed on this file (signal {-code})"
                            if code and code < 0
                            else "the parser's worker died on this file"
                        )
                elif time.monotonic() >= w.deadline:
                    why = f"the parser did not finish this file within {timeout:g} s"
                else:
                    continue
                results[w.job.path] = _failed(w.job, why + "; its facts are unchecked")
                busy.remove(w)
                w.stop()
                workers.remove(w)
                fresh = _Worker(ctx)
                workers.append(fresh)
                idle.append(fresh)
    finally:
        for w in workers:
            w.stop()
    return results


def run_all(jobs: Iterable[Job], n_workers: int, timeout: float) -> dict[str, FileFacts]:
    """Data and text files in this process (pure Python, bounded); Python ones in workers."""
    py: list[Job] = []
    out: dict[str, FileFacts] = {}
    for job in jobs:
        if job.kind == "python":
            py.append(job)
        else:
            out[job.path] = extract(job)
    out.update(run_python(py, n_workers, timeout))
    return out
