"""A Python file's statements as its text shows them, without a parse: its strings and
comments (pystrings' tokens), where each statement starts and ends (line breaks outside
brackets), and the names the code of a span reads. Supersets of what `ast` finds: a
statement found holds ast's, its names hold the names ast reads there."""

from __future__ import annotations

import bisect
import keyword
import re
from functools import lru_cache

from refusal_lint.static.extract import vocab
from refusal_lint.static.gate.text import pystrings
from refusal_lint.static.gate.text.lowered import name_at, word_matches

DOTTED = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_ASSIGNED = re.compile(rb"(?<![=!<>])=(?!=)")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"()[]{}")
# A `def` or `class` header: its keyword, found by the regex engine's scan for its first
# letters (a `^` anchor makes it try every offset: twice as slow), then what stands before it
# on its line (its indent, `async`).
_KEYWORD = re.compile(rb"(?:def|class)[ \t]")
_HEADER_LEAD = re.compile(rb"([ \t]*)(?:async[ \t]+)?")
_BRACKETS = re.compile(rb"[()\[\]{},]")
# What follows a name a statement assigns (`NAME =`, `NAME: T =`, `NAME +=`), up to the `=`.
AFTER_TARGET = re.compile(rb"[ \t]*(?::[^=\n]*)?(?:\+|\|)?=(?!=)")


def _delta(code: bytes, start: int, end: int) -> int:
    """How much deeper in brackets code is at `end` than at `start` (counted by C)."""
    brackets = code[start:end].translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    return 2 * (brackets.count(b"(") + brackets.count(b"[") + brackets.count(b"{")) - len(brackets)


@lru_cache(maxsize=32)
def code_of(data: bytes) -> Code:
    """The Code of a file's bytes, made once for the questions asked of it in a row."""
    return Code(data)


