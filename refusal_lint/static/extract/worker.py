"""What a worker process runs (static/workers.py starts it): a scan's batch, or one job,
each file under a CPU-time limit, the process under a memory limit. Here, not in the pool's
module: this is the child's side, which the parent only starts."""

from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from refusal_lint.core.facts import FileFacts
from refusal_lint.core.kinds import FileKind
from refusal_lint.static.extract.job import Job, ScanJob
from refusal_lint.static.extract.run import extract, precheck, unchecked_job

if TYPE_CHECKING:
    from refusal_lint.static.gate.relevance import Relevance

MEMORY_LIMIT = 6 * 1024**3  # bytes of address space a worker may use
_ORPHAN_CHECK = 1.0  # seconds between a waiting worker's looks at its parent


def _cpu_budget(seconds: float) -> None:
    """From now on this process may use `seconds` more CPU time (whole seconds, rounded up)."""
    try:
        import resource

        used = resource.getrusage(resource.RUSAGE_SELF)
        soft = int(used.ru_utime + used.ru_stime) + 1 + max(1, math.ceil(seconds))
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    except (ImportError, ValueError, OSError):
        pass  # no RLIMIT_CPU here (Windows): the wall-clock backstop alone bounds a file


def _safe_extract(job: Job, cpu_limit: float, scan: bool = False) -> FileFacts | Job:
    """The facts (a job back: the scan's file waits for binding, gate/deferred.py)."""
    _cpu_budget(cpu_limit)
    try:
        if scan:
            checked = precheck(job)
            if isinstance(checked, FileFacts) or checked.deferred:
                return checked
            job = checked  # checked: extract parses it without a second pre-check
        return extract(job)
    except Exception as exc:  # a bug of ours must cost one file, never the run
        return unchecked_job(job, f"internal error reading this file ({type(exc).__name__}: {exc})")


def _scan(job: ScanJob, conn: Connection, cpu_limit: float) -> None:
    """Read, prefilter and parse a batch; report each parsed file as it is done."""
    from refusal_lint.static.cache import key
    from refusal_lint.static.discover.contents import read_bytes
    from refusal_lint.static.gate.prefilter import python_worth_parsing
    from refusal_lint.static.gate.text.shapes import may_hold_prompt

    relevance: Relevance | None = None
    if job.relevance:
        from refusal_lint.static.gate import relevance as relevance_of
        from refusal_lint.static.gate.answers import answers as answers_of

        relevance = relevance_of.of(job.relevance)  # the one may_hold_prompt asks: its answers kept
    answers: dict[str, dict[str, Any]] = {}
    # The batch's reading and text questions run under the CPU limit a file's parse has
    # (a batch is far smaller than one file may take), so a worker that reads for long
    # between parses is not stopped for it.
    _cpu_budget(cpu_limit)
    skips: list[str] = []
    prompt_only: list[str] = []  # read in a second stage, and only where a card makes them matter
    notes: list[str] = []
    for i, (rel, path, size, given) in enumerate(job.files):
        configured = rel in job.configured
        data, note = read_bytes(rel, path, size, given, job.max_file_size, configured)
        if note is not None:
            notes.append(note)
        if data is None:
            continue
        prompt = may_hold_prompt(data, job.ids)
        if relevance is not None:
            # A bug of ours in these text questions: left for the prompt stage to ask again,
            # which stops the run on one line, never a batch's files silently unchecked.
            with contextlib.suppress(Exception):
                answers[rel] = answers_of(rel, data, relevance, prompt, job.stems)
        if (
            not configured
            and not job.exhaustive
            and not python_worth_parsing(data, job.needles, frozenset(job.ids))
        ):
            # Only the cheap word test here: the prompt shapes are looked for in the second
            # stage, which runs only where a card makes prompts matter.
            (prompt_only if prompt else skips).append(rel)
            continue
        one = one_job(job, rel, data)
        k = key(one)
        if k in job.known:
            conn.send(("cached", i, k))
            continue
        conn.send(("start", i))
        facts = _safe_extract(one, cpu_limit, scan=True)
        if isinstance(facts, Job):
            conn.send(("deferred", i, k, facts.deferred, prompt))
            continue
        if not facts.complete and prompt:
            conn.send(("prompt", i))  # no card, guard or payload: only its prompts may matter
            continue
        conn.send(("file", i, k, facts))
    conn.send(("end", skips, notes, prompt_only, answers))


def _serve(conn: Connection, cpu_limit: float, parent: int) -> None:
    while True:
        # A parent killed alone (`kill PID`) closes no pipe this forked process holds an end
        # of too: a worker whose parent is gone ends, never holding the run's stdout open.
        while not conn.poll(_ORPHAN_CHECK):
            if os.getppid() != parent:
                return
        try:
            job = conn.recv()
        except EOFError:
            return
        if isinstance(job, ScanJob):
            _scan(job, conn, cpu_limit)
        else:
            conn.send(("end", _safe_extract(job, cpu_limit)))  # never deferred: a Job in, facts out


def _die_with(parent: int) -> None:
    """End with the parent, however it ends (killed alone: `kill PID`, a supervisor): a
    worker blocked writing to a pipe nobody reads would otherwise live on, holding the run's
    stdout open (`refusal-lint check . | tee log` never ends). Linux: the kernel kills it;
    elsewhere `_serve` looks, while it waits for work."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError, TypeError):  # no prctl (macOS), no CDLL(None) (Windows)
        pass
    if os.getppid() != parent:
        os._exit(0)  # gone before the kernel was asked


def worker_main(conn: Connection, cpu_limit: float, parent: int) -> None:
    import faulthandler
    import gc

    _die_with(parent)

    gc.enable()  # forked from a run that paused it: a worker pauses it itself, per file
    faulthandler.disable()  # a crash is reported by the parent, as RL005, not as a dump
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):
        pass
    # Deep syntax trees need a deep stack: give the visitor one, in a thread of its own.
    sys.setrecursionlimit(20_000)
    threading.stack_size(512 * 1024 * 1024)
    t = threading.Thread(target=_serve, args=(conn, cpu_limit, parent))
    t.start()
    t.join()


def one_job(job: ScanJob, rel: str, data: bytes) -> Job:
    """The job of one file of a batch."""
    configured = rel in job.configured
    return Job(
        rel,
        FileKind.PYTHON,
        data,
        read_whole=configured,
        prompts=job.exhaustive,
        guard_callables=job.guard_callables,
        ids=job.ids,
        exhaustive=job.exhaustive,
        defer=not configured,
    )
