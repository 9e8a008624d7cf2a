"""GitHub Actions workflow commands: one annotation per finding, escaped as GitHub documents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from refusal_lint.codes import CODES

if TYPE_CHECKING:
    from refusal_lint.model import Finding


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def line(f: Finding) -> str:
    kind = "error" if CODES[f.code].severity == "error" else "warning"
    props = [f"file={escape_property(f.loc.path)}", f"line={f.loc.line}", f"col={f.loc.col}"]
    if f.loc.end_line >= f.loc.line and f.loc.end_col:
        props += [f"endLine={f.loc.end_line}", f"endColumn={f.loc.end_col}"]
    props.append(f"title={escape_property(f.code + ' ' + CODES[f.code].name)}")
    rule = f"[{f.rule_id}] " if f.rule_id else ""
    return f"::{kind} {','.join(props)}::{escape_data(rule + f.message)}"


def render(findings: list[Finding]) -> str:
    return "".join(line(f) + "\n" for f in findings)
