"""GitHub Actions workflow commands: one annotation per finding, escaped as GitHub documents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from refusal_lint.codes import CODES, is_error
from refusal_lint.report.base import shown, tagged

if TYPE_CHECKING:
    from refusal_lint.core.model import Finding
    from refusal_lint.report.base import Report


def escape_data(text: str) -> str:
    return shown(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


# GitHub shows at most this many annotations of each kind per step; the rest vanish silently.
SHOWN_PER_KIND = 10


def _kind(f: Finding) -> str:
    return "error" if is_error(f.code) else "warning"


def line(f: Finding) -> str:
    props = [f"file={escape_property(f.loc.path)}", f"line={f.loc.line}"]
    if f.loc.end_line > f.loc.line:
        # The runner drops an annotation that has columns while line != endLine
        # (actions/runner#4167): a finding over several lines carries lines only.
        props.append(f"endLine={f.loc.end_line}")
    else:
        props.append(f"col={f.loc.col}")
        if f.loc.end_line == f.loc.line and f.loc.end_col:
            props += [f"endLine={f.loc.end_line}", f"endColumn={f.loc.end_col}"]
    props.append(f"title={escape_property(f.code + ' ' + CODES[f.code].name)}")
    return f"::{_kind(f)} {','.join(props)}::{escape_data(tagged(f))}"


def render(report: Report) -> str:
    findings = report.findings
    out = [line(f) + "\n" for f in findings]
    hidden = {k: max(0, sum(_kind(f) == k for f in findings) - SHOWN_PER_KIND) for k in ("error", "warning")}
    if any(hidden.values()):
        what = " and ".join(f"{n} more {k}{'s' if n > 1 else ''}" for k, n in hidden.items() if n)
        out.append(
            f"::notice title=refusal-lint::{escape_data(what)} than GitHub shows in one step; "
            "the full list is in the job summary (--format markdown) or the SARIF upload (--format sarif)\n"
        )
    return "".join(out)
