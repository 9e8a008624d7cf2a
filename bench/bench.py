#!/usr/bin/env python3
"""Time refusal-lint against `ruff check` and `grep -r` on the same tree, as ratios.

Scenario 1: a copy of this machine's Python standard library (site-packages and
__pycache__ left out) plus a copy of the bundled example agent. Commands run alternating,
so a slow moment of the machine hits all of them alike; medians are printed.
Scenario 2: the small example agent alone, against `python -c "import libcst"`.

    python bench/bench.py [--rounds 7] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
EXAMPLE = HERE / "testdata" / "survey-agent"
GUARD_WORDS = r"refuse\|refusal\|AgentExtension"


# Bytecode is written and reused, as on any normal install: a PYTHONDONTWRITEBYTECODE in the
# caller's environment would make every run recompile every module and measure that instead.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV)
    return time.perf_counter() - start


def _tool(name: str) -> str:
    local = Path(sys.executable).parent / name
    return str(local) if local.exists() else name


def build_tree(dest: Path) -> Path:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    tree = dest / "stdlib-tree"
    shutil.copytree(
        stdlib, tree, ignore=shutil.ignore_patterns("site-packages", "__pycache__"), symlinks=True
    )
    shutil.copytree(EXAMPLE, tree / "agent", ignore=shutil.ignore_patterns("expected.txt"))
    return tree


def measure(
    commands: dict[str, list[str]], cwd: Path, rounds: int, before: dict[str, list[str]]
) -> dict[str, float]:
    times: dict[str, list[float]] = {k: [] for k in commands}
    for cmd in commands.values():  # warm-up: bytecode written, file system cache filled
        _run(cmd, cwd)
    for _ in range(rounds):
        for name, cmd in commands.items():
            if name in before:
                subprocess.run(before[name], cwd=cwd, capture_output=True, check=False, env=ENV)
            times[name].append(_run(cmd, cwd))
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--keep", type=Path, help="build the tree here and keep it")
    args = ap.parse_args()
    rl, ruff = _tool("refusal-lint"), _tool("ruff")
    work = args.keep or Path(tempfile.mkdtemp(prefix="rl-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        tree = work / "stdlib-tree"
        if not tree.exists():
            tree = build_tree(work)
        n_py = sum(1 for _ in tree.rglob("*.py"))
        size = sum(p.stat().st_size for p in tree.rglob("*.py"))
        report = json.loads(
            subprocess.run(
                [rl, "check", ".", "--no-cache", "--format", "json"],
                cwd=tree,
                capture_output=True,
                text=True,
                check=False,
            ).stdout
        )
        found = sorted((f["code"], f["path"]) for f in report["findings"])
        print(
            f"tree: {n_py} .py files, {size / 1e6:.1f} MB; findings: {found or 'none'}; "
            f"agents: {[a['name'] for a in report['agents']]}"
        )
        shutil.rmtree(tree / ".refusal_lint_cache", ignore_errors=True)
        big = measure(
            {
                "refusal-lint cold": [rl, "check", ".", "--no-cache"],
                "refusal-lint warm": [rl, "check", "."],
                "ruff --no-cache --select F": [ruff, "check", "--no-cache", "--select", "F", "-q", "."],
                "grep -rl": ["grep", "-rl", GUARD_WORDS, "."],
            },
            tree,
            args.rounds,
            {"refusal-lint warm": [rl, "check", "."]},
        )
        base = big["ruff --no-cache --select F"]
        print("\nscenario 1: standard library + example agent (median of", args.rounds, "runs)")
        for name, t in big.items():
            print(f"  {name:<28} {t * 1000:8.0f} ms   {t / base:5.2f} x ruff")
        small_dir = work / "small-agent"
        if not small_dir.exists():
            shutil.copytree(EXAMPLE, small_dir, ignore=shutil.ignore_patterns("expected.txt"))
        small = measure(
            {
                "refusal-lint cold": [rl, "check", ".", "--no-cache"],
                "refusal-lint warm": [rl, "check", "."],
                'python -c "import libcst"': [sys.executable, "-c", "import libcst"],
            },
            small_dir,
            args.rounds,
            {"refusal-lint warm": [rl, "check", "."]},
        )
        base2 = small['python -c "import libcst"']
        print("\nscenario 2: the example agent alone")
        for name, t in small.items():
            print(f"  {name:<28} {t * 1000:8.0f} ms   {t / base2:5.2f} x import libcst")
        print(f"\ncpus: {os.cpu_count()}, python {sys.version.split()[0]}")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
