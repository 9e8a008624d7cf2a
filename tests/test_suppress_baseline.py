"""Adoption of a legacy repo (issue 15): suppression comments beyond Python, and a baseline."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import TESTDATA, check_json, fixture_repo, run_cli

from refusal_lint.static.extract.data.comments import suppressions


def _copy(case: str, tmp_path: Path) -> Path:
    root = tmp_path / case
    shutil.copytree(fixture_repo(case), root, ignore=shutil.ignore_patterns("expected.txt"))
    return root


def _found(root: Path, *extra: str) -> list[tuple[str, int, str]]:
    return [(f["path"], f["line"], f["code"]) for f in check_json(root, *extra)["findings"]]


def test_yaml_comment_on_a_block_scalar_key_covers_the_scalar(tmp_path: Path) -> None:
    root = _copy("prompt-crewai-yaml-drift", tmp_path)
    tasks = root / "survey" / "config" / "tasks.yaml"
    assert _found(root) == [("survey/config/tasks.yaml", 6, "RL203")]
    tasks.write_text(
        tasks.read_text().replace("  description: |", "  description: |  # refusal-lint: ignore[RL203]")
    )
    assert _found(root) == []


def test_yaml_hash_inside_a_block_scalar_is_text_not_a_comment(tmp_path: Path) -> None:
    root = _copy("prompt-crewai-yaml-drift", tmp_path)
    tasks = root / "survey" / "config" / "tasks.yaml"
    text = tasks.read_text().replace(
        "That cut is not available.", "That cut is not available. # refusal-lint: ignore"
    )
    tasks.write_text(text)
    assert [c for _, _, c in _found(root)] == ["RL203"]


def test_unused_yaml_suppression_is_rl003(tmp_path: Path) -> None:
    root = _copy("prompt-crewai-yaml", tmp_path)
    agents = root / "survey" / "config" / "agents.yaml"
    agents.write_text(agents.read_text().replace("analyst:", "analyst:  # refusal-lint: ignore[RL203]"))
    data = check_json(root)
    [f] = data["findings"]
    assert (f["path"], f["line"], f["column"], f["code"]) == ("survey/config/agents.yaml", 1, 11, "RL003")
    assert f["message"] == "unused suppression `refusal-lint: ignore[RL203]`"


def test_markdown_and_jinja_comments(tmp_path: Path) -> None:
    root = _copy("prompt-rl203", tmp_path)
    prompt = root / "system_prompt.md"
    lines = prompt.read_text().splitlines()
    lines[3] += " <!-- refusal-lint: ignore[RL203] -->"
    prompt.write_text("\n".join(lines) + "\n")
    assert ("system_prompt.md", 4, "RL203") not in _found(root)
    assert suppressions("t.j2", "text", "- x: y {# refusal-lint: ignore[RL202, RL203] #}\n")[0].codes == (
        "RL202",
        "RL203",
    )
    assert suppressions("c.json", "json", '{"a": "# refusal-lint: ignore"}') == ()


def test_baseline_hides_recorded_findings_and_survives_moves(tmp_path: Path) -> None:
    root = _copy("py-rl302", tmp_path)
    base = tmp_path / "baseline.json"
    result = run_cli("check", str(root), "--no-cache", "--write-baseline", str(base))
    assert result.exit_code == 0
    assert "wrote 3 finding(s)" in result.stderr
    recorded = json.loads(base.read_text())
    assert [r["code"] for r in recorded["findings"]] == ["RL301", "RL302", "RL302"]
    assert _found(root, "--baseline", str(base)) == []
    tools = root / "survey" / "tools.py"
    tools.write_text("\n\n\n" + tools.read_text())  # every finding's line moves
    assert _found(root, "--baseline", str(base)) == []
    # A new finding is reported; an entry that no longer matches is pointed out.
    tools.write_text(tools.read_text().replace('"astro-cut"', '"astro-cuts"'))
    data = check_json(root, "--baseline", str(base))
    got = [(f["path"], f["line"], f["code"], f["rule_id"]) for f in data["findings"]]
    # The baseline stands outside the folder the run starts from: its path is shown absolute.
    assert got == [(str(base), 3, "RL003", None), ("survey/tools.py", 11, "RL302", "astro-cuts")]
    assert "RL302 [astro-cut] in survey/tools.py matches no finding now" in data["findings"][0]["message"]


def test_a_baseline_kept_in_the_repo_is_no_prompt(tmp_path: Path) -> None:
    """The usual place for a baseline is the repo's root: its entries quote the prompt
    lines they record (an RL203's `- x-y: reason`), and are no prompt themselves."""
    root = _copy("prompt-rl203", tmp_path)
    before = _found(root)
    assert [c for _, _, c in before] == ["RL203"] * 3
    base = root / ".refusal-lint-baseline.json"
    assert run_cli("check", str(root), "--no-cache", "--write-baseline", str(base)).exit_code == 0
    assert _found(root, "--baseline", str(base)) == []
    assert _found(root) == before
    assert run_cli("check", str(root), "--no-cache", "--write-baseline", str(base)).exit_code == 0
    assert len(json.loads(base.read_text())["findings"]) == 3


def _two_agents_baselined(tmp_path: Path) -> tuple[Path, str]:
    """A git work tree of two agents (`agents/a`, `agents/b`), each with an RL302, and the
    baseline written at its top."""
    root = tmp_path / "repo"
    for name in ("a", "b"):
        shutil.copytree(
            fixture_repo("py-rl302"), root / "agents" / name, ignore=shutil.ignore_patterns("*.txt")
        )
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, capture_output=True)
    baseline = str(root / "refusal-baseline.json")
    run_cli("check", ".", "--no-cache", "--write-baseline", baseline, cwd=root)
    return root, baseline


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_baseline_holds_from_any_folder_of_a_git_work_tree(tmp_path: Path) -> None:
    """No config: the paths are the git work tree's, so a run of a sub-folder (a CI step's
    `paths:`) or one started there matches the entries written at the top, and leaves the
    other agent's alone."""
    root, baseline = _two_agents_baselined(tmp_path)
    for cwd, args in ((root, ["agents"]), (root / "agents" / "a", ["."]), (root / "agents", ["a"])):
        found = run_cli("check", *args, "--no-cache", "--format", "json", "--baseline", baseline, cwd=cwd)
        assert (found.exit_code, json.loads(found.stdout)["findings"]) == (0, []), (cwd, args)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_baseline_rewritten_from_a_sub_folder_keeps_the_other_agents_entries(tmp_path: Path) -> None:
    """`--write-baseline` from one agent's folder (as RL003's message says to) rewrites
    that folder's entries only: the other agent's, which that run did not see, stay, so CI
    at the top still passes."""
    root, baseline = _two_agents_baselined(tmp_path)
    whole = json.loads(Path(baseline).read_text())["findings"]
    assert {f["path"].split("/")[1] for f in whole} == {"a", "b"}
    run_cli("check", ".", "--no-cache", "--write-baseline", baseline, cwd=root / "agents" / "a")
    assert json.loads(Path(baseline).read_text())["findings"] == whole
    found = run_cli("check", ".", "--no-cache", "--format", "json", "--baseline", baseline, cwd=root)
    assert (found.exit_code, json.loads(found.stdout)["findings"]) == (0, [])


