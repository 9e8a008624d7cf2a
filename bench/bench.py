#!/usr/bin/env python3
"""Time refusal-lint against `ruff check` and `grep -r` on the same trees, as ratios.

Scenarios (commands alternate within a round, so a slow moment of the machine hits all of
them alike; medians are printed; "cold" is --no-cache, after a warm-up that fills the
file system cache and writes bytecode; "warm" follows a run over the same tree, unchanged,
"touched" one after which a Python file of the agent was saved again):

1. real: each shared repository of ../shared/bench/real-repos.tar.xz and vocab-repos.tar.xz
   (unpacked to a temporary folder), and all of them together; peak RSS and findings too
   (none: no repository uses the extension).
2. carded: the same repositories, each with the example agent (testdata/survey-agent)
   copied into its root, the ordinary shape of an agent repository; the findings must be
   exactly the example agent's own (none); and all of them in one run.
3. stdlib: this machine's Python standard library with the example agent in its root; and
   four copies of it without a card.
4. small: the example agent alone, against `python -c "import libcst"`.

    python bench/bench.py [--rounds 7] [--only real,carded,stdlib,small] [--repos WORD,..] [--keep DIR]
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
SHARED = [HERE.parent / "shared" / "bench" / n for n in ("real-repos.tar.xz", "vocab-repos.tar.xz")]
GUARD_WORDS = r"refuse\|refusal\|AgentExtension"

# Bytecode is written and reused, as on any normal install: a PYTHONDONTWRITEBYTECODE in the
# caller's environment would make every run recompile every module and measure that instead.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(cmd: list[str], cwd: Path) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (KiB, the largest process of the run) and CPU seconds (user and
    system, the workers' included) of one command. CPU time is what a loaded machine's wall
    time hides: compare it too when other work shares the machine."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def _install_kind() -> str:
    """How refusal-lint is installed beside this Python: an editable install's import finder
    is imported by every start (12-19 ms here), which a user's `pip install .` does not pay."""
    from importlib import metadata

    try:
        direct = metadata.distribution("refusal-lint").read_text("direct_url.json") or "{}"
    except metadata.PackageNotFoundError:
        return "not installed"
    editable = json.loads(direct).get("dir_info", {}).get("editable", False)
    return "editable (each start pays its import finder)" if editable else "regular"


def _tool(name: str) -> str:
    local = Path(sys.executable).parent / name
    return str(local) if local.exists() else name


def measure(
    commands: dict[str, list[str]], cwd: Path, rounds: int, before: dict[str, list[str]] | None = None
) -> tuple[dict[str, float], dict[str, int]]:
    """Median wall seconds and peak RSS of each command, run alternating; each command's
    median CPU seconds too, under "cpu:NAME"."""
    before = before or {}
    times: dict[str, list[float]] = {k: [] for k in commands}
    cpu: dict[str, list[float]] = {k: [] for k in commands}
    rss: dict[str, int] = dict.fromkeys(commands, 0)
    for cmd in commands.values():
        _run(cmd, cwd)
    for _ in range(rounds):
        for name, cmd in commands.items():
            if name in before:
                subprocess.run(before[name], cwd=cwd, capture_output=True, check=False, env=ENV)
            t, r, c = _run(cmd, cwd)
            times[name].append(t)
            cpu[name].append(c)
            rss[name] = max(rss[name], r)
    medians = {k: statistics.median(v) for k, v in times.items()}
    medians.update({f"cpu:{k}": statistics.median(v) for k, v in cpu.items()})
    return medians, rss


Finding = tuple[str, str, str | None, int]


def report(rl: str, tree: Path) -> tuple[list[Finding], int]:
    """The findings (code, path, rule, line) of a cold run, and how many prompts its agents list."""
    out = subprocess.run(
        [rl, "check", ".", "--no-cache", "--format", "json"],
        cwd=tree,
        capture_output=True,
        text=True,
        env=ENV,
    )
    data = json.loads(out.stdout)
    found = sorted((f["code"], f["path"], f.get("rule_id"), f["line"]) for f in data["findings"])
    return found, sum(len(a.get("prompts", [])) for a in data["agents"])


