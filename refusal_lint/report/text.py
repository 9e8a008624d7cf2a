"""The `text` format: ruff's concise style, a summary line, colour only when asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from refusal_lint.codes import CODES, is_error

if TYPE_CHECKING:
    from refusal_lint.model import Finding

_BOLD, _RED, _YELLOW, _CYAN, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[33m", "\x1b[36m", "\x1b[0m"
_GREEN = "\x1b[32m"


def line(f: Finding, color: bool) -> str:
    rule = f" [{f.rule_id}]" if f.rule_id is not None else ""
    where = f"{f.loc.ident}:"
    if not color:
        return f"{where} {f.code}{rule} {f.message}"
    tint = _RED if is_error(f.code) else _YELLOW
    return f"{_BOLD}{where}{_RESET} {tint}{_BOLD}{f.code}{_RESET}{_CYAN}{rule}{_RESET} {f.message}"


def statistics(findings: list[Finding]) -> list[str]:
    """--statistics: one row a code (count, code, name; `[*]` where --fix can fix some)."""
    rows = []
    for code, group in sorted(_by_code(findings).items()):
        mark = "[*] " if any(f.fixable for f in group) else ""
        rows.append(f"{len(group):5d}  {code}  {mark}{CODES[code].name}")
    return rows


def _by_code(findings: list[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in findings:
        out.setdefault(f.code, []).append(f)
    return out


def render(
    findings: list[Finding],
    color: bool,
    stats: bool = False,
    nothing: bool = False,
    fixed: int = 0,
    quiet: bool = False,
) -> str:
    """The report: the findings (with --statistics, the table instead, as ruff prints it),
    then the summary; `quiet` keeps the findings or the table and drops the rest."""
    if nothing and not fixed:
        return "" if quiet else "nothing to check: no refusals card, prompt or guard found\n"
    out = statistics(findings) if stats else [line(f, color) for f in findings]
    if quiet:
        return "".join(row + "\n" for row in out)
    errors = sum(is_error(f.code) for f in findings)
    warnings = len(findings) - errors
    done = f"Fixed {fixed} finding{'s' * (fixed != 1)}. " if fixed else ""
    if not findings:
        passed = f"{done}All checks passed!"
        out.append(f"{_GREEN}{passed}{_RESET}" if color else passed)
    else:
        if out and not stats:
            out.append("")
        out.append(
            f"{done}Found {errors} error{'s' * (errors != 1)} and {warnings} warning{'s' * (warnings != 1)}"
            + (" remaining." if fixed else ".")
        )
        fixable = sum(f.fixable for f in findings)
        if fixable:
            out.append(f"[*] {fixable} fixable with the `--fix` option.")
    return "\n".join(out) + "\n"
