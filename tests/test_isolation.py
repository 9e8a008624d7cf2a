"""A parser crash or hang costs one file, never the run; pathological files never take it down."""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import check_json

from refusal_lint.core.facts import FileFacts
from refusal_lint.core.kinds import ProblemKind
from refusal_lint.static import workers
from refusal_lint.static.extract import worker
from refusal_lint.static.extract.job import Job
from refusal_lint.static.extract.run import extract as real_extract

GUARD = b'from policy import refuse\n\n\ndef f():\n    return refuse("seg-mix")\n'


def _sabotaged(job: Job) -> FileFacts:
    if job.path.endswith("crash.py"):
        # Thread-directed, as a real fault in the parser is: the process dies right here.
        signal.pthread_kill(threading.get_ident(), signal.SIGSEGV)
        time.sleep(60)
    if job.path.endswith("hang.py"):
        time.sleep(3600)  # blocked without using CPU: only the wall-clock backstop ends it
    if job.path.endswith("spin.py"):
        while True:  # burns CPU: the kernel's CPU-time limit ends it, whatever the load
            pass
    return real_extract(job)


@pytest.fixture
def sabotage(monkeypatch: pytest.MonkeyPatch) -> None:
    # Workers are forked, so they inherit the patched function.
    monkeypatch.setattr(worker, "extract", _sabotaged)


def test_pool_survives_crash_and_hang(sabotage: None) -> None:
    pool = workers.Pool(2, cpu_limit=1, backstop=4)
    names = ["a.py", "crash.py", "b.py", "hang.py", "spin.py", "c.py", "d.py"]
    start = time.monotonic()
    for name in names:
        pool.submit(Job(name, "python", GUARD))
    results = pool.finish().facts
    pool.close()
    assert time.monotonic() - start < 30
    assert sorted(results) == sorted(names)
    assert results["crash.py"].problem is not None
    assert results["crash.py"].problem.message.startswith("the parser crashed on this file (signal 11)")
    assert results["hang.py"].problem is not None
    assert results["hang.py"].problem.kind == ProblemKind.UNCHECKED
    assert "made no progress on this file for 4 s" in results["hang.py"].problem.message
    assert results["spin.py"].problem is not None and results["spin.py"].problem.kind == ProblemKind.UNCHECKED
    assert "used up its CPU time limit (1 s)" in results["spin.py"].problem.message
    for ok in ("a.py", "b.py", "c.py", "d.py"):
        assert results[ok].problem is None and len(results[ok].guards) == 1


def test_own_work_runs_while_the_workers_parse() -> None:
    """`finish(meanwhile)` takes this process's steps between the workers' messages, stops
    asking once a step says none is left, and still collects every job."""
    pool = workers.Pool(2, cpu_limit=5)
    names = [f"m{i}.py" for i in range(6)]
    for name in names:
        pool.submit(Job(name, "python", GUARD))
    steps: list[int] = []

    def step() -> bool:
        steps.append(len(steps))
        return len(steps) < 3

    results = pool.finish(step).facts
    pool.close()
    assert sorted(results) == names
    assert all(len(results[n].guards) == 1 for n in names)
    assert 1 <= len(steps) <= 3  # asked only while a worker is busy; never past its False


def _held_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, path: str) -> tuple[workers.Pool, Path]:
    """A pool of two workers in which the job for `path` ends only once the file returned is
    written (or after a minute): what a test waits for is then decided by no timing."""
    gate = tmp_path / "go"

    def blocked(job: Job) -> FileFacts:
        if job.path == path:
            give_up = time.monotonic() + 60
            while not gate.exists() and time.monotonic() < give_up:
                time.sleep(0.01)
        return real_extract(job)

    monkeypatch.setattr(worker, "extract", blocked)
    return workers.Pool(2, cpu_limit=5, backstop=20), gate


