"""A guard call as its text shows it (DESIGN §2 "Guards"): a call of a name holding the
word refuse/refusal/refusals whose arguments may carry a rule id, read from the call's own
text; the text gate of prefilter.python_worth_parsing asks it first."""

from __future__ import annotations

import re

from refusal_lint.core import spec
from refusal_lint.static.gate.text.lowered import WORD_CODES, word_matches

# A literal prefix (sre scans for it fast); the `(` may follow on another line: after a
# backslash, or within brackets (`raise (\n Refusal\n ("x-y"))`), after a comment too.
_GAP = rb"(?:[ \t]|\\?\r?\n|#[^\n]*\n)*"
_GUARD_WORD = re.compile(rb"(?:[Rr]efus|REFUS)[A-Za-z0-9_]*" + _GAP + rb"\(")
# The words before a call that make it none (`def refusal_x(`), and those after which a
# call written with a blank before its `(` is code (`return refuse (SEG)`), not prose
# (`a refusal (typed)`); so are a line's start, an operator and an opening bracket.
_DEFINES = frozenset({b"def", b"class"})
_TAKES_EXPRESSION = frozenset(
    {
        b"",
        b"return",
        b"raise",
        b"await",
        b"yield",
        b"else",
        b"lambda",
        b"assert",
        b"in",
        b"and",
        b"or",
        b"not",
    }
)
_OPERATORS = frozenset(b"=([{,:.+-*/%|&<>!;\n")


_NAME_END = re.compile(rb"[A-Za-z0-9_]*")


def _word_before(data: bytes, start: int) -> tuple[int, bytes]:
    """The character before `start` and its blanks (-1: none), and the name ending there."""
    k = start - 1
    while k >= 0 and data[k] in b" \t":
        k -= 1
    j = k
    while j >= 0 and data[j] in WORD_CODES:
        j -= 1
    return (data[k] if k >= 0 else -1), data[j + 1 : k + 1]


# After a name, its call, or the end of a bare `raise RawMeat` (`from exc` too), which builds
# the class as a call does: a superset.
CALLED = rb"(?:\s*\(|[ \t]*(?:\r?\n|$|from[ \t]|;|#))"
# A class statement up to its bases' text (`class OutOfScope(errors.`): a base named after it.
CLASS_BASES = rb"class[ \t]+[A-Za-z0-9_]+[ \t]*\([^)]*"
_GUARD_SUBCLASS = re.compile(CLASS_BASES + rb"(?:[Rr]efus|REFUS)")
# A literal prefix, found at a word's start by word_matches (a lookbehind first would have
# the regex engine try every offset of every file).
_PARTIAL = re.compile(rb"partial" + _GAP + rb"(\()" + _GAP + rb"([A-Za-z_][A-Za-z0-9_.]*)")
_CALL_TEXT = 4096  # bytes of arguments read; a longer call is parsed with its file


def call_end(data: bytes, open_at: int) -> int:
    """Where the call whose `(` is at `open_at` closes (-1: not found within reach)."""
    depth = 0
    quote = 0
    i = open_at
    stop = min(len(data), open_at + _CALL_TEXT)
    while i < stop:
        c = data[i]
        if quote:
            if c == 92:  # backslash
                i += 1
            elif c == quote:
                quote = 0
        elif c in (34, 39):  # " '
            quote = c
        elif c == 35:  # a comment runs to the line's end
            nl = data.find(b"\n", i, stop)
            i = stop if nl < 0 else nl
        elif c in (40, 91, 123):
            depth += 1
        elif c in (41, 93, 125):
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


# Where a guard call is RL305 whatever its id: inside a protocol error's call or an
# `"error"` envelope (the ast gate's refusal_inside).
_ERROR_CALL = re.compile(
    rb"(?:" + rb"|".join(sorted(n.encode() for n in spec.PROTOCOL_ERRORS)) + rb")[ \t]*\("
)
_ERROR_KEY = re.compile(rb"[\"']error[\"'][ \t]*:")


def error_subscript(data: bytes) -> bool:
    """A protocol error built with a subscript in its arguments (`HTTPException(detail=
    RULES[DOSAGE])`): a reason looked up in the params map, sent as an error (RL305), in a
    file with no word of refusing. In doubt (its end out of reach), yes."""
    for m in _ERROR_CALL.finditer(data):
        if _word_before(data, m.start())[1] in _DEFINES:
            continue  # `class A2AError(RootModel[...])`: a definition, no error built
        end = call_end(data, m.end() - 1)
        if end < 0 or b"[" in data[m.end() : end]:
            return True
    return False


def _inside_error(data: bytes, start: int) -> bool:
    """Does the call at `start` stand inside a protocol error or an error envelope opened at
    most a call's reach before it? In doubt (its end out of reach), yes."""
    lo = max(0, start - _CALL_TEXT)
    for m in _ERROR_CALL.finditer(data, lo, start):
        end = call_end(data, m.end() - 1)
        if end < 0 or end > start:
            return True
    for m in _ERROR_KEY.finditer(data, lo, start):
        opened = data.rfind(b"{", lo, m.start())
        end = call_end(data, opened) if opened >= 0 else -1
        if end < 0 or end > start:
            return True
    return False