def findings(rl: str, tree: Path) -> list[Finding]:
    return report(rl, tree)[0]


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def lint_commands(rl: str, ruff: str) -> dict[str, list[str]]:
    return {
        "cold": [rl, "check", ".", "--no-cache"],
        "warm": [rl, "check", "."],
        "ruff": [ruff, "check", "--isolated", "--no-cache", "--select", "F", "--quiet", "."],
    }


def repositories(root: Path, pick: str) -> list[Path]:
    """The unpacked repositories whose folder name holds one of the comma-separated `pick` words."""
    words = [w for w in pick.split(",") if w]
    return sorted(
        p
        for p in root.iterdir()
        if p.is_dir() and not p.name.startswith(".") and (not words or any(w in p.name for w in words))
    )


def unpack(work: Path) -> Path | None:
    """The shared real and vocabulary repositories, side by side in one folder (None: absent)."""
    root = work / "repos"
    tars = [t for t in SHARED if t.exists()]
    if not tars:
        return None
    if not root.exists():
        root.mkdir(parents=True)
        for tar_path in tars:
            with tarfile.open(tar_path) as tar:
                tar.extractall(root, filter="data")
    return root


def plant(repo: Path, dest: Path) -> Path:
    """A copy of `repo` with the example agent copied into its root (what an agent repo looks like)."""
    if not dest.exists():
        shutil.copytree(repo, dest, symlinks=True)
        shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("expected.txt"), dirs_exist_ok=True)
    return dest


def own_findings(rl: str, tree: Path, planted: list[Path]) -> list[Finding]:
    """The findings of the example agent itself, as they read at each place it is planted."""
    alone = findings(rl, EXAMPLE)
    return sorted(
        (code, (p.relative_to(tree) / path).as_posix(), rule, line)
        for p in planted
        for code, path, rule, line in alone
    )


def table(rl: str, ruff: str, title: str, rows: list[tuple[Path, list[Path]]], rounds: int) -> bool:
    """One line per tree: cold/warm/ruff/grep medians, ratios, peak RSS, findings, the targets.

    `rows` pairs each tree with the folders inside it where the example agent is planted; the
    last row is all the others in one run, whose target is cold <= 1.5x ruff."""
    print(f"\nscenario {title} (median of {rounds} alternating runs, seconds)")
    print(
        f"  {'repository':<32} {'cold':>6} {'warm':>6} {'touch':>6} {'ruff':>6} {'grep':>6} {'c/ruff':>7}"
        f" {'w/ruff':>7} {'c/grep':>7} {'RSS MB':>7} {'prompts':>7} {'cpu c':>6} {'cpu w':>6} {'cpu r':>6}"
        "  targets"
    )
    ok = True
    total_cold = total_ruff = 0.0
    for i, (tree, planted) in enumerate(rows):
        together = i == len(rows) - 1
        name = f"(all {len(rows) - 1} in one run)" if together else tree.name
        found, prompts = report(rl, tree)
        wanted = own_findings(rl, tree, planted)
        shutil.rmtree(tree / ".refusal_lint_cache", ignore_errors=True)
        cmds = lint_commands(rl, ruff)
        cmds["grep"] = ["grep", "-rl", GUARD_WORDS, "."]
        cmds["touched"] = [rl, "check", "."]
        # "warm": nothing changed since the last run (answered whole, static/memo.py);
        # "touched": one Python file saved again since (its stamp new, its bytes the same),
        # so the run goes through the files' cache: what a pre-commit run after an edit pays.
        before = {"warm": [rl, "check", "."], "touched": touching(rl, tree, planted[0] if planted else None)}
        t, rss = measure(cmds, tree, rounds, before)
        shutil.rmtree(tree / ".refusal_lint_cache", ignore_errors=True)
        cold, warm, base = t["cold"], t["warm"], t["ruff"]
        mb = max(rss["cold"], rss["warm"]) / 1024
        if together:
            checks = {"cold<=1.5x": cold <= 1.5 * base}
        else:
            total_cold += cold
            total_ruff += base
            checks = {
                "cold": cold <= max(2.0 * base, base + 0.25),
                "warm": warm <= max(0.3 * base, 0.15),
            }
        checks["rss"] = mb <= 300
        checks["findings"] = found == wanted
        good = all(checks.values())
        ok &= good
        failed = [k for k, v in checks.items() if not v]
        note = "pass" if good else "FAIL " + ",".join(failed)
        if found != wanted:
            extra = [f for f in found if f not in wanted]
            missing = [f for f in wanted if f not in found]
            note += f" (extra {len(extra)}: {extra[:3]}; missing {len(missing)}: {missing[:3]})"
        print(
            f"  {name:<32} {cold:6.2f} {warm:6.2f} {t['touched']:6.2f} {base:6.3f} {t['grep']:6.3f}"
            f" {cold / base:6.1f}x {warm / base:6.2f}x {cold / t['grep']:6.1f}x {mb:7.0f} {prompts:>7}"
            f" {t['cpu:cold']:6.2f} {t['cpu:warm']:6.2f} {t['cpu:ruff']:6.3f}  {note}"
        )
    print(
        f"  for information, the separate cold runs sum to {total_cold:.2f} s against ruff's "
        f"{total_ruff:.2f} s ({total_cold / max(total_ruff, 1e-9):.1f}x: Python's start-up, about 0.1 s "
        "a run, is much of it); prompts: the candidates `agents[].prompts` lists, summed over agents"
    )
    return ok


