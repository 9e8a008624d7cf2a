"""A Python prompt candidate's lead-ins left open (composed/__init__.py): strings whose
refusing lead-in a later value may complete, and the names read after them."""

from __future__ import annotations

import re
from collections.abc import Iterator

from refusal_lint.core import prompttext
from refusal_lint.static.gate.composed.statements import assigned_names, code_of, field_names
from refusal_lint.static.gate.text.listing import refusing_spans

# A line break as written in a string's body: a real one, or an escape.
_BREAK = re.compile(rb"\\r\\n|\\n|\\r|\r?\n")
# Where a value is filled in at run time (`f"... {RULES}"`, `"... %s" % RULES`).
_SLOT = re.compile(rb"\{[^{}\n]*\}|%[sr]")


def _lines(body: bytes, start: int) -> Iterator[bytes]:
    """The lines of `body` from `start` on (the first from `start` to its end)."""
    pos = start
    for m in _BREAK.finditer(body, start):
        yield body[pos : m.start()]
        pos = m.end()
    yield body[pos:]


def dangling(body: bytes) -> bool:
    """Can this string end with a refusing lead-in whose list a later value gives
    (prompttext._listing_lines)? A word of refusing on a heading (its section runs on), or
    on a line of a block that stays open to the string's end or holds a run-time value (a
    block's rules are led in by any line before them); or on a line ending in `:` after
    which only blank lines or run-time values follow (the next block's lead-in)."""
    for start, end in refusing_spans(body):
        line_start = max((m.end() for m in _BREAK.finditer(body, 0, start)), default=0)
        if b"#" in body[line_start:start]:
            return True
        own, *after = _lines(body, end)
        if _SLOT.search(own):
            return True
        if _open_to_end(after):
            return True
        if own.rstrip().endswith(b":") and _leads_next_block(after):
            return True
    return False


def _leads_next_block(after: list[bytes]) -> bool:
    """After a lead-in line ending in `:`, can the next block still be a list it leads in?
    That block starts in a later value (only blank lines follow here), or here: after a
    blank line, with a line that is (or, the string's last, may become) a rule line, and
    open to the string's end. A run-time value anywhere after it: in doubt, yes."""
    if any(_SLOT.search(r) for r in after):
        return True
    first = next((i for i, r in enumerate(after) if r.strip()), None)
    if first is None:
        return True
    if first == 0:
        return False  # the lead-in is not its block's last line
    rest = after[first:]
    last = len(rest) == 1 or (len(rest) == 2 and not rest[1])  # its last line, maybe open
    stated = last or prompttext.rule_line(rest[0].decode("utf-8", "replace")) is not None
    return stated and _open_to_end(rest[1:])


def _open_to_end(after: list[bytes]) -> bool:
    """Do the lines after a lead-in run to the string's end without a blank line (its last,
    empty after a final break, closes nothing), or hold a run-time value before one?"""
    for i, line in enumerate(after):
        if _SLOT.search(line):
            return True
        if not line.strip():
            return i == len(after) - 1
    return True


def leads(data: bytes, spans: list[tuple[int, int]]) -> list[str]:
    """The names a Python file reads after a string of it that leaves a refusing lead-in
    open (`dangling`): in the rest of that string's statement and its f-string fields; and,
    where the statement assigns the string to a name (`LEAD = "Refuse these:\\n"`), after
    each read of that name, in the reading statement (`LEAD + RULES`). Only strings holding
    a word of refusing are looked at (`spans`: listing.refusing_spans's); comments are none."""
    if not spans:
        return []
    code = code_of(data)
    out: set[str] = set()
    read_to = -1  # the statement read last, from its first lead-in on: a later one adds nothing
    last_token = -1
    followed: set[tuple[str, tuple[int, int]]] = set()  # (name, scope) whose reads were read
    for span_start, _ in spans:
        i = code.token_at(span_start)
        if i <= last_token:
            continue  # in code, or in the string asked already
        last_token = i
        start, end = code.starts[i], code.ends[i]
        if data[start] == 35 or not dangling(body := _body(data[start:end])):  # `#`: a comment
            continue
        out.update(n.decode() for n in field_names(body))
        if start < read_to:
            continue
        first, last = code.statement(start)
        read_to = last
        out.update(code.names(end, last))
        scope = code.scope(first)
        for target in _targets(data, first):
            if (target, scope) in followed:
                continue
            if len(followed) >= READS_BUDGET:
                return [IN_DOUBT]
            followed.add((target, scope))
            # Every read of it, its own statement's too: a superset of those outside it.
            out.update(code.after_reads(target, scope))
    return sorted(out)


# Past this many names whose reads a file's lead-ins send us to, the file is read in doubt
# (a generated table of prompts must not cost a read of the file per name).
READS_BUDGET = 64
IN_DOUBT = "?"


def _body(token: bytes) -> bytes:
    quotes = 3 if token[:3] in (b'"""', b"'''") else 1
    return token[quotes:-quotes]


_TARGETS = re.compile(
    rb"[ \t]*((?:[A-Za-z_][A-Za-z0-9_.]*[ \t]*(?:,[ \t]*[A-Za-z_][A-Za-z0-9_.]*[ \t]*)*"
    rb"(?::[^=\n]*)?(?:\+|\|)?=(?!=)[ \t]*)+)"
)


def _targets(data: bytes, statement: int) -> list[str]:
    """The names a statement starting at `statement` assigns (the last part of a dotted
    one: `self.lead` is read as `lead`); none for a statement that assigns nothing."""
    m = _TARGETS.match(data, statement)
    return [] if m is None else assigned_names(m[1])
