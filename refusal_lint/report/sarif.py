"""SARIF 2.1.0 for GitHub code scanning: driver rules from the code table, 1-based regions."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refusal_lint import __version__
from refusal_lint.codes import CODES, REPO, Code, is_error
from refusal_lint.core.model import TOOL, shown
from refusal_lint.report.base import dumps, fingerprints, tagged

if TYPE_CHECKING:
    from refusal_lint.core.model import Finding
    from refusal_lint.report.base import Report

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = REPO
SRCROOT = "%SRCROOT%"


def _markdown(c: Code) -> str:
    """The explanation as Markdown: prose lines kept apart, the example fenced."""
    prose = f"What: {c.what}\nWhy: {c.why}\nFix: {c.fix}"
    out = [line + "  " for line in prose.splitlines()]
    if c.example:
        out += ["Example:", "```", *shown(c.example), "```"]
    if c.fixed:
        out += ["Fixed:", "```", *shown(c.fixed), "```"]
    return "\n".join(out)


def _rule(code: str) -> dict[str, Any]:
    c = CODES[code]
    return {
        "id": c.code,
        "name": c.name,
        "shortDescription": {"text": c.summary},
        "fullDescription": {"text": Code.one_line(c.what)},
        "help": {"text": c.explanation, "markdown": _markdown(c)},
        "helpUri": c.url,
        "defaultConfiguration": {"level": str(c.severity)},
        "properties": {"tags": ["refusals", "a2a"], "fixable": c.fixable},
    }


def _artifact(path: str) -> dict[str, str]:
    """A path relative to the current folder names %SRCROOT% as its base; one outside it
    (shown absolute) is a file URI of its own, and a probed card's URL is its own URI."""
    from urllib.parse import quote

    if path.startswith(("http://", "https://")):
        return {"uri": path}
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(os.fsencode(path)), "uriBaseId": SRCROOT}  # the name's bytes, as written


def _result(f: Finding, fingerprint: str, order: list[str]) -> dict[str, Any]:
    region: dict[str, int] = {"startLine": f.loc.line, "startColumn": f.loc.col}
    if f.loc.end_line >= f.loc.line and f.loc.end_col:
        region["endLine"] = f.loc.end_line
        region["endColumn"] = f.loc.end_col
    return {
        "ruleId": f.code,
        "ruleIndex": order.index(f.code),
        "level": "error" if is_error(f.code) else "warning",
        "message": {"text": tagged(f)},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact(f.loc.path), "region": region}}],
        "partialFingerprints": {"refusalLint/v1": fingerprint},
    }


def render(report: Report) -> str:
    """SARIF 2.1.0; `automationDetails.id` names the command, so a check upload and a probe
    upload for one commit live side by side in code scanning. Paths are relative to the
    current folder, which `originalUriBaseIds` gives as %SRCROOT%."""
    order = list(CODES)
    fps = fingerprints(report.findings)
    driver = {
        "name": TOOL,
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": INFO_URI,
        "rules": [_rule(c) for c in order],
    }
    run = {
        "tool": {"driver": driver},
        "automationDetails": {"id": f"refusal-lint/{report.command}/"},
        "originalUriBaseIds": {SRCROOT: {"uri": Path(os.path.abspath(os.getcwd())).as_uri() + "/"}},
        "results": [_result(f, fp, order) for f, fp in zip(report.findings, fps, strict=True)],
        "columnKind": "unicodeCodePoints",
    }
    doc = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return dumps(doc)
