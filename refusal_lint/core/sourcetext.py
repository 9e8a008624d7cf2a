"""Source text: bytes to text (encoding, BOM), and line starts to turn offsets into lines
and columns. Extraction, JSON reading, Python positions and fixing all read files through
this module, so a file means the same text, and a position the same place, everywhere."""

from __future__ import annotations

import bisect
import codecs
import functools
import io
import re
import tokenize
import unicodedata
from typing import NamedTuple

BOM = b"\xef\xbb\xbf"
# A Python module past this size is generated (a data table, a schema): read whole it would
# cost seconds and hundreds of MB (a 3.9 MB one: 14 s, 700 MB), so where it is needed it is
# RL005 at once, in every mode; hand-written modules stay far below (the largest of the
# bench's repositories: 0.48 MB).
PY_READ_LIMIT = 1024 * 1024
# The bytes of a Python name (`[A-Za-z0-9_]`): where a word of code starts or ends.
NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


# An escape a Python, JSON or YAML string spells a character with (`\x2d`, `\u0065`,
# `\N{HYPHEN-MINUS}`, `\055`); those that can spell a printable ASCII one, the only kind a
# rule id, a placeholder, a rules name or a card key is made of; an escaped line break,
# which the string's value drops (with the next line's indent, in a YAML scalar).
_ESCAPE = re.compile(
    rb"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|N\{([^}\n]*)\}|([0-7]{1,3}))"
)
_SPELLS_TEXT = re.compile(
    rb"\\(?:x[2-7][0-9a-fA-F]|u00[2-7][0-9a-fA-F]|U0000[0-9a-fA-F]{4}|N\{|1[0-7][0-7]|[4-7][0-7])"
)
_CONTINUED = re.compile(rb"\\\r?\n[ \t]*")


@functools.lru_cache(maxsize=4)
def spelled(data: bytes) -> bytes | None:
    """`data` as its strings' values may read it, for the text gates: each escape that
    spells a printable character spelled out, each escaped line break joined; None where
    there is neither (the bytes as written are then all there is to ask). Kept for the
    file's next question."""
    if b"\\" not in data:
        return None
    joined = _CONTINUED.sub(b"", data) if b"\\\n" in data or b"\\\r\n" in data else data
    if _SPELLS_TEXT.search(joined) is None:
        return joined if joined is not data else None
    return _ESCAPE.sub(_spelled, joined)


def _spelled(m: re.Match[bytes]) -> bytes:
    """The character an escape spells, as UTF-8 (one that names none: nothing)."""
    hexa, name, octal = m.group(1) or m.group(2) or m.group(3), m.group(4), m.group(5)
    try:
        if name is not None:
            char = unicodedata.lookup(name.decode("ascii", "replace"))
        else:
            char = chr(int(hexa, 16) if hexa is not None else int(octal, 8))
        return char.encode("utf-8", "surrogatepass")
    except (KeyError, ValueError, OverflowError):  # no such name, or past the last code point
        return b""


# Text written as UTF-16 or UTF-32 with a BOM (PowerShell 5's `>` and Notepad's "Unicode"
# write prompt files so): read as text, never as a binary file. UTF-32's little-endian BOM
# starts with UTF-16's, so it is tried first. Python source is never wide (CPython refuses it).
_WIDE = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _wide(data: bytes) -> str | None:
    return next((name for bom, name in _WIDE if data.startswith(bom)), None)


def as_utf8(data: bytes, python: bool = False) -> bytes:
    """The bytes every gate and parser reads: a wide file (by its BOM) as UTF-8 with a BOM,
    anything else as it is (an undecodable wide file too: decoding it later says why)."""
    wide = None if python else _wide(data)
    if wide is None:
        return data
    try:
        return BOM + data.decode(wide).removeprefix("\ufeff").encode("utf-8")
    except UnicodeDecodeError:
        return data


class Decoded(NamedTuple):
    text: str  # without the BOM
    encoding: str  # what writing it back uses (the BOM apart)
    bom: bool


def decode(data: bytes, python: bool = False, errors: str = "strict") -> Decoded:
    """UTF-8 with an optional BOM, or UTF-16/32 with one (not Python); Python by its coding
    cookie (PEP 263); `errors` as `bytes.decode` takes it. Raises
    UnicodeDecodeError, ValueError (NUL bytes: binary), and for Python SyntaxError or
    LookupError (a bad or unknown cookie)."""
    wide = None if python else _wide(data)
    if wide is not None:
        text = data.decode(wide, errors).removeprefix("\ufeff")
        if "\x00" in text:
            raise ValueError("binary file (holds NUL bytes)")
        return Decoded(text, wide, True)
    if b"\x00" in data:
        raise ValueError("binary file (holds NUL bytes)")  # one wording for every kind of file
    encoding = "utf-8"
    if python:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        encoding = "utf-8" if encoding == "utf-8-sig" else encoding
    return Decoded(data.decode(encoding, errors).removeprefix("\ufeff"), encoding, data.startswith(BOM))


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def scrubbed(text: str) -> str:
    """`text` with each lone surrogate (a JSON or Python string's `\\ud83d`: half an emoji,
    which no encoding writes) as U+FFFD, as a decoder reads a byte it cannot: for a rule id,
    which the gates encode and every report prints."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


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


def text_lines(text: str) -> list[str]:
    """`lines`, without the empty one after a last line break: a text file's lines as git
    and editors number them (`str.splitlines` also breaks at a form feed or U+2028 in prose)."""
    out = lines(text)
    return out[:-1] if out[-1] == "" else out
