"""Every fixture case, a whole repo of testdata/ or a variant of tests/fixture_repos, gives exactly
the findings in its expected.txt."""

from __future__ import annotations

import re

import pytest
from conftest import Repo, check_json, fixture_repo, names, pending_marked, run_cli

CASES = names()
LINE = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>RL\d{3})(?: \[(?P<rule>[^\]]*)\])? "
)


@pytest.mark.parametrize("name", pending_marked(CASES))
def test_text_output_is_exactly_expected(name: str) -> None:
    root = fixture_repo(name)
    expected = (root / "expected.txt").read_text(encoding="utf-8")
    result = run_cli("check", str(root), "--no-cache", "--no-color", cwd=root)
    assert result.stdout == expected
    assert result.exit_code == (1 if re.search(r"^Found [1-9]\d* errors?", expected, re.M) else 0)


@pytest.mark.parametrize("name", pending_marked(CASES))
def test_json_findings_match_text(name: str) -> None:
    expected = (fixture_repo(name) / "expected.txt").read_text(encoding="utf-8")
    want = []
    for line in expected.splitlines():
        m = LINE.match(line)
        if m:
            want.append((m["path"], int(m["line"]), int(m["col"]), m["code"], m["rule"]))
    data = check_json(fixture_repo(name))
    got = [(f["path"], f["line"], f["column"], f["code"], f["rule_id"]) for f in data["findings"]]
    assert got == want
    assert data["summary"]["errors"] + data["summary"]["warnings"] == len(want)
    for f in data["findings"]:
        assert set(f) == {
            "code",
            "name",
            "severity",
            "agent",
            "rule_id",
            "path",
            "line",
            "column",
            "end_line",
            "end_column",
            "message",
            "fixable",
            "url",
        }
        assert f["end_line"] >= f["line"]


def test_unusable_card_skips_every_rl3xx(repo: Repo) -> None:
    repo.variant("card-rl103").write(
        "agent/payload.py", 'def f():\n    return {"rule": "seg-mix", "reason": "x", "code": 1}\n'
    )
    data = check_json(repo.root)
    assert [f["code"] for f in data["findings"]] == ["RL103"]


@pytest.mark.parametrize("name", ["card-rl100-missing", "card-rl100-no-extension"])
def test_a_configured_cards_rl100_names_its_agent(name: str) -> None:
    """RL100 stands at the configured card, found or not: it is that agent's finding."""
    [finding] = check_json(fixture_repo(name))["findings"]
    assert (finding["code"], finding["agent"]) == ("RL100", "survey-analyst")
