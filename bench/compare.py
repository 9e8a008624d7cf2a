#!/usr/bin/env python3
"""Hold a refactoring to its word: the output of two revisions, byte for byte.

Runs `refusal-lint check` of revision REV (checked out to a temporary git worktree) and of
the working tree on every fixture case (text and JSON: the testdata repos and the variants of
tests/fixture_repos, written from the working tree's tables) and on the eight real repositories
of ../shared/bench/real-repos.tar.xz (also with a refusals card copied in, so binding and
the prompt and guard checks run on real code), and prints each output that differs.

    python bench/compare.py REV [--formats text,json,sarif] [--no-real]

Exit status 0 when every output is identical, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
REAL = HERE.parent / "shared" / "bench" / "real-repos.tar.xz"
CARD = "prompt-rl201"  # the fixture case whose agent-card.json is copied into each real repository


def output(src: Path, tree: Path, fmt: str) -> bytes:
    """What revision `src` prints for `tree` (stdout, stderr and the exit status)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [sys.executable, "-m", "refusal_lint", "check", tree.name, "--no-cache", "--format", fmt]
    if fmt == "text":
        cmd.append("--no-color")
    # From a neutral folder: `python -m` puts the working folder first on sys.path.
    done = subprocess.run(cmd, capture_output=True, env=env, check=False, cwd=tree.parent)
    return done.stdout + b"\n--stderr--\n" + done.stderr + f"\n--exit {done.returncode}--\n".encode()


def trees(work: Path, real: bool) -> list[Path]:
    """Every fixture case (a variant written under `work`), then the real repositories."""
    sys.path.insert(0, str(HERE / "tests"))
    from fixture_repos import KEPT, TESTDATA, write_all

    cases = [TESTDATA / name for name in KEPT] + write_all(work / "variants")
    out = sorted(cases, key=lambda p: p.name)
    card = next(p for p in cases if p.name == CARD) / "agent-card.json"
    if real and REAL.exists():
        with tarfile.open(REAL) as tar:
            tar.extractall(work / "real", filter="data")
        repos = sorted(p for p in (work / "real").iterdir() if p.is_dir())
        out += repos
        for repo in repos:
            carded = work / "carded" / repo.name
            shutil.copytree(repo, carded, symlinks=True)
            shutil.copy(card, carded / "agent-card.json")
            out.append(carded)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rev", help="the revision to compare the working tree with")
    ap.add_argument("--formats", default="text,json", help="comma-separated output formats")
    ap.add_argument("--no-real", action="store_true", help="testdata only")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="refusal-lint-compare-") as tmp:
        work = Path(tmp)
        old = work / "old"
        git = ["git", "-C", str(HERE), "worktree"]
        subprocess.run([*git, "add", "-q", "--detach", str(old), args.rev], check=True)
        try:
            differ = compared = 0
            for tree in trees(work, not args.no_real):
                name = tree.relative_to(work) if tree.is_relative_to(work) else tree.name
                for fmt in args.formats.split(","):
                    compared += 1
                    if output(old, tree, fmt) != output(HERE, tree, fmt):
                        differ += 1
                        print(f"differs: {name} ({fmt})")
        finally:
            subprocess.run([*git, "remove", "--force", str(old)], check=False)
    print(f"{compared} outputs compared with {args.rev}: {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
