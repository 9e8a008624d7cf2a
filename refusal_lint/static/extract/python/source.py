"""Where an `ast` node stands in the file's text, and the string tokens a literal is made of.

CPython's parser gives UTF-8 byte columns; findings count characters. It merges an implicit
concatenation (`"a" "b"`) and an f-string's pieces into one node; a prompt's lines and an
f-string's parts are read from the tokens themselves, scanned here (PEP 701 nesting too).
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Iterator
from typing import NamedTuple

from refusal_lint.core import sourcetext
from refusal_lint.core.model import Loc

_PREFIX = re.compile(r"[rRbBuUfF]{0,2}(?='|\")")
_QUOTE = re.compile(r"'''|\"\"\"|'|\"")
# A plain (not f-) literal's body up to its closing quote; a backslash escapes one character.
_BODY = {
    "'": re.compile(r"(?:[^'\\\n]|\\.|\\\n)*'"),
    '"': re.compile(r'(?:[^"\\\n]|\\.|\\\n)*"'),
    "'''": re.compile(r"(?:[^'\\]|\\.|'(?!''))*'''", re.DOTALL),
    '"""': re.compile(r'(?:[^"\\]|\\.|"(?!""))*"""', re.DOTALL),
}
# What may stand between the tokens of an implicit concatenation.
_GAP = re.compile(r"(?:[ \t\f\r\n]|\\\r?\n|#[^\n]*)*")
_DEF = re.compile(r"(?:async(?:\s|\\\r?\n)+)?(?:def|class)(?:\s|\\\r?\n)+")


class Part(NamedTuple):
    """A piece of an f-string token: its literal text (raw, as written) or a `{...}` field."""

    field: bool
    raw: str
    start: int  # offset in the file's text


class Token(NamedTuple):
    """One string literal token: `prefix quote body quote`, at [start, end) of the text."""

    prefix: str
    quote: str
    start: int
    end: int
    parts: tuple[Part, ...]  # f-strings only

    def body(self, text: str) -> str:
        return text[self.start + len(self.prefix) + len(self.quote) : self.end - len(self.quote)]


class Source:
    """A module's text with the arithmetic from `ast` positions to Locs and offsets."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.starts = sourcetext.line_starts(text)
        self._ascii = text.isascii()

    @functools.cached_property
    def lines(self) -> list[str]:
        """The text's lines as parsers number them (split once, only where asked for)."""
        return sourcetext.lines(self.text)

    def char_col(self, line: int, byte_col: int) -> int:
        if self._ascii or not 0 < line <= len(self.lines):
            return byte_col
        text = self.lines[line - 1]
        if text.isascii():
            return byte_col
        return len(text.encode()[:byte_col].decode(errors="replace"))

    def offset(self, line: int, byte_col: int) -> int:
        return self.starts[min(line, len(self.starts)) - 1] + self.char_col(line, byte_col)

    def span(self, node: ast.AST) -> tuple[int, int]:
        """The node's [start, end) offsets in the text."""
        n: ast.expr = node  # type: ignore[assignment]
        start = self.offset(n.lineno, n.col_offset)
        end = self.offset(n.end_lineno or n.lineno, n.end_col_offset or 0)
        if isinstance(node, (ast.Tuple, ast.GeneratorExp)) and self.text.startswith("(", start):
            return self._unparenthesized(node, start, end)
        return start, end

    def _unparenthesized(self, node: ast.Tuple | ast.GeneratorExp, start: int, end: int) -> tuple[int, int]:
        # CPython counts a tuple's own parentheses in its span, a name's not. Without them, as
        # for every other node: from the first element to the last one's closing parentheses and
        # trailing comma.
        # (`(a), (b)` reads as one parenthesized tuple: rare, and only its span is off.)
        if self.text[end - 1 : end] != ")":
            return start, end
        close = end - 1
        start = _GAP.match(self.text, start + 1).end()  # type: ignore[union-attr]
        if isinstance(node, ast.GeneratorExp) or not node.elts:
            while close > start and self.text[close - 1] in " \t\r\n\f":
                close -= 1
            return start, close
        return start, self._closed(self.span(node.elts[-1])[1], close)

    def _closed(self, at: int, limit: int) -> int:
        """The end of an element at `at` with the `)` of its own parentheses and its comma."""
        end = at
        while at < limit:
            at = _GAP.match(self.text, at).end()  # type: ignore[union-attr]
            if at >= limit or self.text[at] not in "),":
                break
            end = at + 1
            if self.text[at] == ",":
                break
            at += 1
        return end

    def spread_loc(self, value: ast.expr) -> Loc:
        """`**rest` in a dict display: from its `**` to the end of the value, parentheses too."""
        start, end = self.span(value)
        at = self.text.rfind("**", 0, start)
        at = at if at >= 0 else start
        for _ in range(self.text.count("(", at, start)):
            close = self.text.find(")", end)
            end = close + 1 if close >= 0 else end
        return self.loc_at(at, end)

    def loc_at(self, start: int, end: int) -> Loc:
        (l1, c1), (l2, c2) = sourcetext.line_col(self.starts, start), sourcetext.line_col(self.starts, end)
        return Loc(self.path, l1, c1 + 1, l2, c2 + 1)

    def loc(self, node: ast.AST) -> Loc:
        if not hasattr(node, "lineno"):
            return Loc(self.path)
        if isinstance(node, (ast.Tuple, ast.GeneratorExp)):
            return self.loc_at(*self.span(node))
        n: ast.expr = node  # type: ignore[assignment]
        l2 = n.end_lineno or n.lineno
        return Loc(
            self.path,
            n.lineno,
            self.char_col(n.lineno, n.col_offset) + 1,
            l2,
            self.char_col(l2, n.end_col_offset or 0) + 1,
        )

    def name_loc(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> Loc:
        """Where a `def` or `class` statement's name stands."""
        start = self.offset(node.lineno, node.col_offset)
        m = _DEF.match(self.text, start)
        at = m.end() if m else start
        return self.loc_at(at, at + len(node.name))

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def tokens(self, node: ast.Constant | ast.JoinedStr) -> list[Token]:
        """The string tokens a str, bytes or f-string node is written as, in order."""
        start, end = self.span(node)
        out: list[Token] = []
        at = start
        while at < end:
            token = scan(self.text, at)
            if token is None:
                break
            out.append(token)
            at = _GAP.match(self.text, token.end).end()  # type: ignore[union-attr]
        return out

    def comments(self) -> list[tuple[int, int, str, int]]:
        """(line, column, text, first) of each comment, read by the tokenizer. `first`: where
        a string written over several lines that ends on the comment's line begins (a comment
        there speaks for the whole string, as ruff's `noqa` does: none can stand inside it),
        else the comment's own line."""
        out: list[tuple[int, int, str, int]] = []
        first = last = 0  # the last string over several lines: its first and last lines
        try:
            for tok, lines in with_string_lines(self.text):
                if lines is not None:
                    first, last = lines
                elif tok.type == tokenize.COMMENT:
                    line = tok.start[0]
                    out.append((line, tok.start[1], tok.string, first if last == line else line))
        except (tokenize.TokenError, SyntaxError):
            pass
        return out


# Python 3.12 tokenizes an f-string in parts; before it, one STRING token (no such types).
_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)
_FSTRING_END = getattr(tokenize, "FSTRING_END", -1)


def with_string_lines(text: str) -> Iterator[tuple[tokenize.TokenInfo, tuple[int, int] | None]]:
    """The text's tokens, each with the first and last lines of the string it ends where
    that string is written over several lines (else None). Raises as the tokenizer does."""
    opened: list[int] = []  # where each f-string being read began
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        first = None
        if tok.type == _FSTRING_START:
            opened.append(tok.start[0])
        elif tok.type == _FSTRING_END and opened:
            first = opened.pop()
        elif tok.type == tokenize.STRING:
            first = tok.start[0]
        yield tok, (first, tok.end[0]) if first is not None and tok.end[0] > first else None


def scan(text: str, at: int) -> Token | None:
    """The string literal token that starts at `at` (None if none does)."""
    m = _PREFIX.match(text, at)
    if m is None:
        return None
    prefix = m.group()
    q = _QUOTE.match(text, m.end())
    if q is None:
        return None
    quote = q.group()
    if "f" not in prefix.lower():
        b = _BODY[quote].match(text, q.end())
        return Token(prefix, quote, at, b.end() if b else len(text), ())
    end, parts = _fstring(text, q.end(), quote, "r" in prefix.lower())
    return Token(prefix, quote, at, end, tuple(parts))


def _fstring(text: str, i: int, quote: str, raw: bool) -> tuple[int, list[Part]]:
    """An f-string's body from `i`: its end (after the closing quote) and its parts."""
    parts: list[Part] = []
    lit = i
    n = len(text)
    while i < n:
        if text.startswith(quote, i):
            if i > lit:
                parts.append(Part(False, text[lit:i], lit))
            return i + len(quote), parts
        c = text[i]
        if c == "\\":
            if not raw and text.startswith("N{", i + 1):
                close = text.find("}", i)
                i = close + 1 if close > 0 else i + 2
            else:
                i += 1 if text[i + 1 : i + 2] in ("{", "}") else 2  # a brace is never escaped
        elif c in "{}" and text.startswith(c * 2, i):
            i += 2
        elif c == "{":
            if i > lit:
                parts.append(Part(False, text[lit:i], lit))
            end = _field_end(text, i + 1)
            parts.append(Part(True, text[i:end], i))
            i = lit = end
        else:
            i += 1
    return n, parts


def _field_end(text: str, i: int) -> int:
    """The offset after the `}` that closes a replacement field whose body starts at `i`.
    In the expression, strings are skipped whole (PEP 701 lets them reuse the quote); after a
    top-level `:` is the format spec, where a quote is a fill character and `{` a nested field."""
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            i = _skip_string(text, i)
            continue
        if c == ":" and depth == 0 and not text.startswith(":=", i):
            return _spec_end(text, i + 1)
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return i + 1
            depth -= 1
        i += 1
    return n


def _spec_end(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "{":
            i = _field_end(text, i + 1)
            continue
        if c == "}":
            return i + 1
        i += 1
    return n


def _skip_string(text: str, i: int) -> int:
    """The offset after the string literal whose quote is at `i` (with its prefix before it)."""
    j = i
    while j > 0 and text[j - 1] in "rRbBuUfF" and i - j < 2:
        j -= 1
    if j > 0 and (text[j - 1].isalnum() or text[j - 1] == "_"):
        j = i  # letters of a name, not a prefix
    token = scan(text, j)
    return token.end if token is not None and token.end > i else i + 1


def value_lines(body: str, raw: bool, first: int, value: str) -> tuple[int, ...]:
    """The file line on which each line of a string literal's value starts: a real newline
    moves to the next file line; an escaped `\\n` starts a value line on the same file line;
    a backslash-newline continues the file on the next line."""
    lines = [first]
    line = first
    fresh = True  # the current value line has no character yet: it starts where its first one is
    i = 0
    while i < len(body):
        c = body[i]
        step = 1
        if c == "\\" and not raw and i + 1 < len(body):
            step = 2
            nxt = body[i + 1]
            if nxt == "\n" or body.startswith("\r\n", i + 1):  # a backslash-newline (CRLF too)
                line += 1
                i += step + (nxt == "\r")
                continue
            if nxt == "n":
                lines.append(line)
                fresh = True
                i += step
                continue
        elif c == "\n":
            line += 1
            lines.append(line)
            fresh = True
            i += step
            continue
        if fresh:
            lines[-1] = line
            fresh = False
        i += step
    if len(lines) != value.count("\n") + 1:  # exotic escapes: every line at the literal's start
        return tuple(first for _ in range(value.count("\n") + 1))
    return tuple(lines)


def evaluate(prefix: str, quote: str, raw: str) -> str | bytes:
    """A literal's value from its text as written (most need no escape undone)."""
    if "\\" not in raw and "\r" not in raw and "b" not in prefix.lower():
        return raw
    try:
        value = ast.literal_eval(prefix + quote + raw + quote)
    except (SyntaxError, ValueError):
        return raw
    return value if isinstance(value, (str, bytes)) else raw
