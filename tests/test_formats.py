"""The one registry of output formats (report/formats.py): every entry renders a Report, the
command line offers exactly its names, the README's table is drawn from it, and a finding's
rule tag is written in one place (report/base.py) for every format."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click
import pytest
from conftest import ROOT, SURVEY_RULES, TESTDATA, Repo, check_json, extension, run_cli, run_in
from hypothesis import given
from hypothesis import strategies as st

from refusal_lint.cli import main
from refusal_lint.codes import CODES
from refusal_lint.core.model import Finding, Loc, Rule, RuleSet
from refusal_lint.report import base, text
from refusal_lint.report.base import Report, coded, rule_tag, tagged
from refusal_lint.report.ci import github
from refusal_lint.report.formats import FORMATS, TABLES, Style, readme_table, render
from refusal_lint.static.bind.agent import Agent

CARD = RuleSet(
    Loc("agent-card.json", 8), (Rule("seg-mix", SURVEY_RULES["seg-mix"], Loc("agent-card.json", 10)),), True
)
SAMPLE = Report(
    (
        Finding("RL301", Loc("agent-card.json", 10, 11, 10, 20), "rule `seg-mix` is unguarded", "seg-mix"),
        Finding("RL302", Loc("tools.py", 6, 16), "guard fires rule `seg_mix`", "seg_mix", agent="Survey"),
        Finding("RL304", Loc("tools.py", 9, 5), "a refusal with no rule id"),
    ),
    (Agent("Survey", "", CARD),),
    files=3,
)


def _choices(command: str) -> list[str]:
    cmd = main.commands[command]
    [option] = [p for p in cmd.params if p.name == "fmt"]
    assert isinstance(option.type, click.Choice)
    return list(option.type.choices)


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_renders_a_sample_report(name: str) -> None:
    out = FORMATS[name].render(SAMPLE)
    assert all(code in out for code in ("RL301", "RL302", "RL304")), out
    assert "seg_mix" in out and "tools.py" in out


@pytest.mark.parametrize("name", TABLES)
def test_every_table_format_renders_the_matrix(name: str) -> None:
    out = FORMATS[name].render_table(SAMPLE)
    assert "seg-mix" in out and "agent-card.json" in out  # the card's row and where it stands
    assert "seg_mix" in out  # the id the card does not advertise gets its row too


def test_a_format_without_a_table_says_so() -> None:
    with pytest.raises(ValueError, match=r"no ci\.github form"):
        FORMATS["github"].render_table(SAMPLE)


def test_the_cli_offers_exactly_the_registry() -> None:
    assert _choices("check") == list(FORMATS)
    assert _choices("probe") == list(FORMATS)
    assert _choices("matrix") == list(TABLES) == ["text", "json", "markdown"]
    result = run_cli("check", ".", "--also", "nope=out.txt")
    assert result.exit_code == 2
    assert f"FORMAT one of {', '.join(FORMATS)}" in result.stderr


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_through_the_cli(name: str) -> None:
    result = run_in(TESTDATA / "py-rl302", "check", "--no-cache", "--format", name)
    assert result.exit_code == 1
    assert "RL302" in result.stdout and "seg_mix" in result.stdout


def test_readme_lists_the_registry() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_table() in readme
    assert re.sub(r"\s+", "", "`--format " + "|".join(FORMATS) + "`") in re.sub(r"\s+", "", readme)


def test_only_text_is_coloured() -> None:
    for name, fmt in FORMATS.items():
        out, colored = render(SAMPLE, Style(name, color=True))
        assert colored == fmt.colors == ("\x1b[" in out), name


def test_render_passes_statistics_and_quiet_to_the_report() -> None:
    out, _ = render(SAMPLE, Style("text", color=False, statistics=True, quiet=True))
    assert out.splitlines() == [f"    1  {code}  {CODES[code].name}" for code in ("RL301", "RL302", "RL304")]


@given(
    rule=st.one_of(st.none(), st.text(max_size=12)),
    message=st.text(max_size=40),
)
def test_rule_tag_is_written_once(rule: str | None, message: str) -> None:
    f = Finding("RL302", Loc("a.py", 2, 3), message, rule_id=rule)
    expected = f"[{rule}] {message}" if rule else message
    assert tagged(f) == expected
    assert coded(f) == f"RL302 {expected}"
    assert github.line(f).endswith("::" + github.escape_data(expected))
    data: dict[str, Any] = json.loads(FORMATS["rdjson"].render(Report((f,))))
    assert data["diagnostics"][0]["message"] == expected
    # text alone shows an empty id as `[]` (it always has; the output is a contract)
    shown = f"[{rule}]" if rule is not None else ""
    assert rule_tag(f, empty=True) == shown
    assert text.line(f, False) == base.shown(f"a.py:2:3: RL302 {shown + ' ' if shown else ''}{message}")


def test_an_empty_rule_id_reads_as_it_always_has(repo: Repo) -> None:
    repo.agent(extension(params={**SURVEY_RULES, "": "Empty id."}))
    assert "RL105 [] rule id `` is not kebab-case" in repo.check()
    annotations = repo.check("--format", "github")
    assert "::rule id `` is not kebab-case" in annotations


_REPORT_NAMES = {
    "text": "lint.txt",
    "junit": "report.xml",
    "markdown": "summary.md",
    "github": "annotations.txt",
    "azure": "azure.log",
    "json": "report.json",
    "sarif": "report.sarif",
    "gitlab": "gl-code-quality.json",
    "rdjson": "rd.json",
}


@pytest.mark.parametrize("name", ["", "prompts/lint-report.txt", "prompt-lint-report.md"])
@pytest.mark.parametrize("fmt", sorted(_REPORT_NAMES))
def test_a_report_written_into_the_tree_is_not_read_back_as_a_prompt(
    tmp_path: Path, fmt: str, name: str
) -> None:
    """`--output` into the checked tree (a CI job's artefact, a pre-commit log): the next run
    finds what the first did, not near misses quoted in its own "did you mean" messages;
    also where its name (or folder) would make a text file a prompt."""
    import shutil

    shutil.copytree(TESTDATA / "survey-agent", tmp_path / "a", ignore=shutil.ignore_patterns("expected.txt"))
    tools = tmp_path / "a" / "survey_agent" / "tools.py"
    tools.write_text(tools.read_text().replace('"invalid-cut"', '"invalid-cutx"'))
    first = check_json(tmp_path / "a")["findings"]
    run_cli(
        "check",
        str(tmp_path / "a"),
        "--no-cache",
        "--format",
        fmt,
        "-o",
        str(tmp_path / "a" / (name or _REPORT_NAMES[fmt])),
    )
    assert check_json(tmp_path / "a")["findings"] == first


_HOSTILE = "No\x1b]0;pwned\x07 \x1b[2Kcut\x08\u202e.kcolb"  # retitle, wipe, back up, reorder


@pytest.mark.parametrize("fmt", ["text", "github", "azure", "markdown"])
def test_a_human_format_never_prints_a_reasons_control_characters(repo: Repo, fmt: str) -> None:
    """A card reason (or a prompt, a path) holding ESC, BEL, BS or a bidi override is shown
    escaped where a person reads the report; JSON keeps the value, escaped as JSON does."""
    repo.agent(extension(params={**SURVEY_RULES, "seg-mix": _HOSTILE}))
    out = repo.check("--format", fmt, "--color" if fmt == "text" else "--no-color")
    tinted = out.replace("\x1b[", "") if fmt == "text" else out  # our own colours only
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", tinted), out
    assert "No\\x1b]0;pwned\\x07 \\x1b[2Kcut\\x08\\u202e.kcolb" in out
    found = json.loads(repo.check("--format", "json"))["findings"]
    assert [_HOSTILE in f["message"] for f in found if f["code"] == "RL203"] == [True]