class Code:
    """A Python file's strings and comments (their spans), and its statements."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        tokens = [m.span() for m in pystrings._TOKEN.finditer(data)]
        self.starts = [s for s, _ in tokens]
        self.ends = [e for _, e in tokens]
        self._code: bytes | None = None
        self._outer: list[tuple[int, int]] | None = None  # the blocks no block holds
        self._heads: list[tuple[int, int]] | None = None  # every block's header (start, indent)
        self._known = [0]  # line starts whose bracket depth is known, in order
        self._depths = [0]  # and those depths
        self._statements: list[tuple[int, int]] = []  # (start, end) of those found, in order
        self._ends: dict[int, int] = {}  # blocks' ends by their header line's start

    def token_at(self, pos: int) -> int:
        """The index of the string or comment holding `pos` (its start included), or -1."""
        i = bisect.bisect_right(self.starts, pos) - 1
        return i if i >= 0 and pos < self.ends[i] else -1

    def _masked(self) -> bytes:
        """The text with its strings and comments blanked out (their line breaks too)."""
        if self._code is None:
            masked = bytearray(self.data)
            for start, end in zip(self.starts, self.ends, strict=True):
                masked[start:end] = b" " * (end - start)
            self._code = bytes(masked)
        return self._code

    def statement(self, pos: int) -> tuple[int, int]:
        """(start, end) of the statement holding `pos`: from the last line break before it
        at bracket depth 0 (not after a backslash) to the first after it. Only the
        statement's lines are walked, each line's brackets counted by C."""
        i = bisect.bisect_right(self._statements, (pos, len(self.data) + 1)) - 1
        if i >= 0 and pos < self._statements[i][1]:
            return self._statements[i]  # in one found before (a dict of prompts: one statement)
        found = self._statement(pos)
        bisect.insort(self._statements, found)
        return found

    def _statement(self, pos: int) -> tuple[int, int]:
        code = self._masked()
        nl = code.rfind(b"\n", 0, pos)
        depth = self.depth_at(nl + 1)  # at the start of its line
        while nl >= 0 and (depth > 0 or code[nl - 1 : nl] == b"\\"):
            prev = code.rfind(b"\n", 0, nl)
            depth -= _delta(code, prev + 1, nl)
            nl = prev
        start = at = nl + 1
        depth = 0
        while True:
            nl = code.find(b"\n", at)
            if nl < 0:
                return start, len(code)
            depth += _delta(code, at, nl)
            if depth <= 0 and nl >= pos and code[nl - 1 : nl] != b"\\":
                return start, nl
            at = nl + 1

    def value_end(self, pos: int, stop: int, commas: bool) -> int:
        """Where a value starting at `pos` ends, at most at `stop`: at the bracket that
        closes the one it stands in, or (`commas`) at a comma outside brackets."""
        depth = 0
        for m in _BRACKETS.finditer(self._masked(), pos, stop):
            c = m[0]
            if c in b"([{":
                depth += 1
            elif c != b",":
                if depth == 0:
                    return m.start()
                depth -= 1
            elif commas and depth == 0:
                return m.start()
        return stop

    def opener(self, first: int, pos: int) -> int:
        """Where the innermost bracket still open at `pos` opens, counted from `first` (a
        statement's start); `first` where none is."""
        stack: list[int] = []
        for m in _BRACKETS.finditer(self._masked(), first, pos):
            if m[0] in b"([{":
                stack.append(m.start())
            elif m[0] != b"," and stack:
                stack.pop()
        return stack[-1] if stack else first

    def depth_in(self, start: int, pos: int) -> int:
        """How much deeper in brackets `pos` is than `start`, a statement's."""
        return _delta(self._masked(), start, pos)

    def depth_at(self, line_start: int) -> int:
        """How deep in brackets the code is where a line of the masked text starts: counted
        by C from the nearest place asked before, which is kept, so a statement costs its own
        lines and the way from the last one asked, not the text from its start."""
        i = bisect.bisect_right(self._known, line_start) - 1
        at = self._known[i]
        depth = self._depths[i] + _delta(self._masked(), at, line_start)
        if at != line_start:
            self._known.insert(i + 1, line_start)
            self._depths.insert(i + 1, depth)
        return depth

    def block(self, start: int) -> int:
        """Where the block (`class X:`) whose line starts at `start` ends: the first line
        after its header (which may span lines: `def f(\n    a,\n):`) that starts at or
        left of its column with code. Kept: `enclosing` asks the same headers again."""
        end = self._ends.get(start)
        if end is None:
            end = self._ends[start] = self._block(start)
        return end

    def _block(self, start: int) -> int:
        indent = _indent(self.data, start)
        dedent = re.compile(rb"^[ \t]{0,%d}(?=[^ \t\r\n#])" % indent, re.M)
        code = self._masked()
        first = code.find(b"\n", start)
        if first < 0 or not code[start:first].rstrip().endswith(b":"):
            first = self.statement(start)[1]  # a header that spans lines
        for m in dedent.finditer(self.data, first + 1):
            if self.token_at(m.end()) < 0:
                return m.start()
        return len(self.data)

    def names(self, start: int, end: int, values: bool = False) -> set[str]:
        """The dotted names code reads in [start, end), and those in its strings'
        replacement fields (`f"...{RULES}"`). `values`: only those a value may be read
        from, not a callee (of `POLICY.format(`, `POLICY` stays), a keyword argument's name
        (`content=`), nor a field of a string that is no f-string (a template's `{given}`)."""
        data = self.data
        out: set[bytes] = set()
        code = _values_read if values else DOTTED.findall
        pos = start
        i = bisect.bisect_left(self.starts, start)
        while i < len(self.starts) and self.starts[i] < end:
            out.update(code(data, pos, self.starts[i]))
            if data[self.starts[i]] != 35 and (not values or _formatted(data, self.starts[i])):
                out.update(field_names(data[self.starts[i] : min(self.ends[i], end)]))
            pos = self.ends[i]
            i += 1
        out.update(code(data, pos, max(pos, end)))
        return {n.decode() for n in out}

    def after_reads(self, name: str, scope: tuple[int, int]) -> set[str]:
        """The names read after each read of `name` in code of `scope` (`scope`: where a
        statement binding it stands), in the statement reading it; its binding statement's
        own included (a superset)."""
        out: set[str] = set()
        pattern = re.compile(re.escape(name.encode()) + rb"(?![A-Za-z0-9_])")  # a literal start
        read_to = -1
        for m in word_matches(pattern, self.data, *scope):
            if m.start() < read_to:
                continue  # one read from an earlier read
            j = self.token_at(m.start())
            after = m.end()
            if j >= 0:
                # In a string, a read only in a replacement field (`f"{LEAD}{RULES}"`): the
                # fields after it, then the code after the string.
                if self.data[self.starts[j]] == 35 or b"{" not in self.data[self.starts[j] : m.start()]:
                    continue  # a comment, or a word of a string's text
                out.update(n.decode() for n in field_names(self.data[m.end() : self.ends[j]]))
                after = self.ends[j]
            _, read_to = self.statement(m.start())
            out.update(self.names(after, read_to))
        return out

    def assigning(self, name: str, scope: tuple[int, int]) -> list[tuple[int, int]] | None:
        """The values the statements of `scope` that assign `name` at their top give it
        (`name = ...`, `name: T = ...`, `name += ...`, `(name := ...)`, a tuple's `a, name =
        ...`; not a call's keyword argument, `f(\n    name=x,`): from after the `=` to the
        statement's end; None where none does."""
        out: list[tuple[int, int]] | None = None
        word = name.encode()
        for at in name_at(self.data, word, *scope):
            target = AFTER_TARGET.match(self.data, at + len(word))
            if target is not None and self.token_at(at) < 0:
                first, last = self.statement(at)
                if self.depth_in(first, at) == 0:
                    out = out or []
                    out.append((target.end(), last))
        return out

    def returned(self, start: int, end: int) -> list[tuple[int, int]]:
        """The statements the value a function (its block: `start`, `end`) returns may be
        read from: its `return`s, and those assigning the locals they read, in turn."""
        body = self.data.find(b"\n", start) + 1
        nested = [  # a function defined in it returns to its own caller
            (m.start(), self.block(m.start()))
            for m in DEF_LINE.finditer(self.data, body, end)
            if self.token_at(m.end() - 1) < 0
        ]
        spans = [
            self.statement(m.start())
            for m in RETURN.finditer(self.data, body, end)
            if self.token_at(m.end() - 1) < 0 and not any(a <= m.start() < b for a, b in nested)
        ]
        todo = sorted({n.partition(".")[0] for s, e in spans for n in self.composed_names(s, e)} - KEYWORDS)
        seen = set(todo)
        while todo:
            for span in self.assigning(todo.pop(), (start, end)) or ():
                if span not in spans:
                    spans.append(span)
                    new = {n.partition(".")[0] for n in self.composed_names(*span)} - KEYWORDS - seen
                    seen |= new
                    todo.extend(sorted(new))
        return spans

    def composed_names(self, start: int, end: int) -> set[str]:
        """`names(start, end, values=True)` less the names in the arguments of a call that
        binding composes no text through (values.py: `date.today()`, `ask(POLICY)` stand in
        a prompt's text as a placeholder; `dedent(POLICY)`, `"\\n".join([...])` do not)."""
        out: set[str] = set()
        pos = start
        for m in _CALL.finditer(self._masked(), start, end):
            if m.start() >= pos and m[1] not in COMPOSING:
                out |= self.names(pos, m.end(), values=True)
                pos = self.value_end(m.end(), end, commas=False)
        return out | self.names(pos, end, values=True)

    def scope(self, start: int) -> tuple[int, int]:
        """Where names bound by the statement at `start` may be read: the `def` or `class`
        it stands in (the innermost whose block holds it); else the whole text."""
        return self.enclosing(start) or (0, len(self.data))

    def enclosing(self, start: int) -> tuple[int, int] | None:
        """(header line start, end) of the innermost `def` or `class` block holding the line
        at `start`; None at the module's level. Its header is the nearest before it, less
        indented, whose block reaches it: looked for back from it, not by finding every
        block of the file."""
        limit = _indent(self.data, start)
        if self.data[start + limit : start + limit + 1] in b"#\r\n" or self.token_at(start + limit) >= 0:
            return self._enclosing_by_blocks(start, limit)  # a comment, blank or string line ends no block
        headers = self._headers()
        i = bisect.bisect_left(headers, (start,)) - 1
        while limit > 0 and i >= 0:
            head, indent = headers[i]
            i -= 1
            if indent >= limit:
                continue
            end = self.block(head)
            if start < end:
                return head, end
            limit = indent  # a block ended before it: one holding it starts further left
        return None

    def _enclosing_by_blocks(self, start: int, indent: int) -> tuple[int, int] | None:
        """`enclosing` from the outer blocks, and those nested in the one holding `start`."""
        outer = self.outer_blocks()
        i = bisect.bisect_left(outer, (start,)) - 1
        if i < 0 or start >= outer[i][1]:
            return None
        found = outer[i]
        headers = self._headers()
        for head, head_indent in headers[bisect.bisect_right(headers, (found[0], len(self.data))) :]:
            if head >= start:
                break
            if head_indent < indent:
                end = self.block(head)
                if start < end:
                    found = (head, end)
        return found

    def _headers(self) -> list[tuple[int, int]]:
        """(line start, indent) of each `def` and `class` header, in order (none in a string)."""
        if self._heads is None:
            data = self.data
            self._heads = []
            for m in _KEYWORD.finditer(data):
                line = data.rfind(b"\n", 0, m.start()) + 1
                lead = _HEADER_LEAD.fullmatch(data, line, m.start())
                if lead is not None and self.token_at(line + len(lead[1])) < 0:
                    self._heads.append((line, len(lead[1])))
        return self._heads

    def outer_blocks(self) -> list[tuple[int, int]]:
        """(line start, end) of each `def` and `class` block that no block holds, in order:
        what lies between them is the module's own code."""
        if self._outer is None:
            self._outer = []
            for head, _ in self._headers():
                if not self._outer or head >= self._outer[-1][1]:
                    self._outer.append((head, self.block(head)))
        return self._outer


KEYWORDS = frozenset(keyword.kwlist)  # no name a value is read from
RETURN = re.compile(rb"^[ \t]+return\b", re.M)  # a `return` statement's line
DEF_LINE = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]", re.M)  # a function's header line


