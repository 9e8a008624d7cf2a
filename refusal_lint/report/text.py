"""The `text` format: ruff's concise style, a summary line, colour only when asked."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from refusal_lint.codes import CODES, is_error
from refusal_lint.report.base import coded, rule_tag, shown

if TYPE_CHECKING:
    from refusal_lint.core.model import Finding
    from refusal_lint.report.base import Report

_BOLD, _RED, _YELLOW, _CYAN, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[33m", "\x1b[36m", "\x1b[0m"
_GREEN = "\x1b[32m"


def line(f: Finding, color: bool) -> str:
    where = shown(f"{f.loc.ident}:")
    if not color:
        return f"{where} {shown(coded(f, empty=True))}"
    tint = _RED if is_error(f.code) else _YELLOW
    tag = shown(rule_tag(f, empty=True))
    rule = f" {tag}" if tag else ""
    return f"{_BOLD}{where}{_RESET} {tint}{_BOLD}{f.code}{_RESET}{_CYAN}{rule}{_RESET} {shown(f.message)}"


def statistics(findings: Iterable[Finding]) -> list[str]:
    """--statistics: one row a code (count, code, name; `[*]` where --fix can fix some)."""
    rows = []
    for code, group in sorted(_by_code(findings).items()):
        mark = "[*] " if any(f.fixable for f in group) else ""
        rows.append(f"{len(group):5d}  {code}  {mark}{CODES[code].name}")
    return rows


def _by_code(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in findings:
        out.setdefault(f.code, []).append(f)
    return out


def render(report: Report) -> str:
    """The report: the head line, the findings (with --statistics, the table instead, as ruff
    prints it), then the summary; `quiet` keeps the findings or the table and drops the rest."""
    if report.quiet:
        return "" if _nothing(report) else "".join(row + "\n" for row in _body(report))
    return report.head + _summed(report)


def _nothing(report: Report) -> bool:
    return report.nothing and not report.fixed


def _body(report: Report) -> list[str]:
    if report.statistics:
        return statistics(report.findings)
    return [line(f, report.color) for f in report.findings]


def _summed(report: Report) -> str:
    if _nothing(report):
        return "nothing to check: no refusals card, prompt or guard found\n"
    out = _body(report)
    fixed, errors, warnings = report.fixed, report.errors, report.warnings
    done = f"Fixed {fixed} finding{'s' * (fixed != 1)}. " if fixed else ""
    if not report.findings:
        passed = f"{done}All checks passed!"
        out.append(f"{_GREEN}{passed}{_RESET}" if report.color else passed)
    else:
        if out and not report.statistics:
            out.append("")
        out.append(
            f"{done}Found {errors} error{'s' * (errors != 1)} and {warnings} warning{'s' * (warnings != 1)}"
            + (" remaining." if fixed else ".")
        )
        fixable = sum(f.fixable for f in report.findings)
        if fixable:
            out.append(f"[*] {fixable} fixable with the `--fix` option.")
    return "\n".join(out) + "\n"
