#!/usr/bin/env python3
"""Where a slow `refusal-lint check` spends its time: the CPU seconds of each file's
extraction (in the workers and in the main process), the files that cost most, and the
whole run's wall time; for the bench's slow rows.

    python bench/where.py TREE [--top 15] [-- extra check options]

Runs `check TREE --no-cache --format json` with `extract` and the `ast` gate (`precheck`)
wrapped to time every job; the
workers are forked, so the wrapper is in them too, and each appends to one log file.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any


def _wrap(log: str) -> None:
    import refusal_lint.static.extract.run as run
    import refusal_lint.static.extract.worker as worker

    def timing(inner: Any, stage: str) -> Any:
        def timed(job: Any) -> Any:
            start = time.process_time()
            try:
                return inner(job)
            finally:
                spent = time.process_time() - start
                what = stage or ("prompts" if getattr(job, "prompts", False) else "full")
                with open(log, "a", encoding="utf-8") as fh:
                    fh.write(f"{spent:.4f}\t{job.kind}\t{what}\t{len(job.data)}\t{job.path}\n")

        return timed

    # Every module that imported the name by value: the main process's and the
    # worker's.
    run.extract = worker.extract = timing(run.extract, "")  # type: ignore[assignment]
    # The `ast` gate of a scanned file (its extraction, if it passes, is timed apart).
    worker.precheck = timing(run.precheck, "gate")  # type: ignore[assignment]


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("rest", nargs="*", help="more `check` options (after --)")
    args = ap.parse_args()
    fd, log = tempfile.mkstemp(prefix="rl-where-", suffix=".tsv")
    os.close(fd)
    _wrap(log)
    from refusal_lint.cli import main as cli

    start = time.perf_counter()
    with contextlib.suppress(SystemExit):
        cli(["check", str(args.tree), "--no-cache", "--format", "json", *args.rest], standalone_mode=False)
    wall = time.perf_counter() - start
    rows = [line.rstrip("\n").split("\t") for line in Path(log).read_text(encoding="utf-8").splitlines()]
    os.unlink(log)
    by_kind: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for spent, kind, what, _, _ in rows:
        by_kind[f"{kind}/{what}"][0] += float(spent)
        by_kind[f"{kind}/{what}"][1] += 1
    total = sum(float(r[0]) for r in rows)
    print(f"\nwall {wall:.2f} s; extraction CPU {total:.2f} s over {len(rows)} jobs", file=sys.stderr)
    for name, (spent, n) in sorted(by_kind.items(), key=lambda kv: -kv[1][0]):
        print(f"  {name:<18} {spent:8.2f} s  {int(n):5d} jobs", file=sys.stderr)
    print(f"the {args.top} costliest files:", file=sys.stderr)
    for spent, kind, what, size, path in sorted(rows, key=lambda r: -float(r[0]))[: args.top]:
        print(f"  {float(spent):7.2f} s  {int(size) / 1e3:7.0f} KB  {kind}/{what}  {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
