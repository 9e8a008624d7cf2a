"""CLI surface: rules/rule, options, exit statuses, and strict config validation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import check_json, fixture_repo, run_cli

from refusal_lint.codes import CODES

BROKEN = fixture_repo("card-rl102")


def test_rules_lists_every_code() -> None:
    result = run_cli("rules")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()[1:]
    assert [ln.split()[0] for ln in lines] == list(CODES)
    assert "RL203   prompt-reason-mismatch      error     yes" in result.stdout
    assert "RL304   guard-rule-unresolved       warning   no" in result.stdout


@pytest.mark.parametrize("code", list(CODES))
def test_rule_explains_each_code(code: str) -> None:
    result = run_cli("rule", code.lower())
    assert result.exit_code == 0
    assert result.stdout.startswith(f"{code} {CODES[code].name} ")
    assert "What:" in result.stdout and "Fix:" in result.stdout


def test_rule_unknown_code_is_exit_2() -> None:
    result = run_cli("rule", "RL310")
    assert result.exit_code == 2
    assert "unknown code `RL310`" in result.stderr


def test_select_ignore_exit_zero() -> None:
    assert run_cli("check", str(BROKEN), "--no-cache").exit_code == 1
    assert run_cli("check", str(BROKEN), "--no-cache", "--ignore", "RL102").exit_code == 0
    assert run_cli("check", str(BROKEN), "--no-cache", "--select", "RL3").exit_code == 0
    assert run_cli("check", str(BROKEN), "--no-cache", "--exit-zero").exit_code == 0
    bad = run_cli("check", str(BROKEN), "--no-cache", "--select", "RL999")
    assert bad.exit_code == 2 and bad.stderr == "refusal-lint: error: --select: unknown code `RL999`\n"


def test_output_file_and_quiet(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = run_cli("check", str(BROKEN), "--no-cache", "--format", "json", "--output", str(out))
    assert result.exit_code == 1 and result.stdout == ""
    assert json.loads(out.read_text())["findings"][0]["code"] == "RL102"
    short = tmp_path / "short.json"
    assert run_cli("check", str(BROKEN), "--no-cache", "--format", "json", "-o", str(short)).stdout == ""
    assert short.read_text() == out.read_text()
    # A folder the report goes into is made, as ruff makes it (a fresh CI checkout's `reports/`).
    nested = tmp_path / "reports" / "ci" / "lint.json"
    assert run_cli("check", str(BROKEN), "--no-cache", "--format", "json", "-o", str(nested)).exit_code == 1
    assert nested.read_text() == out.read_text()
    quiet = run_cli("check", str(BROKEN), "--no-cache", "--quiet", cwd=BROKEN)
    assert quiet.stdout == (
        ".well-known/agent-card.json:11:9: RL102 extension URI "
        "`http://standards.upperhandai.com/ext/refusals/v1/` is almost "
        "`https://standards.upperhandai.com/ext/refusals/v1`\n"
    )


def test_color_only_when_asked() -> None:
    plain = run_cli("check", str(BROKEN), "--no-cache")
    assert "\x1b[" not in plain.stdout
    colored = run_cli("check", str(BROKEN), "--no-cache", "--color")
    assert "\x1b[31m" in colored.stdout


def test_missing_path_is_exit_2(tmp_path: Path) -> None:
    result = run_cli("check", str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert result.stderr.endswith("nope: no such file or folder\n")


def test_empty_tree_is_nothing_to_check(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# hello\n")
    result = run_cli("check", str(tmp_path), "--no-cache")
    assert (result.exit_code, result.stdout) == (
        0,
        "nothing to check: no refusals card, prompt or guard found\n",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("exlude: [a]\n", "unknown key `exlude` (did you mean `exclude`?)"),
        ("select: RL10x\n", "`select` names unknown code `RL10x`"),
        (
            "agents:\n  - name: a\n    gaurds: [x]\n",
            "unknown key `agents[0].gaurds` (did you mean `guards`?)",
        ),
        ("exclude: 3\n", "`exclude` must be a list of strings"),
        ("per-file-ignores: {'a/*.py': [RL999]}\n", "`per-file-ignores.a/*.py` names unknown code `RL999`"),
        ("max-file-size: -1\n", "`max-file-size` must be a positive number of bytes"),
        ("agents: {a: 1}\n", "`agents` must be a list of mappings"),
        ("[1, 2\n", "invalid YAML"),
    ],
)
def test_bad_config_is_one_line_exit_2(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / ".refusal-lint.yaml").write_text(text)
    result = run_cli("check", str(tmp_path), "--no-cache")
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
    assert message in result.stderr
    assert result.stdout == ""


def test_pyproject_config_found_upward(tmp_path: Path) -> None:
    shutil.copytree(BROKEN, tmp_path / "agent")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.refusal-lint]\nignore = ["RL102"]\n'
    )
    assert run_cli("check", str(tmp_path / "agent"), "--no-cache").exit_code == 0
    (tmp_path / "pyproject.toml").write_text('[tool.refusal-lint]\nignroe = ["RL102"]\n')
    bad = run_cli("check", str(tmp_path / "agent"), "--no-cache")
    assert bad.exit_code == 2 and "did you mean `ignore`?" in bad.stderr


@pytest.mark.parametrize(
    "table",
    [
        '[tool."refusal-lint"]\nignore = ["RL102"]\n',
        '[tool]\nrefusal-lint = {ignore = ["RL102"]}\n',
        '[tool.black]\nline-length = 99\n\n[tool."refusal-lint"]\nignore = ["RL102"]\n',
    ],
)
def test_pyproject_table_in_any_toml_spelling(tmp_path: Path, table: str) -> None:
    shutil.copytree(BROKEN, tmp_path / "agent")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["refusal-lint"]\n\n' + table
    )
    assert run_cli("check", str(tmp_path / "agent"), "--no-cache").exit_code == 0


def test_a_pyproject_naming_us_without_our_table_is_no_config(tmp_path: Path) -> None:
    """`refusal-lint` as a dependency only: the search goes on upward (here: none, the defaults)."""
    shutil.copytree(BROKEN, tmp_path / "agent")
    (tmp_path / "agent" / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["refusal-lint"]\n'
    )
    (tmp_path / ".refusal-lint.yaml").write_text("ignore: [RL102]\n")
    assert run_cli("check", str(tmp_path / "agent"), "--no-cache").exit_code == 0


def test_explicit_config_and_per_file_ignores(tmp_path: Path) -> None:
    shutil.copytree(BROKEN, tmp_path / "agent")
    cfg = tmp_path / "lint.yaml"
    cfg.write_text("per-file-ignores:\n  'agent/.well-known/*.json': [RL102]\n")
    assert run_cli("check", str(tmp_path / "agent"), "--config", str(cfg), "--no-cache").exit_code == 0
    missing = run_cli("check", str(tmp_path), "--config", str(tmp_path / "none.yaml"))
    assert missing.exit_code == 2


@pytest.mark.parametrize(
    "name, text",
    [
        ("ci.toml", "[tool.refusal-lint]\nper-file-ignores = {'agent/.well-known/*.json' = ['RL102']}\n"),
        ("refusal-lint.toml", "[per-file-ignores]\n'agent/.well-known/*.json' = ['RL102']\n"),
    ],
)
def test_an_explicit_toml_config_is_read_as_toml(tmp_path: Path, name: str, text: str) -> None:
    """`--config X.toml`: its `[tool.refusal-lint]` table, else the whole file (as ruff.toml);
    it was read as YAML, and exit 2 said "invalid YAML"."""
    shutil.copytree(BROKEN, tmp_path / "agent")
    cfg = tmp_path / name
    cfg.write_text(text)
    result = run_cli("check", str(tmp_path / "agent"), "--config", str(cfg), "--no-cache")
    assert (result.exit_code, result.output) == (0, "All checks passed!\n")


def test_python_dash_m(tmp_path: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "refusal_lint", "check", str(BROKEN), "--no-cache"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "RL102" in proc.stdout
    # The process exits without the interpreter's teardown (cli.run): what it printed and
    # wrote must be whole all the same, and the same as the in-process run's.
    assert proc.stdout == run_cli("check", str(BROKEN), "--no-cache").stdout
    out = tmp_path / "report.json"
    args = ["check", str(BROKEN), "--no-cache", "--format", "json", "--output", str(out)]
    proc = subprocess.run([sys.executable, "-m", "refusal_lint", *args], capture_output=True, timeout=60)
    assert proc.returncode == 1 and proc.stdout == b""
    assert out.read_text(encoding="utf-8") == run_cli(*args[:-2]).stdout
    missing = [sys.executable, "-m", "refusal_lint", "check", str(tmp_path / "none")]
    usage = subprocess.run(missing, capture_output=True, timeout=60)
    assert usage.returncode == 2 and usage.stderr.startswith(b"refusal-lint: error:")


def test_a_one_shot_command_runs_without_the_collector_a_server_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """cli.run pauses the cyclic collector for its process (the run's heap is freed by the
    exit); a command that keeps serving turns it back on."""
    import gc

    from refusal_lint import cli
    from refusal_lint.server import app

    seen: list[bool] = []

    def exit_(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setattr(app, "serve", lambda: seen.append(gc.isenabled()))
    try:
        with monkeypatch.context() as one_shot:
            one_shot.setattr(cli.os, "_exit", exit_)
            one_shot.setattr(cli, "main", lambda: seen.append(gc.isenabled()))
            with pytest.raises(SystemExit):
                cli.run()
        assert run_cli("server").exit_code == 0  # collector still paused, as cli.run left it
    finally:
        gc.enable()
    assert seen == [False, True]


def test_suppression_on_the_last_line_of_a_multiline_call(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(
        "from policy import refuse, pick\n\n\ndef f(x):\n    return refuse(\n        pick(x),\n"
        "    )  # refusal-lint: ignore[RL304]\n"
    )
    (tmp_path / "card.json").write_text(
        '{"capabilities": {"extensions": [{"uri": "https://standards.upperhandai.com/ext/refusals/v1",'
        ' "params": {"seg-mix": "One family per cut."}}]}}'
    )
    (tmp_path / "prompt.md").write_text("- seg-mix: One family per cut.\n")
    result = run_cli("check", str(tmp_path), "--no-cache", "--select", "RL3,RL003", cwd=tmp_path)
    assert (
        result.stdout.splitlines()[0]
        == "card.json:1:106: RL301 [seg-mix] rule `seg-mix` is advertised but no guard fires it"
    )
    assert "RL304" not in result.stdout and "RL003" not in result.stdout


def test_dotted_guard_callables(tmp_path: Path) -> None:
    (tmp_path / "card.json").write_text(
        '{"capabilities": {"extensions": [{"uri": "https://standards.upperhandai.com/ext/refusals/v1",'
        ' "params": {"seg-mix": "One family per cut."}}]}}'
    )
    (tmp_path / "prompt.md").write_text("- seg-mix: One family per cut.\n")
    (tmp_path / "tools.py").write_text(
        "import myagent.policy as p\nfrom myagent.policy import block\n"
        "from other import block as other_block\n\n"
        'def f():\n    p.block("seg-mix")\n    block("geo-drill")\n    other_block("not-a-guard")\n'
    )
    (tmp_path / ".refusal-lint.yaml").write_text("guard-callables: [myagent.policy.block]\n")
    data = check_json(tmp_path)
    assert [(f["code"], f["rule_id"], f["line"]) for f in data["findings"]] == [("RL302", "geo-drill", 7)]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["check", "--format", "bogus"], "'--format'"),
        (["check", "--jobs", "0"], "'--jobs'"),
        (["chek"], "Did you mean 'check'?"),
        (["stub"], "Missing argument"),
    ],
)
def test_a_usage_error_is_one_line_exit_2(args: list[str], named: str) -> None:
    """DESIGN §1: bad usage exits 2 with one line naming the problem, click's too."""
    result = run_cli(*args)
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("refusal-lint: error: ") and named in line and "--help`" in line
