"""The text report as ruff prints it: --statistics alone, -q, colour from the environment;
the matrix's drift mark; one wording and one span wherever a file kind differs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import TESTDATA, check_json, run_in

CASE = TESTDATA / "py-rl302"
TABLE = ["    1  RL301  rule-unguarded", "    2  RL302  guard-unknown-rule"]


def test_statistics_prints_the_table_and_the_summary_only() -> None:
    out = run_in(CASE, "check", "--no-cache", "--statistics", "--no-color").stdout.splitlines()
    assert out == [*TABLE, "Found 3 errors and 0 warnings."]


def test_quiet_statistics_keeps_the_table_only() -> None:
    out = run_in(CASE, "check", "--no-cache", "--statistics", "-q", "--no-color").stdout.splitlines()
    assert out == TABLE
    quiet = run_in(CASE, "check", "--no-cache", "-q", "--no-color").stdout.splitlines()
    assert len(quiet) == 3 and all(": RL30" in line for line in quiet)


def test_statistics_mark_what_fix_can_fix() -> None:
    out = run_in(TESTDATA / "py-rl303", "check", "--no-cache", "--statistics", "--no-color").stdout
    assert "  RL303  [*] guard-reason-mismatch" in out


@pytest.mark.parametrize(
    ("env", "args", "colored"),
    [
        ({"FORCE_COLOR": "1"}, [], True),
        ({"FORCE_COLOR": ""}, [], False),
        ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, [], False),
        ({"FORCE_COLOR": "1"}, ["--no-color"], False),
        ({"NO_COLOR": "1"}, ["--color"], True),
        ({}, [], False),  # not a terminal
    ],
)
def test_colour_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], args: list[str], colored: bool
) -> None:
    for name in ("FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = run_in(CASE, "check", "--no-cache", *args).stdout
    assert ("\x1b[" in out) == colored


def test_all_checks_passed_is_green_in_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = run_in(TESTDATA / "survey-agent", "check", "--no-cache").stdout
    assert out == "\x1b[32mAll checks passed!\x1b[0m\n"
    plain = run_in(TESTDATA / "survey-agent", "check", "--no-cache", "--no-color").stdout
    assert plain == "All checks passed!\n"


def test_matrix_marks_reason_drift() -> None:
    text = run_in(TESTDATA / "py-rl303", "matrix", "--no-cache").stdout
    [seg] = [line for line in text.splitlines() if line.strip().startswith("seg-mix")]
    assert seg.endswith("survey/tools.py:6 ≠ reason")
    data = json.loads(run_in(TESTDATA / "prompt-rl203", "matrix", "--no-cache", "--format", "json").stdout)
    drift = {r["rule"]: r["reason_drift"] for r in data["agents"][0]["rules"]}
    assert drift["invalid-cut"] == {"prompt": True, "guards": False}
    clean = run_in(TESTDATA / "survey-agent", "matrix", "--no-cache").stdout
    assert "≠" not in clean


def test_a_markdown_rl203_spans_the_rule_id() -> None:
    data = check_json(TESTDATA / "prompt-rl203")
    spans = {
        f["path"]: (f["line"], f["column"], f["end_line"], f["end_column"])
        for f in data["findings"]
        if f["code"] == "RL203"
    }
    assert spans["system_prompt.md"] == (4, 3, 4, 3 + len("seg-mix"))
    assert spans["survey/prompt.py"][3] - spans["survey/prompt.py"][1] == len("seg-mix")


def test_nul_bytes_read_the_same_in_every_kind_of_file(tmp_path: Path) -> None:
    shutil.copytree(TESTDATA / "survey-agent", tmp_path / "agent")
    guard = b'from policy import refuse\nrefuse("seg-mix")\x00\n'
    (tmp_path / "agent" / "survey_agent" / "blob.py").write_bytes(guard)
    (tmp_path / "agent" / "agent-card.json").write_bytes(b'{"refusals": 1}\x00')
    data = check_json(tmp_path / "agent")
    messages = {f["path"]: f["message"] for f in data["findings"] if f["code"] == "RL002"}
    assert messages == {
        "agent-card.json": "binary file (holds NUL bytes)",
        "survey_agent/blob.py": "binary file (holds NUL bytes)",
    }


def test_statistics_on_github_actions_is_the_table_and_with_another_format_a_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On GitHub Actions (whose default format is annotations) --statistics prints the table
    it asks for; with a format named, that report is printed whole and a note says so."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    out = run_in(CASE, "check", "--no-cache", "--statistics", "--no-color")
    assert out.stdout.splitlines() == [*TABLE, "Found 3 errors and 0 warnings."]
    named = run_in(CASE, "check", "--no-cache", "--statistics", "--format", "json")
    assert len(json.loads(named.stdout)["findings"]) == 3
    assert "note: --statistics is a text table; the json report is whole" in named.stderr