def test_a_guess_never_holds_back_the_jobs_a_run_needs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A spare job (Extraction.guess) takes a worker only when no other job waits, and
    `finish` waits for it only when asked: here the guess cannot end before the ordinary
    wait has returned (it waits for a file written after), so no timing decides it. Were
    the guess waited for, it would give up after a minute and the first wait return it."""
    pool, gate = _held_back(monkeypatch, tmp_path, "guess.py")
    pool.submit(Job("guess.py", "python", GUARD), spare=True)
    names = [f"n{i}.py" for i in range(4)]
    for name in names:
        pool.submit(Job(name, "python", GUARD))
    assert sorted(pool.finish().facts) == names  # the guess is still out
    gate.write_text("")
    late = pool.finish(spare=True).facts
    pool.close()
    assert list(late) == ["guess.py"]
    assert late["guess.py"].problem is None and len(late["guess.py"].guards) == 1


def test_a_wait_for_one_guess_leaves_the_others_out(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`finish(spare=PATH)` (a job the run needs now, guessed ahead) waits for that guess,
    not for the others: here the other cannot end before the wait returns (it waits for a
    file written after), so no timing decides it."""
    pool, gate = _held_back(monkeypatch, tmp_path, "slow.py")
    pool.submit(Job("slow.py", "python", GUARD), spare=True)
    pool.submit(Job("wanted.py", "python", GUARD), spare=True)
    assert list(pool.finish(spare="wanted.py").facts) == ["wanted.py"]  # the slow guess is still out
    gate.write_text("")
    late = pool.finish(spare=True).facts
    pool.close()
    assert list(late) == ["slow.py"]


def test_a_worker_collects_cycles_though_forked_from_a_paused_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """pipeline.run pauses the cyclic collector in the main process (core/nogc.py); a
    worker forked from it starts with the collector on again and pauses it only per file."""
    import gc

    from refusal_lint.core.nogc import no_gc
    from refusal_lint.static.extract.run import unchecked

    def report(job: Job) -> FileFacts:
        return unchecked(job.path, job.kind, f"collector on: {gc.isenabled()}")

    monkeypatch.setattr(worker, "extract", report)
    with no_gc():
        pool = workers.Pool(1, cpu_limit=5)
        pool.submit(Job("m.py", "python", GUARD))
        facts = pool.finish().facts["m.py"]
        pool.close()
    assert gc.isenabled()
    assert facts.problem is not None and facts.problem.message.startswith("collector on: True")


def test_cli_reports_crash_and_keeps_other_findings(sabotage: None, tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_bytes(GUARD)
    (tmp_path / "crash.py").write_bytes(GUARD)
    (tmp_path / "spin.py").write_bytes(GUARD)
    (tmp_path / ".refusal-lint.yaml").write_text("parse-timeout: 1\n")
    data = check_json(tmp_path)
    got = [(f["path"], f["line"], f["code"], f["rule_id"]) for f in data["findings"]]
    assert got == [
        ("crash.py", 1, "RL005", None),
        ("spin.py", 1, "RL005", None),
        ("tools.py", 5, "RL001", "seg-mix"),
    ]


@pytest.mark.parametrize("exhaustive", [False, True], ids=["default", "exhaustive"])
def test_a_file_that_cannot_matter_gives_no_rl005_in_either_mode(
    sabotage: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exhaustive: bool
) -> None:
    """Only the exhaustive mode parses a file whose text cannot matter; if that parse runs
    out of CPU or crashes, the file is not needed (as for RL002, DESIGN §3), so both modes
    report the same: the agent's own finding, no RL005 (a real case: langgraph's
    tests/test_time_travel*.py)."""
    (tmp_path / "tools.py").write_bytes(GUARD)
    (tmp_path / "spin.py").write_bytes(b"def step(state):\n    return state + 1\n")
    (tmp_path / "crash.py").write_bytes(b"VALUES = [1, 2, 3]\n")
    (tmp_path / ".refusal-lint.yaml").write_text("parse-timeout: 1\n")
    if exhaustive:
        monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", "1")
    data = check_json(tmp_path)
    assert [(f["path"], f["code"]) for f in data["findings"]] == [("tools.py", "RL001")]


def test_a_needed_file_keeps_its_rl005_in_exhaustive_mode(
    sabotage: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tools.py").write_bytes(GUARD)
    (tmp_path / "spin.py").write_bytes(GUARD)
    (tmp_path / ".refusal-lint.yaml").write_text("parse-timeout: 1\n")
    monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", "1")
    data = check_json(tmp_path)
    assert [(f["path"], f["code"]) for f in data["findings"]] == [("spin.py", "RL005"), ("tools.py", "RL001")]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        # CPython rejects it in C.
        (
            "x = " + "[" * 5000 + "]" * 5000 + "\nrefuse('seg-mix')\n",
            "syntax error: too many nested parentheses",
        ),
        # Valid, but the C parser cannot build its tree within the depth it is given.
        (
            "x = " + " + ".join(['"a"'] * 50_000) + "\nrefuse('seg-mix')\n",
            "nested more than 2000 levels deep",
        ),
    ],
    ids=["deep-brackets", "50k-terms"],
)
def test_pathological_python(tmp_path: Path, source: str, message: str) -> None:
    (tmp_path / "bad.py").write_text(source)
    (tmp_path / "tools.py").write_bytes(GUARD)
    start = time.monotonic()
    data = check_json(tmp_path)
    assert time.monotonic() - start < 60
    got = [(f["path"], f["code"]) for f in data["findings"]]
    # RL002 only where CPython's parser rejects the file; a valid file past a limit is RL005.
    code = "RL002" if message.startswith("syntax error") else "RL005"
    assert got == [("bad.py", code), ("tools.py", "RL001")]
    assert data["findings"][0]["message"].startswith(message)


