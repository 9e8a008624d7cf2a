"""Can a text list rules (DESIGN §2 (a)): words of refusing, then a rule line or a
code-formatted id, as prompttext reads a listing; a Python file's strings in source order;
a rule line whose id a name fills in. Byte tests, each a superset of prompttext's."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator

from refusal_lint.core import prompttext
from refusal_lint.core.sourcetext import PY_READ_LIMIT
from refusal_lint.static.gate.text import pystrings
from refusal_lint.static.gate.text.lowered import Words, holds, lowered

# prompttext's words of refusing as bytes, for lowered text (the matches of re.I on the
# text itself, without re.I's slow scan); its apostrophe also as the escapes a Python,
# JSON or YAML string may spell it with (`won\u2019t`, `won\'t`, YAML's `won''t`,
# `\N{RIGHT SINGLE QUOTATION MARK}` lowered).
APOSTROPHES = (
    r"(?:'|''|\\'|\\x27|\\u0027|\\n\{apostrophe\}|\xe2\x80\x99|\\u2019|\\n\{right single quotation mark\})"
)
_REFUSING_LOW = re.compile(prompttext.REFUSING_PATTERN.replace(prompttext.APOSTROPHE, APOSTROPHES).encode())
# A hyphenated token where prompttext lists rules: first on a line (after list markers,
# quotes, emphasis; a line may start after a real or an escaped line break, or at a
# string's quote), or between backticks.
MARKS = rb"(?:[ \t>*+\-0-9.)\[\]xX_\"'`]|\xe2\x80[\x98\x9c\xa2]|\\u20(?:18|1c|22)|\\t)*"
_HYPHENATED = rb"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*-[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*"
# Where a rule line's id is filled in at run time (`f"- {RULE}: ..."`, `"- %s: ..." % RULE`,
# a template's `- {{ rule }}: ...`): the value may be an id, so the line may be a rule line.
_SLOT = rb"\{\{[^{}\n]*\}\}|\{[^{}\n]*\}|%[sr]"
# Quotes and `+` too: a line written in pieces (`"- x-y" + ": reason"`).
_SEPARATOR = (
    rb"(?:[ \t`\"'*_+]|\xe2\x80[\x99\x9d])*"
    rb"(?::|=|-[ \t]|\xe2\x80[\x93\x94]|\\u201[34]|\\N\{(?i:e[mn] dash)\})"  # `\N{EM DASH}` too
)
# A reason: anything but blanks (prompttext's rule line asks no more of it; a one-word
# reason, `- x-y: No.`, under a refusing lead-in is a listed unknown id too).
_REASON = rb"[ \t]*[^\s]"
_CODE = rb"`[ \t]*" + _HYPHENATED + rb"[ \t]*`"  # a code-formatted hyphenated token
_LISTED = re.compile(
    rb"(?:^|\\n|\\r|[\"'`(])"
    + MARKS
    + rb"(?:"
    + _HYPHENATED
    + rb"|"
    + _SLOT
    + rb")"
    + _SEPARATOR
    + _REASON
    + rb"|\|[ \t]*(?:\*\*)?[`\"']?"
    + _HYPHENATED
    + rb"[`\"']?(?:\*\*)?[ \t]*\|"
    + rb"|"
    + _CODE,
    re.M,
)
_CODE_TOKEN = re.compile(_CODE)
# A rule line whose id a constant fills in (`f"- {EVASION}: I can't ..."`, `{Rule.X.value}`):
# it may hold a card id, so the line may state a rule for one (a prompt by its content). A
# local's slot (`f"- {name}: ..."`, a CLI's or a log's line) is none. The slot and its
# separator, then a reason's first letter; then where its line starts.
_CONSTANT_SLOT = rb"\{(?:[A-Za-z_]\w*\.)*[A-Z][A-Z0-9_]*(?:\.value)?\}"
_SLOT_SEPARATED = re.compile(_CONSTANT_SLOT + _SEPARATOR + rb"[ \t*_`]*[A-Za-z]")
# Or a template's slot (`"- {}: ...".format(SEG_MIX)`, `"- %s: ..." % Rule.X`, `{rule}`,
# `%(rule)s`), where a constant's name feeds a template (`_FED`): the pattern of each kind
# of slot, asked where what fills that kind stands in the text (a search from a literal).
_TEMPLATE_SEPARATED = tuple(
    (fill, re.compile(slot + _SEPARATOR + rb"[ \t*_`]*[A-Za-z]"))
    for fill, slot in (
        (b".format(", rb"\{(?:\d+|[A-Za-z_]\w*)?(?:\.value)?(?:!s)?\}"),
        (b"%", rb"%(?:\([A-Za-z_]\w*\))?s"),
    )
)
# The template's string fed at once, its slot's value a constant's name (`SEG_MIX`,
# `Rule.SEG_MIX`, `ids.X`): `.format(NAME`, `.format(rule=NAME`, `% NAME`, `% (NAME`,
# `% {"rule": NAME`. Asked from a slot line, up to `_FEED_REACH` bytes on.
_FED = re.compile(
    rb"[\"'][ \t]*(?:\.format\([ \t\r\n]*(?:[A-Za-z_]\w*[ \t]*=[ \t]*)?"
    rb"|%[ \t]*[({]?[ \t\r\n]*(?:[\"'][^\"'\n]*[\"'][ \t]*:[ \t]*)?)"
    rb"(?:(?:[A-Za-z_]\w*\.)+[A-Z][A-Z0-9_]*|[A-Z][A-Z0-9_]{2,})\b"
)
_FEED_START = re.compile(rb"[\"'][ \t]*(?:\.format\(|%)")
_FEED_REACH = 2048
_SLOT_LINE = re.compile(rb"(?:^|\\n|[\"'])" + MARKS + rb"\Z", re.M)
# A template's rule line is a list item (`"- %s: ..."`): `"%s: file not found" % PATH` is an
# error message, whatever fills it.
_ITEM_LINE = re.compile(rb"(?:^|\\n|[\"'])[ \t>]*(?:[-*+]|[0-9]+[.)]|\xe2\x80\xa2)" + MARKS + rb"\Z", re.M)
_LINE_REACH = 512  # bytes of list marks and quotes a line may start with before its id
_F_PREFIX = re.compile(rb"(?<![\w])(?:[fF][rR]?|[rR][fF])[\"']")  # an f-string's opening
_LEAD_IN = 8192  # bytes past the literal of a Python string's word of refusing it reaches
# Each alternative of _REFUSING_LOW starts with one of _STARTS (found by C before the regex
# runs).
_STARTS = (b"refus", b"declin", b"will not", b"won", b"must ", b"never ")


_START_WORDS = Words(_STARTS)


def _refusing(data: bytes) -> list[tuple[int, int]]:
    """The spans of `_REFUSING_LOW.finditer(data.lower())`: every match starts where
    one of `_STARTS` does, so only those places are tried, in order, as finditer does."""
    low = lowered(data)
    held = holds(data, _START_WORDS)
    starts: list[int] = []
    for word in _STARTS:
        if word not in held:
            continue
        at = low.find(word)
        while at >= 0:
            starts.append(at)
            at = low.find(word, at + 1)
    out: list[tuple[int, int]] = []
    end = 0
    for at in sorted(set(starts)):
        if at >= end and (m := _REFUSING_LOW.match(low, at)) is not None:
            out.append(m.span())
            end = m.end()
    return out


# In every match of _LISTED: its hyphenated token's hyphen (with the character after it;
# the one before, a letter or digit, is tested by hand), or a slot. It starts with one of
# three bytes, which sre scans for in C; a leading `[A-Za-z0-9]` had it try most offsets.
_ANCHOR = re.compile(rb"-[A-Za-z0-9]|" + _SLOT)
_ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


refusing_spans = _refusing  # where the text may speak of refusing, for the other gates


def listed_anywhere(data: bytes) -> bool:
    """Can the text hold a rule line anywhere (not only after a lead-in)?"""
    return _listed_search(data, 0, len(data)) is not None


def may_refuse(data: bytes) -> bool:
    """Can some text of these bytes speak of refusing (`_refusing`), as written? Each word
    of refusing starts with one of `_STARTS`."""
    return bool(holds(data, _START_WORDS))


def _listed_search(data: bytes, pos: int, end: int) -> re.Match[bytes] | None:
    """`_LISTED.search(data, pos, end)`, run only on lines holding a hyphenated token or a slot.

    No match of `_LISTED` spans a line break, and each holds `_ANCHOR` (its hyphenated
    token or slot), so the leftmost match lies on the first line from `pos` that holds one
    (or a later one): the slow alternation is tried there only, not at every offset."""
    find = pos
    while (t := _ANCHOR.search(data, find, end)) is not None:
        at = t.start()
        if data[at] == 45 and (at == pos or data[at - 1] not in _ALNUM):  # `-`, no token before it
            find = at + 1
            continue
        start = data.rfind(b"\n", pos, at) + 1 or pos
        stop = data.find(b"\n", t.end(), end)
        stop = end if stop < 0 else stop
        if (m := _LISTED.search(data, start, stop)) is not None:
            return m
        pos = find = stop
    return None


def lists_rules(data: bytes) -> bool:
    """Can this text list rules where prompttext reads unknown ids (DESIGN §2 (a)): a word
    of refusing (a lead-in's or a heading's) with a rule line anywhere after it, or a
    code-formatted hyphenated token anywhere (a listing block takes every code token it
    holds, one before its refusing words too)? Neither is bounded by a distance: a lead-in
    reaches its whole block, a heading its whole section, however long."""
    spans = _refusing(data)  # no word of refusing: no regex runs at all
    if not spans:
        return False
    if _listed_search(data, spans[0][0], len(data)) is not None:
        return True
    return b"`" in data and _CODE_TOKEN.search(data) is not None


def slotted(data: bytes) -> bool:
    """Can this Python text state a rule line whose id a name fills in (`_SLOT_SEPARATED`
    first on its line)? Asked of a file, and of each f-string of one (content.py): a
    string that can is a prompt candidate by its content, whatever the name holds."""
    # Rare: what feeds the slot is asked after.
    if _opens_line(_SLOT_SEPARATED, data) and _F_PREFIX.search(data) is not None:
        return True
    return any(
        _fed(data, at)
        for fill, p in _TEMPLATE_SEPARATED
        if fill in data
        for at in _line_openers(p, data, _ITEM_LINE)
    )


def _fed(data: bytes, at: int) -> bool:
    """Is the string holding the slot at `at` fed at once (`_FED`)? Asked on the rest of the
    slot's line, where its string closes; or of a triple-quoted one, on its closing line."""
    end = data.find(b"\n", at)
    end = len(data) if end < 0 else end
    if b'"' not in data[at:end] and b"'" not in data[at:end]:
        closing = min(
            (k for q in (b'"""', b"'''") if (k := data.find(q, end, end + _FEED_REACH)) >= 0), default=-1
        )
        if closing < 0:
            return False
        end = data.find(b"\n", closing)
        end = len(data) if end < 0 else end
    # The feed starts there, and may go on past the line (`.format(\n    rule=Rule.X`).
    return any(_FED.match(data, q.start()) is not None for q in _FEED_START.finditer(data, at, end))


