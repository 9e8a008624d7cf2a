"""Markdown for a job summary or a PR comment: the agreement matrix (for a probe: each
advertised rule and what probing it found), then the findings."""

from __future__ import annotations

from refusal_lint.codes import CODES, is_error
from refusal_lint.report.base import Report, shown
from refusal_lint.report.matrix import NOT_ADVERTISED, render_markdown


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
    matrix = render_probed(report) if report.command == "probe" else render_markdown(report)
    out += ["", matrix.rstrip(), ""]
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


def render_probed(report: Report) -> str:
    """A probe's table: what a probe knows, each card rule and what its probe found (it reads
    no prompt and no guard, so it says nothing of them)."""
    out: list[str] = []
    for agent in report.agents:
        card = agent.card
        advertised = {r.rule_id: f"{r.loc.path}:{r.loc.line}" for r in card.rules} if card else {}
        where = f" — card `{_md(card.loc.path)}:{card.loc.line}`" if card else ""
        out += [f"### Agent `{_md(agent.name)}`{where}", "", "| rule | card | probe |", "|---|---|---|"]
        for rule in dict.fromkeys([*advertised, *report.probed]):
            codes = sorted({f.code for f in report.findings if f.rule_id == rule})
            found = ", ".join(f"{'❌' if is_error(c) else '⚠️'} {c}" for c in codes)
            probe = found or ("✓ refused as advertised" if rule in report.probed else "not probed")
            out.append(f"| `{_md(rule)}` | {_md(advertised.get(rule, NOT_ADVERTISED))} | {probe} |")
        out.append("")
    return "\n".join(out) if out else "No agent card was read.\n"
