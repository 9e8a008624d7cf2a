from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from refusal_lint.cli import main

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"
# testdata cases main does not pass yet, with why: strict xfail, so the fix shows as an XPASS
# (then delete the entry).
PENDING_TESTDATA: dict[str, str] = {}


def pending_marked(cases: list[Path]) -> list[Any]:
    """One pytest param per testdata case, the pending ones marked strict xfail."""
    return [
        pytest.param(
            c,
            id=c.name,
            marks=[pytest.mark.xfail(strict=True, reason=PENDING_TESTDATA[c.name])]
            if c.name in PENDING_TESTDATA
            else [],
        )
        for c in cases
    ]


def snapshot(root: Path) -> dict[str, str]:
    """Every file under root (links and the cache folder left out) with the hash of its bytes."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and ".refusal_lint_cache" not in p.parts
    }


def run_cli(*args: str, cwd: Path | None = None) -> Result:
    """The CLI in this process; from `cwd` when given (reported paths are relative to it)."""
    import os

    runner = CliRunner()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return runner.invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def inside(path: Path | str) -> Path | None:
    """Where a check of `path` runs from in these tests: inside the folder checked, so
    reported paths (relative to the current folder) read as relative to it."""
    return Path(path) if Path(path).is_dir() else None


def run_in(path: Path | str, command: str, *args: str) -> Result:
    """`refusal-lint COMMAND PATH ARGS...` run from inside PATH (see `inside`)."""
    return run_cli(command, str(path), *args, cwd=inside(path))


def check_json(path: Path | str, *extra: str) -> dict[str, Any]:
    result = run_cli("check", str(path), "--no-cache", "--format", "json", *extra, cwd=inside(path))
    assert result.exit_code in (0, 1), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture
def cli() -> Any:
    return run_cli


# ---- a builder of small agent repos ---------------------------------------------------------
# testdata/ holds whole realistic repos with their expected output; where a case differs from
# the survey agent in one file (one card entry, one prompt line), a test says it better with
# this builder: the survey agent written into tmp_path, with that one difference.

URI = "https://standards.upperhandai.com/ext/refusals/v1"
SURVEY_RULES = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
}
ABSENT = object()  # an entry field left out


def extension(**fields: object) -> dict[str, object]:
    """The survey agent's refusals extension entry, with `fields` replaced (ABSENT: removed)."""
    entry: dict[str, object] = {
        "uri": URI,
        "required": False,
        "description": "Rules this agent will not compute.",
        "params": SURVEY_RULES,
    }
    entry.update(fields)
    return {k: v for k, v in entry.items() if v is not ABSENT}


_CARD = """{
  "protocolVersion": "0.3.0",
  "name": "Survey Analyst",
  "description": "Crosstabs and segment profiles for the 2026 media-habits survey.",
  "url": "https://survey.example.com/a2a",
  "version": "1.4.2",
  "capabilities": {
    "streaming": true,
    "extensions": [
%s
    ]
  },
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": []
}
"""


class Repo:
    """An agent repo under construction in a temporary folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def card(self, *entries: dict[str, object], rel: str = ".well-known/agent-card.json") -> Path:
        """The survey agent's AgentCard holding these extension entries (default: the refusals one)."""
        shown = [textwrap.indent(json.dumps(e, indent=2), " " * 6) for e in entries or (extension(),)]
        return self.write(rel, _CARD % ",\n".join(shown))

    def prompt(
        self, ids: tuple[str, str] = ("seg-mix", "invalid-cut"), rel: str = "agent/system_prompt.md"
    ) -> Path:
        lines = "".join(f"- {i}: {reason}\n" for i, reason in zip(ids, SURVEY_RULES.values(), strict=True))
        return self.write(
            rel,
            "You are the survey analyst for the 2026 media-habits study.\n"
            "Answer from the survey tables only and give the base size (n).\n\n"
            "Refuse these computations, naming the rule:\n" + lines,
        )

    def tools(self, ids: tuple[str, str] = ("seg-mix", "invalid-cut"), rel: str = "agent/tools.py") -> Path:
        return self.write(
            rel,
            f"""
            from agent.policy import refuse

            def crosstab(cuts, families):
                if len(families) > 1:
                    return refuse("{ids[0]}", detail="families crossed")
                return refuse("{ids[1]}") if "zodiac" in cuts else {{"cuts": cuts}}
            """,
        )

    def agent(self, *entries: dict[str, object], ids: tuple[str, str] = ("seg-mix", "invalid-cut")) -> Repo:
        """The survey agent: card, prompt and guards."""
        self.card(*entries)
        self.prompt(ids)
        self.tools(ids)
        return self

    def check(self, *args: str) -> str:
        """The text report of `refusal-lint check` on the repo."""
        result = run_cli("check", str(self.root), "--no-cache", "--no-color", *args, cwd=self.root)
        assert result.exit_code in (0, 1), result.output
        return result.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path)