def _opens_line(pattern: re.Pattern[bytes], data: bytes) -> bool:
    return next(_line_openers(pattern, data), None) is not None


def _line_openers(
    pattern: re.Pattern[bytes], data: bytes, line: re.Pattern[bytes] = _SLOT_LINE
) -> Iterator[int]:
    """Where `pattern` matches first on its line (as `line` opens it)."""
    return (m.start() for m in pattern.finditer(data) if opens_line(line, data, m.start()))


def opens_line(pattern: re.Pattern[bytes], data: bytes, at: int) -> bool:
    """Does `pattern` (ending `\\Z`) match from a line's start to `at`? The start is looked
    for a bounded way back (a one-line generated catalog would make it quadratic): `^`
    matches at a real line start only, never at the window's edge."""
    lo = max(0, at - _LINE_REACH)
    line = data.rfind(b"\n", lo, at) + 1 or lo
    return pattern.search(data, line, at) is not None


def python_lists_rules(data: bytes) -> bool:
    """Can a Python file's strings (pystrings.py: no comment, docstring, `reason=` value or
    code) list rules? In source order, joined as separate strings and as one (`"- x-y" +
    ": reason"`). A word of refusing reaches its whole literal and `_LEAD_IN` bytes past
    it (a file's strings are no one prompt: a test's `won't` and a table 30 KB below are
    not a lead-in and its list); a refusing heading, all below. Past the read budget: yes."""
    return len(data) > PY_READ_LIMIT or strings_list_rules(pystrings.strings(data))


