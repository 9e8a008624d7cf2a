#!/usr/bin/env python3
"""Fuzz the CLI for a while: python bench/fuzz.py [--seconds 600] [--start SEED]

Each case mutates one to three files of a fixture agent and runs `refusal-lint check` on
it, asserting an exit status in {0, 1, 2}, a valid JSON report, no traceback and no file
changed. A failing seed is printed; rerun it alone with --start SEED --seconds 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzzing import run_case


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--start", type=int, default=int(time.time()))
    args = ap.parse_args()
    deadline = time.monotonic() + args.seconds
    seed, n = args.start, 0
    while True:
        try:
            run_case(seed)
        except AssertionError as exc:
            print(f"FAULT: {exc}")
            sys.exit(1)
        n += 1
        seed += 1
        if time.monotonic() >= deadline:
            break
    print(f"{n} cases, no fault (seeds {args.start}..{seed - 1})")


if __name__ == "__main__":
    main()
