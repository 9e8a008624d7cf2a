"""refusal-lint's spans (1-based lines, 1-based code-point columns, end exclusive) as LSP
ranges (0-based, in the client's units: UTF-16 unless negotiated), and back."""

from __future__ import annotations

import re

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

from refusal_lint.core import sourcetext
from refusal_lint.core.model import Loc


def lines_of(text: str) -> list[str]:
    """The lines as findings number them (`\\n`-separated, a `\\r` before it dropped)."""
    return sourcetext.lines(text)


def position(lines: list[str], line: int, col: int, codec: PositionCodec) -> types.Position:
    """1-based line and code-point column -> an LSP position (clamped to the text)."""
    row = min(max(line - 1, 0), max(len(lines) - 1, 0))
    text = lines[row] if lines else ""
    return codec.position_to_client_units(
        lines or [""], ServerTextPosition(row, min(max(col - 1, 0), len(text)))
    )


def loc_range(loc: Loc, lines: list[str], codec: PositionCodec) -> types.Range:
    """A finding's span; one with no end runs to the end of its line's text, so that the
    editor marks something visible."""
    start = position(lines, loc.line, loc.col, codec)
    if loc.end_line:
        return types.Range(start, position(lines, loc.end_line, loc.end_col, codec))
    row = loc.line - 1
    end_col = len(lines[row].rstrip()) + 1 if 0 <= row < len(lines) else loc.col
    return types.Range(start, position(lines, loc.line, max(end_col, loc.col), codec))


_LSP_BREAK = re.compile(r"\r\n|\r|\n")


def offset_position(text: str, offset: int, codec: PositionCodec) -> types.Position:
    """An offset into `text` -> the LSP position the editor applies an edit at (LSP lines
    end at `\r\n`, `\r` or `\n`)."""
    line, start = 0, 0
    for m in _LSP_BREAK.finditer(text, 0, offset):
        line, start = line + 1, m.end()
    return types.Position(line, codec.client_num_units(text[start:offset]))


def from_client(lines: list[str], pos: types.Position, codec: PositionCodec) -> tuple[int, int]:
    """An LSP position -> 1-based line and code-point column."""
    server = codec.position_from_client_units(lines, types.Position(pos.line, pos.character))
    return server.line + 1, server.character + 1