def touching(rl: str, tree: Path, planted: Path | None) -> list[str]:
    """What runs before a "touched" run: a run that fills the cache, then one Python file
    saved again, its bytes the same and its stamp new: the planted agent's first (by path),
    else the tree's."""
    if planted is not None:
        edited = planted / min(p.relative_to(EXAMPLE) for p in EXAMPLE.rglob("*.py"))
    else:
        edited = min(p for p in tree.rglob("*.py") if ".refusal_lint_cache" not in p.parts)
    return ["sh", "-c", '"$0" check . >/dev/null 2>&1; touch "$1"', rl, str(edited.relative_to(tree))]


def real(rl: str, ruff: str, work: Path, rounds: int, pick: str) -> bool:
    root = unpack(work)
    if root is None:
        print(f"scenario real: none of {[str(t) for t in SHARED]} found, skipped")
        return True
    repos = repositories(root, pick)
    together = root if not pick else work / f"picked-{pick}"
    if pick and not together.exists():
        for r in repos:
            shutil.copytree(r, together / r.name, symlinks=True)
    rows = [*((r, []) for r in repos), (together, [])]
    return table(rl, ruff, f"real: {len(repos)} repositories, bare", rows, rounds)


def carded(rl: str, ruff: str, work: Path, rounds: int, pick: str) -> bool:
    """Each shared repository with the example agent at its root: its findings and nothing else."""
    root = unpack(work)
    if root is None:
        print(f"scenario carded: none of {[str(t) for t in SHARED]} found, skipped")
        return True
    folder = work / (f"carded-{EXAMPLE.name}" if not pick else f"carded-{EXAMPLE.name}-{pick}")
    planted = [plant(r, folder / r.name) for r in repositories(root, pick)]
    rows = [*((p, [p]) for p in planted), (folder, planted)]
    title = f"carded: {len(planted)} repositories, {EXAMPLE.name} at each root"
    return table(rl, ruff, title, rows, rounds)


def build_stdlib(dest: Path, copies: int, carded: bool) -> Path:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    tree = dest / f"stdlib-x{copies}-{EXAMPLE.name if carded else 'bare'}"
    if tree.exists():
        return tree
    for i in range(copies):
        shutil.copytree(
            stdlib,
            tree / f"lib{i}",
            ignore=shutil.ignore_patterns("site-packages", "__pycache__"),
            symlinks=True,
        )
    if carded:
        # Into the root, as an agent repository has it (issue 20): every file is near the card.
        shutil.copytree(EXAMPLE, tree, ignore=shutil.ignore_patterns("expected.txt"), dirs_exist_ok=True)
    return tree


