"""reviewdog's diagnostic format (rdjson): a DiagnosticResult with one diagnostic a finding."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from refusal_lint.codes import CODES, REPO
from refusal_lint.core.model import TOOL
from refusal_lint.report.base import tagged

if TYPE_CHECKING:
    from refusal_lint.report.base import Report


def render(report: Report) -> str:
    diagnostics: list[dict[str, Any]] = []
    for f in report.findings:
        code = CODES[f.code]
        start = {"line": f.loc.line, "column": f.loc.col}
        rng: dict[str, Any] = {"start": start}
        if f.loc.end_line >= f.loc.line and f.loc.end_col:
            rng["end"] = {"line": f.loc.end_line, "column": f.loc.end_col}  # exclusive, as rdjson's
        diagnostics.append(
            {
                "message": tagged(f),
                "location": {"path": f.loc.path, "range": rng},
                "severity": code.severity.upper(),
                "code": {"value": f.code, "url": code.url},
            }
        )
    doc = {"source": {"name": TOOL, "url": REPO}, "diagnostics": diagnostics}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
