"""RL002 only for a file the check needs (DESIGN §3): one text predicate decides, with the
shortcuts on or off, so both modes report the same parse errors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from unittest import mock

import pytest
from conftest import Repo, run_cli

from refusal_lint.core.kinds import FileKind
from refusal_lint.static.gate.prefilter import parse_error_matters

IDS = ("seg-mix", "invalid-cut")


@pytest.mark.parametrize(
    ("rel", "kind", "data", "ids", "needed"),
    [
        (".vscode/settings.json", FileKind.JSON, b'{\n  // editor\n  "a": 1\n}\n', IDS, False),
        (".vscode/launch.json", FileKind.JSON, b'{\n  // x\n  "id": "argsPrompt"\n}\n', IDS, False),
        # This tool's own settings name it, and say no refusal word.
        (".vscode/settings.json", FileKind.JSON, b'{\n  // x\n  "refusal-lint.args": [],\n}\n', IDS, False),
        (".pre-commit-config.yaml", FileKind.YAML, b"- id: refusal-lint\n\targs: [x]\n", IDS, False),
        ("conf/x.json", FileKind.JSON, b'{\n  // x\n  "refusal-lint": "refusals"\n', IDS, True),
        ("cli/langgraph.json", FileKind.JSON, b"", IDS, False),
        (".well-known/agent-card.json", FileKind.JSON, b"", (), True),  # a card by its place
        ("agent.json", FileKind.JSON, b"{", (), True),  # a card by its name
        ("conf/x.json", FileKind.JSON, b'{"refusals": ', (), True),
        ("conf/x.yaml", FileKind.YAML, b"rules:\n\t- seg_mix\n", IDS, True),  # a near miss of a card id
        ("conf/x.yaml", FileKind.YAML, b"rules:\n\t- seg_mix\n", (), False),  # no card: no id to miss
        ("conf/x.json", FileKind.JSON, b"{", (), False),
        ("old/tool.py", FileKind.PYTHON, b'print "hello"\n', IDS, False),
        ("old/tool.py", FileKind.PYTHON, b'print "x", refuse("seg-mix")\n', (), True),
        ("old/card.py", FileKind.PYTHON, b'CARD = {"uri": URI, "params": RULES\n', (), True),
        ("old/tool.py", FileKind.PYTHON, b'print "invalid-cut"\n', IDS, True),
    ],
)
def test_parse_error_matters(rel: str, kind: str, data: bytes, ids: tuple[str, ...], needed: bool) -> None:
    assert parse_error_matters(rel, kind, data, ids) is needed


def test_configured_file_is_always_needed() -> None:
    assert parse_error_matters("cfg/card.json", FileKind.JSON, b"{", (), configured=True)


def _codes(root: Path, exhaustive: bool) -> list[tuple[str, str]]:
    with mock.patch.dict(os.environ):
        os.environ.pop("REFUSAL_LINT_EXHAUSTIVE", None)
        if exhaustive:
            os.environ["REFUSAL_LINT_EXHAUSTIVE"] = "1"
        result = run_cli("check", str(root), "--no-cache", "--format", "json", cwd=root)
    assert result.exit_code in (0, 1), result.output
    return [(f["code"], f["path"]) for f in json.loads(result.stdout)["findings"] if f["code"] == "RL002"]


@pytest.mark.parametrize("exhaustive", [False, True], ids=["default", "exhaustive"])
def test_rl002_only_where_the_text_can_matter(repo: Repo, exhaustive: bool) -> None:
    repo.card()
    repo.prompt()
    repo.tools()
    repo.write(".vscode/settings.json", '{\n  // editor settings\n  "editor.formatOnSave": true\n}\n')
    repo.write("scripts/py2.py", 'print "hello"\n')
    repo.write("conf/rules.json", '{\n  // the cuts\n  "blocked": ["invalid-cut"]\n}\n')
    repo.write("agent/broken.py", 'def guard(cut)\n    return refuse("seg-mix")\n')
    assert _codes(repo.root, exhaustive) == [("RL002", "agent/broken.py"), ("RL002", "conf/rules.json")]


@pytest.mark.parametrize("exhaustive", [False, True], ids=["default", "exhaustive"])
@pytest.mark.parametrize(
    ("rel", "broken"),
    [
        # The agent's prompt module, its string left open: its rule lines name the card's ids.
        ("agent/prompt.py", 'SYSTEM_PROMPT = """Refuse these, naming:\n- seg-mix: x\n- invalid-cut: y\n'),
        ("agent/prompts.yaml", "system: |\n  Refuse these:\n  - seg-mix: x\n  - invalid-cut: y\n bad: [\n"),
    ],
)
def test_a_prompt_the_parser_rejects_is_rl002_not_a_missing_prompt(
    repo: Repo, rel: str, broken: str, exhaustive: bool
) -> None:
    """The only prompt, unparsable: RL002 says so; RL200 ("no system prompt found") would
    send the user looking for a prompt that is there (as for RL005)."""
    repo.card()
    repo.tools()
    repo.write(rel, broken)
    with mock.patch.dict(os.environ):
        os.environ.pop("REFUSAL_LINT_EXHAUSTIVE", None)
        if exhaustive:
            os.environ["REFUSAL_LINT_EXHAUSTIVE"] = "1"
        result = run_cli("check", str(repo.root), "--no-cache", "--format", "json", cwd=repo.root)
    found = [(f["code"], f["path"]) for f in json.loads(result.stdout)["findings"]]
    assert found == [("RL002", rel)], found
