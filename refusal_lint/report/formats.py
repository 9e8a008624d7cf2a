"""The output formats: the one registry (`FORMATS`) the command line, its `--format` choices,
the README's table and the tests read, and the choice of one for a run.

Each format is a module of report/ with `render(report: Report) -> str`; one that the
`matrix` command also offers names matrix.py's function drawing the agreement table in it.
A module is imported only when its format is chosen (start-up is part of every run's time).
Reports are `str`, not bytes: every format is text, and the command line writes it in one
place (a file as UTF-8; the terminal through click, which drops colour where none is shown)."""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from refusal_lint.report.base import Report

Render = Callable[[Report], str]


@dataclass(frozen=True)
class Format:
    """One output format."""

    purpose: str  # who reads it (the README's table)
    module: str  # the report/ module whose `render` writes it
    table: str | None = None  # matrix.py's function writing the agreement table in it
    colors: bool = False  # the only format that may colour its text

    def render(self, report: Report) -> str:
        return _load(self.module, "render")(report)

    def render_table(self, report: Report) -> str:
        """The agreement matrix of `report` in this format (`refusal-lint matrix`)."""
        if self.table is None:
            raise ValueError(f"the matrix has no {self.module} form")
        return _load("matrix", self.table)(report)


def _load(module: str, name: str) -> Render:
    return cast(Render, getattr(importlib.import_module(f"refusal_lint.report.{module}"), name))


FORMATS: dict[str, Format] = {
    "text": Format(
        "people: `path:line:col: CODE [rule-id] message`, a summary, fix hints",
        "text",
        table="render_text",
        colors=True,
    ),
    "json": Format("tools: the stable contract below", "jsonout", table="render_json"),
    "sarif": Format(
        "GitHub code scanning (`automationDetails.id` is `refusal-lint/check/` or "
        "`refusal-lint/probe/`, so both uploads coexist)",
        "sarif",
    ),
    "github": Format("GitHub Actions annotations", "ci.github"),
    "markdown": Format(
        "a job summary or PR comment: the matrix and the findings", "markdown", table="render_markdown"
    ),
    "gitlab": Format(
        "GitLab Code Quality (`artifacts: reports: codequality:`), "
        "with unique fingerprints, stable across line moves and across the port a probed agent listens on",
        "ci.gitlab",
    ),
    "junit": Format(
        "JUnit XML for Jenkins, GitLab or Azure test reports: a test case per finding, a suite per file",
        "ci.junit",
    ),
    "rdjson": Format("reviewdog (`reviewdog -f=rdjson`)", "ci.rdjson"),
    "azure": Format("Azure Pipelines `##vso[task.logissue ...]` lines", "ci.azure"),
}
# The formats of `refusal-lint matrix`, in the registry's order.
TABLES = tuple(name for name, f in FORMATS.items() if f.table is not None)


def readme_table() -> str:
    """The README's `--format` table (a test holds the README to it)."""
    rows = ["| `--format` | for |", "|---|---|"]
    rows += [f"| `{name}` | {f.purpose} |" for name, f in FORMATS.items()]
    return "\n".join(rows) + "\n"


@dataclass(frozen=True)
class Style:
    """How the report is asked for."""

    fmt: str | None = None  # None: github on GitHub Actions, else text
    color: bool | None = None  # None: on a terminal, unless NO_COLOR
    to_file: bool = False
    statistics: bool = False
    quiet: bool = False


def chosen(fmt: str | None) -> str:
    """The format asked for; none asked: `github` on GitHub Actions, else `text`."""
    return fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")


def render(report: Report, style: Style) -> tuple[str, bool]:
    """The report in the chosen format, and whether it is coloured."""
    fmt = FORMATS[chosen(style.fmt)]
    color = fmt.colors and wants_color(style)
    shown = dataclasses.replace(report, color=color, statistics=style.statistics, quiet=style.quiet)
    return fmt.render(shown), color


def wants_color(style: Style) -> bool:
    """--color/--no-color; else NO_COLOR (no-color.org) turns it off and FORCE_COLOR
    (force-color.org) on, each when set and not empty; else colour on a terminal only."""
    if style.color is not None:
        return style.color
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return not style.to_file
    return not style.to_file and sys.stdout.isatty()
