"""Markdown for a job summary or a PR comment: the agreement matrix, then the findings."""

from __future__ import annotations

from refusal_lint.codes import CODES, is_error
from refusal_lint.report.base import Report, shown
from refusal_lint.report.matrix import render_markdown


def _md(text: str) -> str:
    return shown(text.replace("|", "\\|").replace("\n", " "))


def render(report: Report) -> str:
    findings = report.findings
    out = ["## refusal-lint", ""]
    out.append(
        "All checks passed."
        if not findings
        else f"**{report.errors} error(s), {report.warnings} warning(s).**"
    )
    out += ["", render_markdown(report).rstrip(), ""]
    if findings:
        out += ["### Findings", "", "| location | code | rule | message |", "|---|---|---|---|"]
        for f in findings:
            icon = "❌" if is_error(f.code) else "⚠️"
            rule = f"`{_md(f.rule_id)}`" if f.rule_id else ""
            out.append(
                f"| `{_md(f.loc.path)}:{f.loc.line}:{f.loc.col}` | {icon} {f.code} {CODES[f.code].name} "
                f"| {rule} | {_md(f.message)} |"
            )
        out.append("")
    return "\n".join(out)
