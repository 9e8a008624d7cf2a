"""Azure Pipelines logging commands: `##vso[task.logissue ...]` lines, escaped as the docs say."""

from __future__ import annotations

from typing import TYPE_CHECKING

from refusal_lint.codes import CODES
from refusal_lint.report.base import shown, tagged

if TYPE_CHECKING:
    from refusal_lint.core.model import Finding
    from refusal_lint.report.base import Report


def escape_data(text: str) -> str:
    """The message after `]`."""
    return shown(text.replace("%", "%AZP25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    """A `key=value` inside the brackets: `;` and `]` would end it."""
    return escape_data(text).replace(";", "%3B").replace("]", "%5D")


def line(f: Finding) -> str:
    props = {
        "type": CODES[f.code].severity,
        "sourcepath": f.loc.path,
        "linenumber": str(f.loc.line),
        "columnnumber": str(f.loc.col),
        "code": f.code,
    }
    head = ";".join(f"{k}={escape_property(v)}" for k, v in props.items())
    return f"##vso[task.logissue {head};]{escape_data(tagged(f))}"


def render(report: Report) -> str:
    return "".join(line(f) + "\n" for f in report.findings)
