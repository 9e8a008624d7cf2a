"""GitLab Code Quality: a JSON array of issues, as the merge-request widget reads them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from refusal_lint.codes import CODES
from refusal_lint.report.base import coded, dumps, fingerprints

if TYPE_CHECKING:
    from refusal_lint.report.base import Report

# GitLab's scale is info, minor, major, critical, blocker: errors rank above warnings.
SEVERITY = {"error": "major", "warning": "minor"}


def render(report: Report) -> str:
    findings = report.findings
    issues: list[dict[str, Any]] = []
    for f, fp in zip(findings, fingerprints(findings), strict=True):
        code = CODES[f.code]
        lines = {"begin": f.loc.line}
        if f.loc.end_line > f.loc.line:
            lines["end"] = f.loc.end_line
        issues.append(
            {
                "type": "issue",
                "description": coded(f),
                "check_name": f"{f.code} {code.name}",
                "fingerprint": fp,
                "severity": SEVERITY[code.severity],
                "location": {"path": f.loc.path, "lines": lines},
            }
        )
    return dumps(issues)
