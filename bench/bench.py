#!/usr/bin/env python3
"""Time refusal-lint against `ruff check` and `grep -r` on the same trees, as ratios.

Scenarios (commands alternate within a round, so a slow moment of the machine hits all of
them alike; medians are printed; "cold" is --no-cache, after a warm-up that fills the
file system cache and writes bytecode):

1. real: each of the eight real agent repositories of ../shared/bench/real-repos.tar.xz
   (unpacked to a temporary folder), and the eight together; peak RSS and findings too.
2. stdlib: this machine's Python standard library plus the example agent; and four copies.
3. small: the example agent alone, against `python -c "import libcst"`.

    python bench/bench.py [--rounds 7] [--only real,stdlib,small] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
EXAMPLE = HERE / "testdata" / "survey-agent"
REAL = HERE.parent / "shared" / "bench" / "real-repos.tar.xz"
GUARD_WORDS = r"refuse\|refusal\|AgentExtension"

# Bytecode is written and reused, as on any normal install: a PYTHONDONTWRITEBYTECODE in the
# caller's environment would make every run recompile every module and measure that instead.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(cmd: list[str], cwd: Path) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB, the largest process of the run) of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss


def _tool(name: str) -> str:
    local = Path(sys.executable).parent / name
    return str(local) if local.exists() else name


def measure(
    commands: dict[str, list[str]], cwd: Path, rounds: int, before: dict[str, list[str]] | None = None
) -> tuple[dict[str, float], dict[str, int]]:
    """Median wall seconds and peak RSS of each command, run alternating."""
    before = before or {}
    times: dict[str, list[float]] = {k: [] for k in commands}
    rss: dict[str, int] = dict.fromkeys(commands, 0)
    for cmd in commands.values():
        _run(cmd, cwd)
    for _ in range(rounds):
        for name, cmd in commands.items():
            if name in before:
                subprocess.run(before[name], cwd=cwd, capture_output=True, check=False, env=ENV)
            t, r = _run(cmd, cwd)
            times[name].append(t)
            rss[name] = max(rss[name], r)
    return {k: statistics.median(v) for k, v in times.items()}, rss


def findings(rl: str, tree: Path) -> list[tuple[str, str]]:
    out = subprocess.run(
        [rl, "check", ".", "--no-cache", "--format", "json"],
        cwd=tree,
        capture_output=True,
        text=True,
        env=ENV,
    )
    return sorted((f["code"], f["path"]) for f in json.loads(out.stdout)["findings"])


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def lint_commands(rl: str, ruff: str) -> dict[str, list[str]]:
    return {
        "cold": [rl, "check", ".", "--no-cache"],
        "warm": [rl, "check", "."],
        "ruff": [ruff, "check", "--isolated", "--no-cache", "--select", "F", "--quiet", "."],
    }


def real(rl: str, ruff: str, work: Path, rounds: int) -> bool:
    if not REAL.exists():
        print(f"scenario real: {REAL} not found, skipped")
        return True
    root = work / "real"
    if not root.exists():
        root.mkdir(parents=True)
        with tarfile.open(REAL) as tar:
            tar.extractall(root, filter="data")
    repos = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    print(f"\nscenario real: {len(repos)} repositories (median of {rounds} alternating runs, seconds)")
    print(
        f"  {'repository':<30} {'cold':>6} {'warm':>6} {'ruff':>6} {'cold/ruff':>9} {'limit':>6}"
        f" {'RSS MB':>7}  result"
    )
    ok = True
    total_cold = total_ruff = 0.0
    warm_target = True
    for repo in [*repos, root]:
        name = "(the eight together)" if repo == root else repo.name
        found = findings(rl, repo)
        shutil.rmtree(repo / ".refusal_lint_cache", ignore_errors=True)
        t, rss = measure(lint_commands(rl, ruff), repo, rounds, {"warm": [rl, "check", "."]})
        shutil.rmtree(repo / ".refusal_lint_cache", ignore_errors=True)
        cold, warm, base = t["cold"], t["warm"], t["ruff"]
        mb = max(rss["cold"], rss["warm"]) / 1024
        if repo == root:
            limit = 1.5 * base
        else:
            limit = max(2.0 * base, base + 0.25)
            total_cold += cold
            total_ruff += base
        # The warm target is each repository's; the eight together have the 1.5x cold one.
        warm_ok = repo == root or warm <= max(0.3 * base, 0.15)
        good = cold <= limit and warm_ok and mb <= 300 and not found
        warm_target &= warm_ok
        ok &= good
        note = "" if not found else f" findings: {found[:3]}"
        print(
            f"  {name:<30} {cold:6.2f} {warm:6.2f} {base:6.3f} {cold / base:8.1f}x {limit:6.2f} {mb:7.0f}"
            f"  {verdict(good)}{note}"
        )
    print(
        f"  each repository warm <= max(0.3x ruff, 0.15 s): {verdict(warm_target)}; for information, eight "
        f"separate cold runs sum to {total_cold:.2f} s against ruff's {total_ruff:.2f} s "
        f"({total_cold / total_ruff:.1f}x: Python's start-up, about 0.1 s a run, is most of it)"
    )
    return ok


def build_stdlib(dest: Path, copies: int) -> Path:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    tree = dest / f"stdlib-x{copies}"
    if tree.exists():
        return tree
    for i in range(copies):
        shutil.copytree(
            stdlib,
            tree / f"lib{i}",
            ignore=shutil.ignore_patterns("site-packages", "__pycache__"),
            symlinks=True,
        )
    shutil.copytree(EXAMPLE, tree / "agent", ignore=shutil.ignore_patterns("expected.txt"))
    return tree


def stdlib(rl: str, ruff: str, work: Path, rounds: int) -> bool:
    ok = True
    for copies, target in ((1, 1.0), (4, 0.6)):
        tree = build_stdlib(work, copies)
        n_py = sum(1 for _ in tree.rglob("*.py"))
        size = sum(p.stat().st_size for p in tree.rglob("*.py"))
        found = findings(rl, tree)
        cmds = lint_commands(rl, ruff)
        cmds["ruff"] = [ruff, "check", "--isolated", "--no-cache", "--select", "F", "-q", "."]
        cmds["grep -rl"] = ["grep", "-rl", GUARD_WORDS, "."]
        shutil.rmtree(tree / ".refusal_lint_cache", ignore_errors=True)
        t, rss = measure(cmds, tree, rounds, {"warm": [rl, "check", "."]})
        shutil.rmtree(tree / ".refusal_lint_cache", ignore_errors=True)
        base = t["ruff"]
        good = t["cold"] <= target * base
        ok &= good
        print(
            f"\nscenario stdlib x{copies}: {n_py} .py files, {size / 1e6:.0f} MB + example agent; "
            f"findings: {found or 'none'}"
        )
        for name, v in t.items():
            print(f"  {name:<10} {v * 1000:8.0f} ms   {v / base:5.2f} x ruff")
        print(f"  cold <= {target} x ruff: {verdict(good)} (peak RSS {rss['cold'] / 1024:.0f} MB)")
    return ok


def small(rl: str, work: Path, rounds: int) -> bool:
    agent = work / "small-agent"
    if not agent.exists():
        shutil.copytree(EXAMPLE, agent, ignore=shutil.ignore_patterns("expected.txt"))
    t, _ = measure(
        {
            "cold": [rl, "check", ".", "--no-cache"],
            "warm": [rl, "check", "."],
            "import libcst": [sys.executable, "-c", "import libcst"],
        },
        agent,
        rounds,
        {"warm": [rl, "check", "."]},
    )
    base = t["import libcst"]
    good = t["cold"] <= 2.0 * base and t["warm"] <= 0.6 * base
    print("\nscenario small: the example agent alone")
    for name, v in t.items():
        print(f"  {name:<14} {v * 1000:8.0f} ms   {v / base:5.2f} x import libcst")
    print(f"  cold <= 2.0x and warm <= 0.6x: {verdict(good)}")
    return good


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", default="real,stdlib,small", help="comma-separated scenarios")
    ap.add_argument("--keep", type=Path, help="build the trees here and keep them")
    args = ap.parse_args()
    rl, ruff = _tool("refusal-lint"), _tool("ruff")
    work = args.keep or Path(tempfile.mkdtemp(prefix="rl-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    only = set(args.only.split(","))
    ok = True
    try:
        print(
            f"machine: {platform.machine()}, {os.cpu_count()} cpus, {platform.system()}, "
            f"python {sys.version.split()[0]}"
        )
        if "real" in only:
            ok &= real(rl, ruff, work, args.rounds)
        if "stdlib" in only:
            ok &= stdlib(rl, ruff, work, args.rounds)
        if "small" in only:
            ok &= small(rl, work, args.rounds)
        print(f"\nall targets: {verdict(ok)}")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