def guard_call(data: bytes, ids: frozenset[str]) -> bool:
    """A call of a name holding the word refuse/refusal/refusals (DESIGN §2) whose arguments
    may carry a rule id (with a card's `ids`, a computed one too: RL304). Definitions (`def
    test_refusal_...(`), prose and calls that pass only sentences or a library's keyword
    fields (`ResponseOutputRefusal(type="refusal")`) are not, unless sent inside a protocol
    error (RL305 whatever they pass); each call's own text is parsed to tell."""
    from refusal_lint.static.extract import vocab
    from refusal_lint.static.gate import pyscan

    for m in _GUARD_WORD.finditer(data):
        start = m.start()
        while start > 0 and data[start - 1] in WORD_CODES:
            start -= 1
        named = _NAME_END.match(data, start)
        name = data[start : named.end() if named else start].decode("ascii", "replace")
        if not vocab.is_guard_name(name):
            continue
        last, word = _word_before(data, start)
        if word in _DEFINES:
            continue
        spaced = len(name) < m.end() - 1 - start  # something stands between the name and `(`
        if spaced and not (last in _OPERATORS or last < 0 or word in _TAKES_EXPRESSION):
            continue  # `a refusal (typed)`: prose; `return refuse (SEG)`: a call
        end = call_end(data, m.end() - 1)
        if (
            end < 0
            or pyscan.call_text_may_fire(
                data[start : end + 1], receiver=data[start - 1 : start] == b".", ids=ids
            )
            or _inside_error(data, start)
        ):
            return True
    # A partial of a guard (guardclass.partial_call), its text read as the call it stands for.
    for m in word_matches(_PARTIAL, data):
        if vocab.is_guard_name(m[2].rpartition(b".")[2].decode("ascii")):
            end = call_end(data, m.start(1))
            if end < 0 or pyscan.call_text_may_fire(data[m.start() : end + 1], receiver=False, ids=ids):
                return True
    # A subclass of a guard: built by its base's constructor (guardclass.builds_guard), or firing
    # an id through it (guardclass.super_init); a guard class keeping its id in a class attribute
    # (`class PiiRefusal(Exception): rule = "pii-export"`, guardclass.keeps_rule), raised anyhow.
    if _GUARD_SUBCLASS.search(data) is not None:
        return True
    return _GUARD_CLASS.search(data) is not None and next(word_matches(_RULE_ATTR, data), None) is not None


_GUARD_CLASS = re.compile(rb"class[ \t]+[A-Za-z0-9_]*(?:[Rr]efus|REFUS)")
_RULE_ATTR = re.compile(rb"rule(?:_id)?[ \t]*(?::[^=\n]*)?=(?!=)")  # at a word's start (word_matches)


# `except Refusal as exc:`, `if isinstance(exc, Refusal):`, `if "rule" in item:` (what
# vocab.catches_refusal tells apart) or a refusal read under its key (`.get("refusal")`,
# vocab.reads_refusal) where the file builds a protocol error (or an `"error"` envelope):
# the refusal may be sent as that error (RL305). At a word's start (word_matches).
_CAUGHT = re.compile(rb"(?:except\b[^:]*?|isinstance[ \t]*\([^)]*?)refus|rule[\"']+[\s)\\]*in\b")
# The key read, apart: with no literal prefix of its own in one alternation, the regex
# engine would try every offset of the file.
_KEYED = re.compile(rb"(?:\.get\(|\[)[ \t]*[\"']refus[a-z_]*[\"']")
_PAYLOAD_KEYS_QUOTED = tuple(q + k.encode() + q for k in sorted(spec.PAYLOAD_KEYS) for q in (b'"', b"'"))
ERROR_NAMES = tuple(n.encode() for n in sorted(spec.PROTOCOL_ERRORS))
ERROR_WORDS = frozenset(n.lower() for n in ERROR_NAMES)  # asked of the lowered text's words first
_ENVELOPE_KEY = re.compile(rb"[\"']error[\"'](?:\s|#[^\n]*)*:")  # an envelope's key (comments may part it)


def caught_as_error(data: bytes, low: bytes) -> bool:
    """The error is built in the handler's (or the `if`'s) body: after the first match."""
    caught = next(word_matches(_CAUGHT, low), None)
    keyed = _KEYED.search(low)
    if keyed is not None and not any(k in data for k in _PAYLOAD_KEYS_QUOTED):
        keyed = None  # passed on only where its payload's keys are read (vocab.payload_read)
    found = [m.start() for m in (caught, keyed) if m is not None]
    if not found:
        return False
    at = min(found)
    return any(data.find(n, at) >= 0 for n in ERROR_NAMES) or _ENVELOPE_KEY.search(data, at) is not None