# The calls binding composes text through (extract/python/values.py's call_value).
COMPOSING = frozenset(n.encode() for n in ("format", "join", *vocab.STRIPS, *vocab.DEDENTS, *vocab.WRAPPERS))
_CALL = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")


# A dotted name, not a string's prefix (`f"`, `rb'`), then what may show it is no value.
_READ = re.compile(DOTTED.pattern + rb"(?![A-Za-z0-9_.\"'])[ \t]*(\(|=(?!=))?")


# The methods binding reads a value through (`POLICY.format(...)`, `POLICY.strip()`, a map
# iterated into the text: `RULES.items()`, derived where it is the card's params); another
# method's receiver (`json.dumps(x)`, `self.client.create(...)`) holds none it composes.
_COMPOSED_METHODS = frozenset(m.encode() for m in ("format", "items", "keys", "values", *vocab.STRIPS))


def _values_read(data: bytes, pos: int, end: int) -> list[bytes]:
    """The dotted names of code in data[pos:end] a value may be read from (`names`)."""
    out: list[bytes] = []
    for m in _READ.finditer(data, pos, end):
        if m[1] is None:
            if m.end() < end or data[end : end + 1] not in (b'"', b"'"):  # not a string's prefix (`f"`)
                out.append(m[0].rstrip())
        elif m[1] == b"(":
            receiver, _, method = data[m.start() : m.start(1)].rstrip().rpartition(b".")
            if receiver and method in _COMPOSED_METHODS:  # not a call's result (`f(x).strip()`)
                out.append(receiver)
    return out


