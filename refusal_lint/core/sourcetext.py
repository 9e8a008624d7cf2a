"""Source text: bytes to text (encoding, BOM), and line starts to turn offsets into lines
and columns. Extraction, JSON reading, Python positions and fixing all read files through
this module, so a file means the same text, and a position the same place, everywhere."""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from typing import NamedTuple

BOM = b"\xef\xbb\xbf"
# A Python module past this size is generated (a data table, a schema): read whole it would
# cost seconds and hundreds of MB (a 3.9 MB one: 14 s, 700 MB), so where it is needed it is
# RL005 at once, in every mode; hand-written modules stay far below (the largest of the
# bench's repositories: 0.48 MB).
PY_READ_LIMIT = 1024 * 1024


class Decoded(NamedTuple):
    text: str  # without the BOM
    encoding: str  # what writing it back uses (the BOM apart)
    bom: bool


def decode(data: bytes, python: bool = False, errors: str = "strict") -> Decoded:
    """UTF-8 with an optional BOM; Python by its coding cookie (PEP 263); `errors` as
    `bytes.decode` takes it. Raises
    UnicodeDecodeError, ValueError (NUL bytes: binary), and for Python SyntaxError or
    LookupError (a bad or unknown cookie)."""
    if b"\x00" in data:
        raise ValueError("binary file (holds NUL bytes)")  # one wording for every kind of file
    encoding = "utf-8"
    if python:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        encoding = "utf-8" if encoding == "utf-8-sig" else encoding
    return Decoded(data.decode(encoding, errors).removeprefix("\ufeff"), encoding, data.startswith(BOM))


def line_starts(text: str) -> list[int]:
    """The offset where each line starts (lines end at `\\n`, as parsers count them)."""
    return [0, *(m.end() for m in re.finditer("\n", text))]


def line_col(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based line and 0-based column of an offset."""
    line = bisect.bisect_right(starts, offset) - 1
    return line + 1, offset - starts[line]


def before_blanks(data: bytes, at: int) -> int:
    """The offset of the last byte before `at` that is no blank or line break (-1: none)."""
    i = at - 1
    while i >= 0 and data[i] in b" \t\r\n":
        i -= 1
    return i


def lines(text: str) -> list[str]:
    """The text's lines as parsers number them (`\\n`-separated; a `\\r` before it dropped)."""
    return [line.removesuffix("\r") for line in text.split("\n")]
