"""The builder of small agent repos (`Repo`), with no pytest in it, so that bench scripts
can build the same trees the tests run on.

testdata/ holds whole repos where a whole repo is the point; a case that differs from an
agent in one file (one card entry, one prompt line) is a variant in this package's tables,
written by this builder: the survey agent below is the base of the card variants.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

from click.testing import CliRunner, Result

from refusal_lint.cli import main

URI = "https://standards.upperhandai.com/ext/refusals/v1"
SURVEY_RULES = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
}
ABSENT = object()  # an entry field left out


def run_cli(*args: str, cwd: Path | None = None) -> Result:
    """The CLI in this process; from `cwd` when given (reported paths are relative to it)."""
    runner = CliRunner()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return runner.invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


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
    """An agent repo under construction in a folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def put(self, rel: str, text: str) -> Path:
        """`text` as the exact bytes of `rel` (UTF-8, line ends as given)."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return path

    def write(self, rel: str, text: str) -> Path:
        """`text` dedented and without its leading newline (for texts indented in a test)."""
        return self.put(rel, textwrap.dedent(text).lstrip("\n"))

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

    def variant(self, name: str) -> Repo:
        """The fixture case `name` (a testdata repo or a table's variant) written here."""
        from fixture_repos.variants import write

        write(name, self.root)
        return self

    def check(self, *args: str) -> str:
        """The text report of `refusal-lint check` on the repo."""
        result = run_cli("check", str(self.root), "--no-cache", "--no-color", *args, cwd=self.root)
        assert result.exit_code in (0, 1), result.output
        return result.stdout
