"""The `text` format: ruff's concise style, a summary line, colour only when asked."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from refusal_lint.codes import CODES, is_error

if TYPE_CHECKING:
    from refusal_lint.model import Finding

_BOLD, _RED, _YELLOW, _CYAN, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[33m", "\x1b[36m", "\x1b[0m"


def line(f: Finding, color: bool) -> str:
    rule = f" [{f.rule_id}]" if f.rule_id is not None else ""
    where = f"{f.loc.ident}:"
    if not color:
        return f"{where} {f.code}{rule} {f.message}"
    tint = _RED if is_error(f.code) else _YELLOW
    return f"{_BOLD}{where}{_RESET} {tint}{_BOLD}{f.code}{_RESET}{_CYAN}{rule}{_RESET} {f.message}"


def render(
    findings: list[Finding], color: bool, statistics: bool = False, nothing: bool = False, fixed: int = 0
) -> str:
    if nothing and not fixed:
        return "nothing to check: no refusals card, prompt or guard found\n"
    out = [line(f, color) for f in findings]
    if statistics and findings:
        out.append("")
        for code, n in sorted(Counter(f.code for f in findings).items()):
            out.append(f"{n:5d}  {code}  {CODES[code].name}")
    errors = sum(is_error(f.code) for f in findings)
    warnings = len(findings) - errors
    done = f"Fixed {fixed} finding{'s' * (fixed != 1)}. " if fixed else ""
    if not findings:
        out.append(f"{done}All checks passed!")
    else:
        if out:
            out.append("")
        out.append(
            f"{done}Found {errors} error{'s' * (errors != 1)} and {warnings} warning{'s' * (warnings != 1)}"
            + (" remaining." if fixed else ".")
        )
        fixable = sum(f.fixable for f in findings)
        if fixable:
            out.append(f"[*] {fixable} fixable with the `--fix` option.")
    return "\n".join(out) + "\n"
