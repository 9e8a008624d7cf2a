"""Findings as LSP diagnostics: `code` the RL code, `codeDescription.href` its rule page,
`source` "refusal-lint", the severity of the code table, the finding's span as the range."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from refusal_lint.codes import CODES, is_error
from refusal_lint.core.model import TOOL, Finding
from refusal_lint.server.positions import loc_range
from refusal_lint.static.checks.files import RL003

SOURCE = TOOL


def diagnostic(f: Finding, lines: list[str], codec: PositionCodec) -> types.Diagnostic:
    code = CODES[f.code]
    return types.Diagnostic(
        range=loc_range(f.loc, lines, codec),
        message=f.message,
        severity=types.DiagnosticSeverity.Error if is_error(f.code) else types.DiagnosticSeverity.Warning,
        code=f.code,
        code_description=types.CodeDescription(href=code.url),
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if f.code == RL003.code else None,
        data={"rule_id": f.rule_id, "fixable": f.fixable, "name": code.name},
    )


def diagnostics(
    findings: tuple[Finding, ...], lines: list[str], codec: PositionCodec
) -> list[types.Diagnostic]:
    return [diagnostic(f, lines, codec) for f in findings]