def test_a_long_implicit_concatenation_is_read(tmp_path: Path) -> None:
    # 5,000 string tokens in one literal (a recursive parser cannot read it): one flat
    # value, and the guard after it is found.
    (tmp_path / "bad.py").write_text("x = (" + " ".join(['"a"'] * 5000) + ")\nrefuse('seg-mix')\n")
    data = check_json(tmp_path)
    assert [(f["path"], f["code"], f["line"]) for f in data["findings"]] == [("bad.py", "RL001", 2)]


def test_deep_yaml_is_bounded(tmp_path: Path) -> None:
    wk = tmp_path / ".well-known"
    wk.mkdir()
    (wk / "agent-card.yaml").write_text("refusal: " + "[" * 3000 + "]" * 3000 + "\n")
    data = check_json(tmp_path)
    assert [f["code"] for f in data["findings"]] == ["RL002"]


def test_unreadable_file_is_a_note(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_bytes(GUARD)
    (tmp_path / "other.py").write_bytes(GUARD)
    real_open = open

    def fake_open(file: object, *args: object, **kwargs: object) -> object:
        if str(file).endswith("other.py"):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    import builtins

    from conftest import run_cli

    monkeypatch.setattr(builtins, "open", fake_open)
    result = run_cli("check", str(tmp_path), "--no-cache")
    assert result.exit_code == 1
    assert "other.py: cannot read (Permission denied)" in result.stderr
    assert "tools.py:5:12: RL001 [seg-mix]" in result.stdout


def test_file_vanishing_during_the_walk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_bytes(GUARD)
    (tmp_path / "gone.py").write_bytes(GUARD)
    from refusal_lint.static.discover import walk as discover

    real_walk = discover.walk

    def walk_then_delete(*args: object, **kwargs: object) -> discover.Walk:
        found = real_walk(*args, **kwargs)  # type: ignore[arg-type]
        (tmp_path / "gone.py").unlink()
        return found

    monkeypatch.setattr(discover, "walk", walk_then_delete)
    data = check_json(tmp_path)
    assert [(f["path"], f["code"]) for f in data["findings"]] == [("tools.py", "RL001")]


def test_scan_batch_blames_one_file_and_goes_on(sabotage: None, tmp_path: Path) -> None:
    from refusal_lint.static.extract.job import ScanJob

    names = ["a.py", "crash.py", "b.py", "hang.py", "c.py", "plain.py"]
    for name in names:
        (tmp_path / name).write_bytes(b"x = 1\n" if name == "plain.py" else GUARD)
    files = tuple((n, str(tmp_path / n), (tmp_path / n).stat().st_size, None) for n in names)
    pool = workers.Pool(1, cpu_limit=1, backstop=1.5)
    pool.submit(ScanJob(files, (), (), 1 << 20))
    results = pool.finish()
    pool.close()
    assert sorted(path for path, _, facts in results.scanned if facts is not None) == ["a.py", "b.py", "c.py"]
    assert sorted(results.facts) == ["crash.py", "hang.py"]
    assert results.facts["crash.py"].problem is not None
    assert "crashed" in results.facts["crash.py"].problem.message
    assert results.skipped == ["plain.py"]


def test_newer_syntax_is_no_syntax_error(tmp_path: Path) -> None:
    # PEP 695 (Python 3.12): valid code that CPython 3.11's parser rejects is never RL002
    # (DESIGN §6); it is read like any file, rewritten in place where this Python is older.
    (tmp_path / "tools.py").write_text(
        "type RuleId = str\n\n\ndef first[T](x: list[T]) -> T:\n    return x[0]\n\n\nrefuse('seg-mix')\n"
    )
    data = check_json(tmp_path)
    assert [(f["path"], f["code"], f["line"]) for f in data["findings"]] == [("tools.py", "RL001", 8)]


def test_newer_syntax_no_rewrite_covers_is_unchecked(tmp_path: Path) -> None:
    # PEP 758 (3.14): `except A, B:` without brackets has no rewrite (newer.py rewrites
    # PEP 695 and PEP 701's fields only).
    (tmp_path / "tools.py").write_text(
        "try:\n    x = 1\nexcept KeyError, TypeError:\n    x = 0\nrefuse('seg-mix')\n"
    )
    data = check_json(tmp_path)
    got = [(f["path"], f["code"], f["line"]) for f in data["findings"]]
    if sys.version_info >= (3, 14):
        assert got == [("tools.py", "RL001", 5)]
    else:
        assert got == [("tools.py", "RL005", 1)]
        assert "CPython 3.11 cannot parse this file" in data["findings"][0]["message"]


def test_a_generated_module_past_the_read_budget_is_rl005_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 20: a 3.9 MB generated module took 22 s and 672 MB. Past 1 MiB a needed Python
    # file is RL005 without being parsed, in both modes; one that cannot matter is nothing.
    rows = "".join(
        f'    {{"id": "case-{i}", "text": "answer {i}", "score": {i % 7}}},\n' for i in range(24_000)
    )
    guard = "\n\ndef pick(i):\n    return refuse(CASES[i]['id'])\n"
    (tmp_path / "cases.py").write_text("CASES = [\n" + rows + "]\n" + guard)
    (tmp_path / "table.py").write_text("CASES = [\n" + rows + "]\n")
    assert (tmp_path / "cases.py").stat().st_size > 1024 * 1024
    for exhaustive in ("0", "1"):
        monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", exhaustive)
        data = check_json(tmp_path)
        assert [(f["path"], f["code"]) for f in data["findings"]] == [("cases.py", "RL005")], exhaustive
        assert "past the 1 MiB read budget" in data["findings"][0]["message"]


def test_a_run_where_a_worker_died_is_never_kept_whole(
    sabotage: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What it held is tried again by the next run, so the whole run is not kept either
    (static/memo.py), however clean its report (here: a file that cannot matter, parsed by
    the exhaustive mode only, gives no RL005)."""
    from conftest import run_cli

    from refusal_lint.static import memo

    monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", "1")
    (tmp_path / "tools.py").write_bytes(GUARD)
    (tmp_path / "crash.py").write_bytes(b"VALUES = [1, 2, 3]\n")
    run_cli("check", str(tmp_path), "--jobs", "2", cwd=tmp_path)
    assert not list((tmp_path / ".refusal_lint_cache" / memo.FOLDER).glob("*.json"))
    (tmp_path / "crash.py").unlink()
    run_cli("check", str(tmp_path), "--jobs", "2", cwd=tmp_path)
    assert len(list((tmp_path / ".refusal_lint_cache" / memo.FOLDER).glob("*.json"))) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal")
def test_a_worker_ends_with_a_parent_killed_alone(tmp_path: Path) -> None:
    """`kill PID` of a run (a supervisor's SIGTERM to it alone) leaves no worker holding the
    run's stdout open: `refusal-lint check . | tee log` ends."""
    import os
    import subprocess

    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from refusal_lint.static import workers\n"
            "w = workers._Worker(workers.Pool(1, 5.0).ctx, 5.0)\n"
            "print(w.proc.pid, flush=True)\n"
            "time.sleep(600)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())  # started, and waiting for work
    parent.send_signal(signal.SIGTERM)
    parent.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        if Path(f"/proc/{child}/stat").read_text().split()[2] == "Z":
            return  # dead, left for init to reap
        time.sleep(0.05)
    os.kill(child, signal.SIGKILL)
    pytest.fail("the worker outlived its parent")
