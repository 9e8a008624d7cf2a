"""The `json` format: the stable machine contract of DESIGN §4."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from refusal_lint import __version__
from refusal_lint.codes import CODES
from refusal_lint.core.model import TOOL
from refusal_lint.report.base import dumps

if TYPE_CHECKING:
    from refusal_lint.core.model import Finding
    from refusal_lint.report.base import Report
    from refusal_lint.static.bind.agent import Agent


def finding_dict(f: Finding) -> dict[str, Any]:
    code = CODES[f.code]
    return {
        "code": f.code,
        "name": code.name,
        "severity": code.severity,
        "agent": f.agent,
        "rule_id": f.rule_id,
        "path": f.loc.path,
        "line": f.loc.line,
        "column": f.loc.col,
        "end_line": max(f.loc.end_line, f.loc.line),
        "end_column": f.loc.end_col if f.loc.end_line else f.loc.col,
        "message": f.message,
        "fixable": f.fixable,
        "url": code.url,
    }


def agent_dict(a: Agent) -> dict[str, Any]:
    """An agent as `agents[]` has it (a probe's: its prompt and guard lists empty, as the
    contract's types are; a probe reads neither)."""
    from refusal_lint.static.checks.prompt import mention_lines

    rules: dict[str, Any] = {}
    if a.card is not None:
        for r in a.card.rules:
            rules[r.rule_id] = {
                "reason": r.reason,
                "card": r.loc.at(),
                "prompt": [loc.at() for loc in mention_lines(a.prompts, r.rule_id)],
                "guards": [loc.at() for loc in a.fired_at(r.rule_id)],
            }
    # The agent's prompt: a derived one, else the candidate that mentions most rules; of
    # those, one whose text is known (a template file, not the call rendering it).
    ids = [r.rule_id for r in a.card.rules] if a.card else []
    first = max(
        a.prompts,
        key=lambda p: (
            p.derived,
            sum(bool(mention_lines([p], rid)) for rid in ids),
            any(pl.text.strip() for pl in p.lines),
        ),
        default=None,
    )
    return {
        "name": a.name,
        "card": a.card.loc.at() if a.card else None,
        "prompt": {**first.loc.at(), "derived": first.derived} if first else None,
        # Every candidate that counted, and how it was found (DESIGN §2's prompt table).
        "prompts": prompt_entries(a),
        "rules": rules,
    }


def prompt_entries(a: Agent) -> list[dict[str, Any]]:
    """`agents[].prompts`: each candidate that counted as its place and form, a place once
    (two strings of one line are one entry: the JSON names no column)."""
    entries = ({**p.loc.at(), "form": p.form} for p in a.prompts)
    return list({(e["path"], e["line"], e["form"]): e for e in entries}.values())


def summary(report: Report) -> dict[str, int]:
    return {
        "files_scanned": report.files,
        "errors": report.errors,
        "warnings": report.warnings,
        "fixed": report.fixed,
    }


def render(report: Report) -> str:
    doc = {
        "tool": {"name": TOOL, "version": __version__},
        "agents": [agent_dict(a) for a in report.agents],
        "findings": [finding_dict(f) for f in report.findings],
        "summary": summary(report),
    }
    return dumps(doc)
