"""Which reporter renders a run: the one place output formats are named. Each reporter is
imported only when chosen (start-up is part of every run's time)."""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from refusal_lint.bind import Agent
    from refusal_lint.model import Finding

FORMATS = ("text", "json", "sarif", "github", "markdown", "gitlab", "junit", "rdjson", "azure")


@dataclass(frozen=True)
class Run:
    """What a report is made of."""

    findings: list[Finding]
    agents: list[Agent] = field(default_factory=list)
    files: int = 0
    fixed: int = 0
    nothing: bool = False  # no card, prompt or guard found at all
    head: str = ""  # a line above the text report (what probe reached)
    command: str = "check"


@dataclass(frozen=True)
class Style:
    """How the report is asked for."""

    fmt: str | None = None  # None: github on GitHub Actions, else text
    color: bool | None = None  # None: on a terminal, unless NO_COLOR
    to_file: bool = False
    statistics: bool = False
    quiet: bool = False


def render(run: Run, style: Style) -> tuple[str, bool]:
    """The report in the chosen format, and whether it is coloured."""
    fmt = style.fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    if fmt == "json":
        from refusal_lint.report import jsonout

        return jsonout.render(run.findings, run.agents, run.files, run.fixed), False
    if fmt == "sarif":
        from refusal_lint.report import sarif

        return sarif.render(run.findings, run.command), False
    if fmt == "markdown":
        from refusal_lint.report import markdown

        return markdown.render(run.findings, run.agents), False
    if fmt in ("github", "gitlab", "junit", "rdjson", "azure"):
        return importlib.import_module(f"refusal_lint.report.{fmt}").render(run.findings), False
    from refusal_lint.report import text

    color = wants_color(style)
    body = text.render(run.findings, color, style.statistics, run.nothing, run.fixed, style.quiet)
    return ("" if style.quiet else run.head) + body, color


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
