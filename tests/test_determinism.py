"""The same tree gives the same findings under any --jobs and any load (DESIGN §3).

Limits are CPU time, never wall-clock time: a file over its CPU budget is RL005 wherever
it runs, and everything else is byte-identical.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import fixture_repo, run_cli

# About 3 s of CPU time to read; it declares another extension (its URI behind a name, so
# only binding can tell), so its facts change nothing.
HEAVY = (
    "from a2a.types import AgentExtension\n\nfrom survey.tracing import TRACE_URI\n"
    + "".join(f"total_{i} = compute({i}, 'col', [1, 2, 3]) + offset\n" for i in range(15_000))
    + "TRACE = AgentExtension(uri=TRACE_URI, params={})\n"
)


def _json(root: Path, *args: str) -> str:
    result = run_cli("check", str(root), "--no-cache", "--format", "json", *args, cwd=root)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_jobs_and_a_tight_cpu_limit_change_nothing_but_rl005(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    shutil.copytree(fixture_repo("guard-helper-chain-drift"), root)
    (root / "survey" / "generated_totals.py").write_text(HEAVY)
    # In the tree, read by every run alike: a config above it would make its folder the project.
    config = root / "tight.yaml"
    config.write_text("parse-timeout: 1\n")
    one = _json(root, "--jobs", "1")
    two = _json(root, "--jobs", "2")
    assert one == two

    tight = json.loads(_json(root, "--jobs", "2", "--config", str(config)))
    [unchecked] = [f for f in tight["findings"] if f["code"] == "RL005"]
    assert (unchecked["path"], unchecked["line"], unchecked["rule_id"]) == (
        "survey/generated_totals.py",
        1,
        None,
    )
    assert "CPU time limit (1 s)" in unchecked["message"]
    tight["findings"].remove(unchecked)
    tight["summary"]["warnings"] -= 1
    assert tight == json.loads(one)
    assert [f["code"] for f in tight["findings"]] == ["RL301", "RL302"]
