"""Code actions: the RL203/RL303 fixes as workspace edits planned by the same code as
`--fix` (fix.plan_text, on the editor's buffer), and suppression comments. Nothing here
writes a file: the editor applies the edit to its buffer."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from refusal_lint.core.model import Finding
from refusal_lint.server.diagnostics import diagnostic
from refusal_lint.server.positions import lines_of, offset_position, position
from refusal_lint.server.suppress import insertion
from refusal_lint.static.checks.prompt import RL203
from refusal_lint.static.fix import plan_text

FIX_ALL = types.CodeActionKind.SourceFixAll.value + ".refusal-lint"


def text_edit(before: str, after: str, codec: PositionCodec) -> types.TextEdit:
    """The one edit that turns `before` into `after`: only the span that differs."""
    limit = min(len(before), len(after))
    head = 0
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    end = len(before) - tail
    # Never split a `\r\n`: the span's ends move out of it.
    if 0 < head < len(before) and before[head - 1 : head + 1] == "\r\n":
        head -= 1
    if head < end < len(before) and before[end - 1 : end + 1] == "\r\n":
        end += 1
        tail -= 1
    start = offset_position(before, head, codec)
    return types.TextEdit(
        types.Range(start, offset_position(before, end, codec)), after[head : len(after) - tail]
    )


def _edit(uri: str, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(changes={uri: edits})


def _touches(f: Finding, lines: range) -> bool:
    last = max(f.loc.line, f.loc.end_line)
    return f.loc.line <= lines.stop - 1 and last >= lines.start


def fixes(
    uri: str, rel: str, text: str, findings: list[Finding], codec: PositionCodec
) -> list[types.CodeAction]:
    """One quick fix per fixable finding whose edit `--fix` could make on this text."""
    out = []
    lines = lines_of(text)
    for f in findings:
        if f.edit is None or f.edit.path != rel:
            continue
        after, fixed, _ = plan_text(rel, text, [f])
        if not fixed:
            continue
        what = "prompt's" if f.code == RL203.code else "guard's"
        out.append(
            types.CodeAction(
                title=f"Fix {f.code}: write the card's reason in the {what} `{f.rule_id}`",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic(f, lines, codec)],
                is_preferred=True,
                edit=_edit(uri, [text_edit(text, after, codec)]),
            )
        )
    return out


def fix_all(
    uri: str, rel: str, text: str, findings: list[Finding], codec: PositionCodec
) -> list[types.CodeAction]:
    """Every fix of the file in one edit, as `--fix` would make them."""
    ours = [f for f in findings if f.edit is not None and f.edit.path == rel]
    if not ours:
        return []
    after, fixed, _ = plan_text(rel, text, ours)
    if not fixed:
        return []
    lines = lines_of(text)
    return [
        types.CodeAction(
            title=f"Fix all refusal-lint fixable findings in this file ({len(fixed)})",
            kind=FIX_ALL,
            diagnostics=[diagnostic(f, lines, codec) for f in fixed],
            edit=_edit(uri, [text_edit(text, after, codec)]),
        )
    ]


def suppressions(
    uri: str, rel: str, text: str, findings: list[Finding], codec: PositionCodec
) -> list[types.CodeAction]:
    """For each finding, a comment that silences it, where one can stand."""
    out = []
    lines = lines_of(text)
    seen: set[tuple[int, str]] = set()
    for f in findings:
        ins = insertion(rel, text, f)
        if ins is None or (ins.line, f.code) in seen:
            continue
        seen.add((ins.line, f.code))
        at = position(lines, ins.line, ins.col, codec)
        out.append(
            types.CodeAction(
                title=f"Suppress {f.code} with a comment on line {ins.line}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic(f, lines, codec)],
                edit=_edit(uri, [types.TextEdit(types.Range(at, at), ins.text)]),
            )
        )
    return out


def actions(
    uri: str,
    rel: str,
    text: str,
    findings: tuple[Finding, ...],
    selected: range,
    only: list[str] | None,
    codec: PositionCodec,
) -> list[types.CodeAction]:
    """The actions for the findings on the selected lines (1-based, `range` end exclusive)."""
    here = [f for f in findings if _touches(f, selected)]

    def wanted(kind: str) -> bool:
        return only is None or any(kind == k or kind.startswith(k + ".") for k in only)

    out: list[types.CodeAction] = []
    if wanted(types.CodeActionKind.QuickFix.value):
        out += fixes(uri, rel, text, here, codec) + suppressions(uri, rel, text, here, codec)
    if wanted(FIX_ALL):
        out += fix_all(uri, rel, text, list(findings), codec)
    return out
