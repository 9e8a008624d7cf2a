"""Every code's failing example gives exactly its code and its fixed form gives nothing,
as Fixit runs its VALID/INVALID snippets (refusal_lint/examples.py); `rule CODE` and the
rule pages show both."""

from __future__ import annotations

import pytest
from conftest import ROOT, run_cli

from refusal_lint import examples
from refusal_lint.codes import CODES


@pytest.mark.parametrize("code", sorted(CODES))
def test_the_example_gives_exactly_its_code_and_the_fix_nothing(code: str) -> None:
    c = CODES[code]
    assert c.example and c.fixed, f"{code} needs a failing example and its fixed form"
    found = examples.codes_of(code, c.example)
    assert found and set(found) == {code}, found
    assert examples.codes_of(code, c.example, c.fixed) == []


@pytest.mark.parametrize("code", ["RL203", "RL301", "RL401"])
def test_rule_and_the_page_show_example_and_fix(code: str) -> None:
    c = CODES[code]
    shown = run_cli("rule", code).stdout
    page = (ROOT / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")
    for text in (c.example, c.fixed):
        first = text.splitlines()[1]
        assert "    " + first in shown.splitlines()
        assert first in page.splitlines()
    assert shown.index("Example:") < shown.index("Fix:")


def test_example_files_replace_delete_and_repeat() -> None:
    got = examples.tree("==> prompt.md (deleted) <==\n==> big.json <==\n<<[ * 3>><<] * 3>>\n")
    assert "prompt.md" not in got and got["big.json"] == "[[[]]]\n"
    assert got["agent-card.json"] == examples.CARD
    assert examples.codes_of("RL000", "") == []  # the example agent itself is clean
