"""A Python file's string literals as its text shows them, without a parse.

What the text stage asks of a prompt-only file is whether its strings can list rules
(listing.python_lists_rules); `ast` answered that at 60-100 ms a 100 KB file. One regex
finds comments and string literals left to right (a quote inside a comment, a `#` inside
a string, are theirs), and the code between them tells bracket depth. Left out: comments,
bytes, docstrings and bare string statements (a string alone on its line(s) at depth 0,
not continued from the line before), and `reason=`/`detail=` values (a payload's, never
prompt text). The bodies are kept as written (escapes, f-string fields): relevance's
patterns read escaped line breaks and `{RULE}` slots.
"""

from __future__ import annotations

import re

from refusal_lint.core.sourcetext import before_blanks

# Each quote form as an unrolled loop (runs of plain characters, then one escape or lone quote).
_STRING = (
    rb'"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""'
    rb"|'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''"
    rb'|"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"'
    rb"|'[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*'"
)
# Every match starts at `#` or a quote, and the pattern has no group, so the regex engine
# skips to those bytes in C (a group, or the prefix before the quote, makes it try every
# offset: 2.5x slower); a string's prefix (`rb`, `f`) is read back from its quote (`_prefix`).
_TOKEN = re.compile(rb"#[^\r\n]*|" + _STRING)
_PREFIX_LETTERS = frozenset(b"rRbBuUfF")
_BRACKETS = re.compile(rb"[(\[{]|[)\]}]")
_PAYLOAD_KEYWORD = re.compile(rb"(?:reason|detail)[ \t]*=[ \t]*\Z")
_LINE_END = re.compile(rb"[ \t]*(?:#[^\n]*)?(?:\r?\n|\Z)")


def strings(data: bytes, values: bool = False) -> list[bytes]:
    """The bodies of the file's string literals that can be prompt text, in source order;
    with `values`, every literal whose value code can read (payload values and bytes too:
    `Rule(id=X, reason="...")` read as `RULE.reason`). Linear in the file: each question is
    asked of the code between two tokens only."""
    out: list[bytes] = []
    depth = 0
    last = 0
    line_start = 0
    for m in _TOKEN.finditer(data):
        begin = quote = m.start()
        comment = data[quote] == 35  # `#`
        if not comment:
            begin = _prefix(data, last, quote)
        for b in _BRACKETS.findall(data, last, begin):
            depth = depth + 1 if b in b"([{" else max(0, depth - 1)
        # Alone on its line: a line break between the last token and this one, then blanks.
        nl = data.rfind(b"\n", last, begin)
        alone = (nl >= 0 or last == 0) and not data[nl + 1 if nl >= 0 else 0 : begin].strip(b" \t")
        if nl >= 0:
            line_start = nl + 1
        last = m.end()
        prefix, body = data[begin:quote], m[0]
        inner = data.rfind(b"\n", begin, last)
        statement_line = line_start
        if inner >= 0:
            line_start = inner + 1  # the next token's line begins inside this one
        if comment or (b"b" in prefix.lower() and not values):
            continue  # a comment, or bytes
        if depth == 0 and alone and _LINE_END.match(data, last) and not _continued(data, statement_line):
            continue  # a docstring, or a bare string statement
        if not values and _PAYLOAD_KEYWORD.search(data, max(0, begin - 40), begin):
            continue
        quotes = 3 if body[:3] in (b'"""', b"'''") else 1
        out.append(body[quotes:-quotes])
    return out


def _prefix(data: bytes, last: int, quote: int) -> int:
    """Where the literal whose quote is at `quote` begins: up to two prefix letters before
    it, after the last token (the span `[rRbBuUfF]{0,2}` before the quote matched, leftmost)."""
    begin = quote
    while quote - begin < 2 and begin > last and data[begin - 1] in _PREFIX_LETTERS:
        begin -= 1
    return begin


def _continued(data: bytes, line_start: int) -> bool:
    """Does the line before `line_start` end in a backslash (this line continues it)?"""
    j = before_blanks(data, line_start)
    return j >= 0 and data[j] == 92


def without_comments(data: bytes) -> bytes:
    """The text with its comments blanked (strings kept, each byte in its place)."""
    if b"#" not in data:
        return data
    out = bytearray(data)
    for m in _TOKEN.finditer(data):
        if data[m.start()] == 35:  # `#`
            out[m.start() : m.end()] = b" " * (m.end() - m.start())
    return bytes(out)
