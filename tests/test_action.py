"""The composite GitHub Action at the repo root: its shape, and every command it runs."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml
from conftest import ROOT, TESTDATA, run_cli


def _action() -> dict[str, object]:
    data = yaml.safe_load((ROOT / "action.yml").read_text())
    assert isinstance(data, dict)
    return data


def test_action_shape() -> None:
    action = _action()
    assert action["name"] == "refusal-lint"
    assert set(action["inputs"]) == {"paths", "args", "sarif", "version"}  # type: ignore[arg-type]
    runs = action["runs"]
    assert isinstance(runs, dict) and runs["using"] == "composite"
    for step in runs["steps"]:
        assert step["shell"] == "bash"
        # Inputs reach the scripts through env, never pasted into them (script injection).
        assert "${{ inputs." not in step["run"]
    names = [s["name"] for s in runs["steps"]]
    assert names == ["Install refusal-lint", "Check (annotations)", "Job summary", "SARIF"]


def test_every_command_the_action_runs_works(tmp_path: Path) -> None:
    steps = _action()["runs"]["steps"]  # type: ignore[index]
    commands = [s["run"] for s in steps if s["run"].startswith("refusal-lint ")]
    assert len(commands) == 3
    for command in commands:
        words = shlex.split(command.split(">>")[0])
        args = [w for w in words[1:] if w not in ("$RL_PATHS", "$RL_ARGS")]
        if "--output" in args:
            args[args.index("--output") + 1] = str(tmp_path / "refusal-lint.sarif")
        result = run_cli(*args[:1], str(TESTDATA / "py-rl302"), "--no-cache", *args[1:])
        want = 1 if "--exit-zero" not in args else 0
        assert result.exit_code == want, (command, result.output)
    assert (tmp_path / "refusal-lint.sarif").read_text().startswith("{")
