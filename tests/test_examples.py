"""Every code's failing example gives exactly its code and its fixed form gives nothing,
as Fixit runs its VALID/INVALID snippets (refusal_lint/examples.py): in process, and for the
static codes through `refusal-lint check` on the example written out by the `Repo` builder;
`rule CODE` and the rule pages show both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, Repo, run_cli

from refusal_lint import examples
from refusal_lint.codes import CODES


@pytest.mark.parametrize("code", sorted(CODES))
def test_the_example_gives_exactly_its_code_and_the_fix_nothing(code: str) -> None:
    c = CODES[code]
    assert c.example and c.fixed, f"{code} needs a failing example and its fixed form"
    found = examples.codes_of(code, c.example)
    assert found and set(found) == {code}, found
    assert examples.codes_of(code, c.example, c.fixed) == []


STATIC = sorted(c for c in CODES if not c.startswith(("RL4", "RL5")))  # the live ones need no tree


def _check(root: Path) -> tuple[int, list[str]]:
    result = run_cli("check", str(root), "--no-cache", "--format", "json", cwd=root)
    return result.exit_code, [f["code"] for f in json.loads(result.stdout)["findings"]]


@pytest.mark.parametrize("code", STATIC)
def test_through_the_cli_the_example_gives_its_code_and_the_fix_none(code: str, tmp_path: Path) -> None:
    c = CODES[code]
    for name, fixed in (("example", ""), ("fixed", c.fixed)):
        repo = Repo(tmp_path / name)
        for path, text in examples.tree(c.example, fixed).items():
            repo.put(path, text)
        exit_code, found = _check(repo.root)
        if fixed:
            assert (exit_code, found) == (0, []), found
        else:
            assert found and set(found) == {code}, found
            assert exit_code == (1 if c.severity == "error" else 0)


@pytest.mark.parametrize("code", sorted(CODES))
def test_rule_and_the_page_show_example_and_fix(code: str) -> None:
    c = CODES[code]
    shown = run_cli("rule", code).stdout
    page = (ROOT / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")
    for text in (c.example, c.fixed):
        for line in filter(str.strip, text.splitlines()):
            assert "    " + line in shown.splitlines()
            assert line in page.splitlines()
    assert shown.index("Example:") < shown.index("Fix:")


def test_example_files_replace_delete_and_repeat() -> None:
    got = examples.tree("==> prompt.md (deleted) <==\n==> big.json <==\n<<[ * 3>><<] * 3>>\n")
    assert "prompt.md" not in got and got["big.json"] == "[[[]]]\n"
    assert got["agent-card.json"] == examples.CARD
    assert examples.codes_of("RL000", "") == []  # the example agent itself is clean
