"""The composite GitHub Action at the repo root: its shape, and its check step run for real."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, TESTDATA


def _action() -> dict[str, object]:
    data = yaml.safe_load((ROOT / "action.yml").read_text())
    assert isinstance(data, dict)
    return data


def _steps() -> list[dict[str, object]]:
    runs = _action()["runs"]
    assert isinstance(runs, dict) and runs["using"] == "composite"
    steps = runs["steps"]
    assert isinstance(steps, list)
    return steps


def test_action_shape() -> None:
    action = _action()
    assert action["name"] == "refusal-lint"
    assert set(action["inputs"]) == {"paths", "args", "sarif", "python-version"}  # type: ignore[arg-type]
    steps = _steps()
    assert [s["name"] for s in steps] == ["Set up Python", "Install refusal-lint", "Check"]
    assert str(steps[0]["uses"]).startswith("actions/setup-python@")
    for step in steps[1:]:
        assert step["shell"] == "bash"
        # Inputs reach the scripts through env, never pasted into them (script injection).
        assert "${{ inputs." not in str(step["run"])
    # The check runs once; the summary and the SARIF file come from that same run.
    assert sum(str(s.get("run", "")).count("refusal-lint check") for s in steps) == 1


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("sarif", ["true", "false"])
def test_the_check_step_annotates_summarises_and_writes_sarif(tmp_path: Path, sarif: str) -> None:
    work = tmp_path / "workspace"
    shutil.copytree(TESTDATA / "py-rl302", work / "agents" / "survey", ignore=shutil.ignore_patterns("*.txt"))
    summary = tmp_path / "summary.md"
    check = next(s for s in _steps() if s["name"] == "Check")
    env = {
        **os.environ,
        "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
        "GITHUB_STEP_SUMMARY": str(summary),
        "RL_PATHS": "agents/survey",
        "RL_ARGS": "--no-cache",
        "RL_SARIF": sarif,
    }
    script = ["bash", "-e", "-c", str(check["run"])]
    done = subprocess.run(script, cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr  # errors found: the step fails the job
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 3
    assert "file=agents/survey/survey/tools.py," in done.stdout  # from the workspace, as GitHub wants
    assert summary.read_text().startswith("## refusal-lint")
    written = work / "refusal-lint.sarif"
    assert written.exists() == (sarif == "true")
    if sarif == "true":
        results = json.loads(written.read_text())["runs"][0]["results"]
        assert len(results) == 3


@pytest.mark.parametrize("bad", ["markdown", "html=out.html", "sarif="])
def test_a_bad_also_is_one_line_and_exit_2(bad: str) -> None:
    from conftest import run_cli

    result = run_cli("check", str(TESTDATA / "py-rl302"), "--no-cache", "--also", bad)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"refusal-lint: error: --also {bad}: give FORMAT=FILE")