@pytest.mark.parametrize("fmt", ["json", "sarif", "rdjson", "gitlab"])
def test_a_report_left_in_the_repo_is_no_prompt(tmp_path: Path, fmt: str) -> None:
    """A CI step that writes its report into the checkout (`--output report.json`) leaves
    a file that quotes every finding's prompt line and message: the next run finds the same."""
    root = _copy("prompt-rl203", tmp_path)
    before = _found(root)
    assert before
    result = run_cli(
        "check", str(root), "--no-cache", "--format", fmt, "--output", str(root / f"report-{fmt}.json")
    )
    assert result.exit_code == 1
    assert _found(root) == before


def test_baseline_from_config(tmp_path: Path) -> None:
    root = _copy("py-rl302", tmp_path)
    run_cli("check", str(root), "--no-cache", "--write-baseline", str(root / "refusal-baseline.json"))
    (root / ".refusal-lint.yaml").write_text("baseline: refusal-baseline.json\n")
    assert _found(root) == []


def test_a_configured_baseline_holds_from_a_sub_folder(tmp_path: Path) -> None:
    """Its paths are the project's (the config's folder): a run started in an agent's
    sub-folder, or one that wrote it from there, matches the same entries; entries outside
    the folder checked are not stale."""
    root = tmp_path / "repo"
    for name in ("a", "b"):
        shutil.copytree(
            fixture_repo("py-rl302"), root / "agents" / name, ignore=shutil.ignore_patterns("*.txt")
        )
    (root / ".refusal-lint.yaml").write_text("baseline: refusal-baseline.json\n")
    baseline = str(root / "refusal-baseline.json")
    written = run_cli("check", ".", "--no-cache", "--write-baseline", baseline, cwd=root)
    assert "wrote 6 finding(s)" in written.stderr
    assert _found(root) == []
    sub = root / "agents" / "a"
    assert check_json(sub)["findings"] == []  # no RL003 for agents/b's entries
    # Written from the sub-folder, read from the top: the sub-folder's entries hold.
    run_cli("check", ".", "--no-cache", "--write-baseline", baseline, cwd=sub)
    paths = {
        r["path"].split("/")[1] for r in json.loads((root / "refusal-baseline.json").read_text())["findings"]
    }
    assert paths == {"a"}
    assert {path.split("/")[1] for path, _, _ in _found(root)} == {"b"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read baseline"),
        ("{not json", "invalid baseline"),
        ('{"findings": []}', "not a refusal-lint baseline"),
        ('{"format": "refusal-lint-baseline/1", "findings": [{"code": 1}]}', "baseline entry 1 is not"),
    ],
)
def test_bad_baseline_is_one_line_exit_2(tmp_path: Path, content: str | None, message: str) -> None:
    base = tmp_path / "baseline.json"
    if content is not None:
        base.write_text(content)
    result = run_cli("check", str(TESTDATA / "py-rl302"), "--no-cache", "--baseline", str(base))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"refusal-lint: error: {base}: {message}")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("prefix", ["", "f", "rf"])
def test_a_comment_after_a_multiline_string_covers_its_lines(tmp_path: Path, prefix: str) -> None:
    """No comment can stand inside a triple-quoted prompt: one where it ends speaks for all
    of its lines, as ruff's `noqa` does; one on any other line still covers its own only."""
    root = _copy("prompt-adk-function-call-drift", tmp_path)
    agent = root / "survey" / "agent.py"
    text = agent.read_text().replace('TEMPLATE = """', f'TEMPLATE = {prefix}"""')
    if prefix:
        text = text.replace("{study}", "{{study}}")
    agent.write_text(text)
    assert _found(root) == [("survey/agent.py", 9, "RL203")]
    covered = text.replace('available.\n"""\n', 'available.\n"""  # refusal-lint: ignore[RL203]\n')
    agent.write_text(covered)
    assert _found(root) == []
    before = "def build_instruction("
    elsewhere = text.replace(before, before + "  # refusal-lint: ignore[RL203]\n    ")
    agent.write_text(elsewhere)
    assert [c for _, _, c in _found(root)] == ["RL203", "RL003"]