def _formatted(data: bytes, quote: int) -> bool:
    """Is the string whose quote is at `quote` an f-string (its prefix before the quote)?"""
    return b"f" in data[max(0, quote - 2) : quote].lower()


def assigned_names(targets: bytes) -> list[str]:
    """The names a statement's targets (`A = B: T = `, up to the last `=`) assign, the last
    part of a dotted one (`self.lead =` assigns `lead`)."""
    parts = _ASSIGNED.split(targets)[:-1]
    return [n.rsplit(b".", 1)[-1].decode() for part in parts for n in DOTTED.findall(part.split(b":", 1)[0])]


def _indent(data: bytes, start: int) -> int:
    """The blanks the line starting at `start` begins with."""
    at = start
    while at < len(data) and data[at] in b" \t":
        at += 1
    return at - start


def field_names(text: bytes) -> list[bytes]:
    """The dotted names in a string's replacement fields (`{RULES}`, `{x.replace('{a}', b)}`:
    braces nested in a field are its own)."""
    out: list[bytes] = []
    at = text.find(b"{")
    while at >= 0:
        if text[at + 1 : at + 2] == b"{":  # `{{`: a brace written out
            at = text.find(b"{", at + 2)
            continue
        depth, end = 0, at
        while end < len(text):
            depth += {123: 1, 125: -1}.get(text[end], 0)
            if depth == 0:
                break
            end += 1
        out.extend(DOTTED.findall(text, at + 1, end))
        at = text.find(b"{", end + 1)
    return out