def strings_list_rules(parts: list[bytes]) -> bool:
    """`python_lists_rules` of a file's strings, in source order."""
    for sep in (b"\n", b""):
        joined = sep.join(parts)
        spans = _refusing(joined)
        if not spans:
            continue
        edges = list(itertools.accumulate((len(p) + len(sep) for p in parts), initial=0))
        windows = []
        for start, end in spans:
            k = bisect.bisect_right(edges, start) - 1
            windows.append((edges[k], max(end, edges[k + 1]) + _LEAD_IN))
        if _listed_in_windows(joined, windows):
            return True
        heading = next((at for at, _ in spans if _on_heading(joined, at)), None)
        if heading is not None and _listed_search(joined, heading, len(joined)) is not None:
            return True
    return False


def _listed_in_windows(data: bytes, windows: list[tuple[int, int]]) -> bool:
    """Does `_LISTED` match starting in some window [start, end) and ending within it
    (starts and ends non-decreasing)? Overlapping windows are scanned once: the leftmost
    match over their union counts when it fits the widest window that has begun by its
    start (a match that ends within a window also ends within any wider one)."""
    starts = [s for s, _ in windows]
    ends = [e for _, e in windows]
    i = 0
    while i < len(windows):
        j = i  # the union of overlapping windows i..j
        while j + 1 < len(windows) and starts[j + 1] < ends[j]:
            j += 1
        pos = starts[i]
        while (m := _listed_search(data, pos, ends[j])) is not None:
            k = bisect.bisect_right(starts, m.start(), i, j + 1) - 1
            if _LISTED.match(data, m.start(), ends[k]) is not None:
                return True
            pos = m.start() + 1
        i = j + 1
    return False


def _on_heading(data: bytes, at: int) -> bool:
    """Is there a `#` between `at` and its line's start (a real or an escaped line break)?"""
    start = data.rfind(b"\n", 0, at) + 1
    if data.find(b"#", start, at) < 0:
        return False  # the usual answer: no `#` on the line at all
    for escaped in (b"\\n", b"\\r"):
        if (e := data.rfind(escaped, start, at)) >= 0:
            start = e + 2
    return data.find(b"#", start, at) >= 0
