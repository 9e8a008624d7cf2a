"""reviewdog's diagnostic format (rdjson): a DiagnosticResult with one diagnostic a finding."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from refusal_lint.codes import CODES, REPO
from refusal_lint.core.model import TOOL
from refusal_lint.report.base import dumps, tagged

if TYPE_CHECKING:
    from refusal_lint.report.base import Report


def render(report: Report) -> str:
    diagnostics: list[dict[str, Any]] = []
    for f in report.findings:
        code = CODES[f.code]
        start = {"line": f.loc.line, "column": _bytes(report, f.loc.path, f.loc.line, f.loc.col)}
        rng: dict[str, Any] = {"start": start}
        if f.loc.end_line >= f.loc.line and f.loc.end_col:
            end = _bytes(report, f.loc.path, f.loc.end_line, f.loc.end_col)
            rng["end"] = {"line": f.loc.end_line, "column": end}  # exclusive, as rdjson's
        diagnostics.append(
            {
                "message": tagged(f),
                "location": {"path": f.loc.path, "range": rng},
                "severity": code.severity.upper(),
                "code": {"value": f.code, "url": code.url},
            }
        )
    doc = {"source": {"name": TOOL, "url": REPO}, "diagnostics": diagnostics}
    return dumps(doc)


def _bytes(report: Report, path: str, line: int, col: int) -> int:
    """A 1-based character column as reviewdog counts it: UTF-8 bytes of the line before it."""
    text = report.lines.get((path, line))
    return col if text is None else len(text[: col - 1].encode("utf-8", "surrogatepass")) + 1