def stdlib(rl: str, ruff: str, work: Path, rounds: int) -> bool:
    """The stdlib with the example agent in its root (cold <= 1.0x ruff, warm <= 0.3x, its own
    findings only); four copies of it without a card (cold <= 0.6x)."""
    ok = True
    for copies, carded, cold_target, warm_target in ((1, True, 1.0, 0.3), (4, False, 0.6, None)):
        tree = build_stdlib(work, copies, carded)
        n_py = sum(1 for _ in tree.rglob("*.py"))
        size = sum(p.stat().st_size for p in tree.rglob("*.py"))
        found = findings(rl, tree)
        wanted = findings(rl, EXAMPLE) if carded else []
        cmds = lint_commands(rl, ruff)
        cmds["ruff"] = [ruff, "check", "--isolated", "--no-cache", "--select", "F", "-q", "."]
        cmds["grep -rl"] = ["grep", "-rl", GUARD_WORDS, "."]
        cmds["touched"] = [rl, "check", "."]
        shutil.rmtree(tree / ".refusal_lint_cache", ignore_errors=True)
        before = {"warm": [rl, "check", "."], "touched": touching(rl, tree, tree if carded else None)}
        t, rss = measure(cmds, tree, rounds, before)
        shutil.rmtree(tree / ".refusal_lint_cache", ignore_errors=True)
        base = t["ruff"]
        checks = {
            f"cold <= {cold_target}x ruff": t["cold"] <= cold_target * base,
            "findings": found == wanted,
        }
        if warm_target is not None:
            checks[f"warm <= {warm_target}x ruff"] = t["warm"] <= warm_target * base
        ok &= all(checks.values())
        agent = "the example agent in its root" if carded else "no card"
        print(
            f"\nscenario stdlib x{copies}: {n_py} .py files, {size / 1e6:.0f} MB, {agent}; "
            f"findings: {found or 'none'}"
        )
        for name, v in t.items():
            print(f"  {name:<10} {v * 1000:8.0f} ms   {v / base:5.2f} x ruff")
        shown = "; ".join(f"{k}: {verdict(v)}" for k, v in checks.items())
        print(f"  {shown} (peak RSS {rss['cold'] / 1024:.0f} MB)")
    return ok


def small(rl: str, work: Path, rounds: int) -> bool:
    agent = work / "small-agent"
    if not agent.exists():
        shutil.copytree(EXAMPLE, agent, ignore=shutil.ignore_patterns("expected.txt"))
    t, _ = measure(
        {
            "cold": [rl, "check", ".", "--no-cache"],
            "warm": [rl, "check", "."],
            "touched": [rl, "check", "."],
            "import libcst": [sys.executable, "-c", "import libcst"],
        },
        agent,
        rounds,
        {"warm": [rl, "check", "."], "touched": touching(rl, agent, agent)},
    )
    base = t["import libcst"]
    good = t["cold"] <= 2.0 * base and t["warm"] <= 0.6 * base
    print("\nscenario small: the example agent alone")
    for name, v in t.items():
        print(f"  {name:<14} {v * 1000:8.0f} ms   {v / base:5.2f} x import libcst")
    print(f"  cold <= 2.0x and warm <= 0.6x: {verdict(good)}")
    return good


def main() -> None:
    global EXAMPLE  # the agent planted (--agent)
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", default="real,carded,stdlib,small", help="comma-separated scenarios")
    ap.add_argument("--repos", default="", help="only the shared repositories whose name holds one of these")
    ap.add_argument("--keep", type=Path, help="build the trees here and keep them")
    ap.add_argument(
        "--agent",
        type=Path,
        default=EXAMPLE,
        help="the agent planted in the carded and stdlib scenarios (default: the survey agent; "
        "testdata/safety-agent's ids are words the shared repositories use: pii, violence, jailbreak)",
    )
    args = ap.parse_args()
    EXAMPLE = args.agent.resolve()
    rl, ruff = _tool("refusal-lint"), _tool("ruff")
    work = args.keep or Path(tempfile.mkdtemp(prefix="rl-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    only = set(args.only.split(","))
    ok = True
    try:
        print(
            f"machine: {platform.machine()}, {os.cpu_count()} cpus, {platform.system()}, "
            f"python {sys.version.split()[0]}; refusal-lint install: {_install_kind()}"
        )
        if "real" in only:
            ok &= real(rl, ruff, work, args.rounds, args.repos)
        if "carded" in only:
            ok &= carded(rl, ruff, work, args.rounds, args.repos)
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
