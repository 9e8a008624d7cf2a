"""A Python file's string literals as its text shows them, without a parse.

What the text stage asks of a prompt-only file is whether its strings can list rules
(relevance.python_lists_rules); `ast` answered that at 60-100 ms a 100 KB file. One regex
finds comments and string literals left to right (a quote inside a comment, a `#` inside
a string, are theirs), and the code between them tells bracket depth. Left out: comments,
bytes, docstrings and bare string statements (a string alone on its line(s) at depth 0,
not continued from the line before), and `reason=`/`detail=` values (a payload's, never
prompt text). The bodies are kept as written (escapes, f-string fields): relevance's
patterns read escaped line breaks and `{RULE}` slots.
"""

from __future__ import annotations

import re

# Each quote form as an unrolled loop (runs of plain characters, then one escape or lone quote).
_STRING = (
    rb'"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""'
    rb"|'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''"
    rb'|"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"'
    rb"|'[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*'"
)
_TOKEN = re.compile(rb"(#[^\r\n]*)|([rRbBuUfF]{0,2})(" + _STRING + rb")")
_BRACKETS = re.compile(rb"[(\[{]|[)\]}]")
_PAYLOAD_KEYWORD = re.compile(rb"(?:reason|detail)[ \t]*=[ \t]*\Z")
_LINE_END = re.compile(rb"[ \t]*(?:#[^\n]*)?(?:\r?\n|\Z)")


def strings(data: bytes) -> list[bytes]:
    """The bodies of the file's string literals that can be prompt text, in source order."""
    out: list[bytes] = []
    depth = 0
    last = 0
    for m in _TOKEN.finditer(data):
        for b in _BRACKETS.findall(data, last, m.start()):
            depth = depth + 1 if b in b"([{" else max(0, depth - 1)
        last = m.end()
        prefix, body = m.group(2), m.group(3)
        if body is None or b"b" in prefix.lower():
            continue  # a comment, or bytes
        line_start = data.rfind(b"\n", 0, m.start()) + 1
        if (
            depth == 0
            and not data[line_start : m.start()].strip(b" \t")
            and _LINE_END.match(data, m.end())
            and not data[:line_start].rstrip(b" \t\r\n").endswith(b"\\")
        ):
            continue  # a docstring, or a bare string statement
        if _PAYLOAD_KEYWORD.search(data, max(0, m.start() - 40), m.start()):
            continue
        quotes = 3 if body[:3] in (b'"""', b"'''") else 1
        out.append(body[quotes:-quotes])
    return out
