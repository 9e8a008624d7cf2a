"""A file's bytes lowered once for every text gate that asks (prompt words, guard words,
ids, words of refusing), and which of a gate's words the lowered text holds: one slot, the
file being looked at.

`holds` finds the words of every live `Words` in one pass (Aho-Corasick, ahocorasick-rs)
where each `word in text` would be a pass of its own: the gates ask three dozen words of
every file (their own, the ids' halves, the words of refusing), and most files hold none of
them, so the passes were most of the text gates' time. A gate still asks the bytes
themselves where a word is held (its case, its place); a word the lowered text does not
hold cannot stand in the bytes, in any case. `word_matches` finds a regex's matches at a
word's start without the leading `\\b` that makes sre try every offset; `token_around`
finds the token around a hit, joined across string literals' seams (`"seg-" "mix"`)."""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any, AnyStr


class Words:
    """A fixed set of lowercase words. Every live one is searched for in the same pass
    (`holds`); `found` is the search for this set alone."""

    def __init__(self, words: Iterable[bytes]) -> None:
        global _version
        self.words = tuple(sorted({w.lower() for w in words if w}))
        self.held = frozenset(self.words)
        self._search: Any = None
        _live.add(self)
        _version += 1  # the union search is made again when next asked

    def found(self, low: bytes) -> frozenset[bytes]:
        """The words `low` holds (every occurrence is looked at: a word inside another's
        match counts too)."""
        if self._search is None:
            self._search = _automaton(self.words)
        return _search(self._search, self.words, low)


def _search(automaton: Any, words: tuple[bytes, ...], low: bytes) -> frozenset[bytes]:
    if automaton is False:
        return frozenset(w for w in words if w in low)
    return frozenset(words[i] for i, _, _ in automaton.find_matches_as_indexes(low, overlapping=True))


def _automaton(words: tuple[bytes, ...]) -> Any:
    """The one-pass search for `words` (built when first asked: a warm run that reads no
    file never imports ahocorasick-rs); False where there are none, or no ahocorasick-rs
    wheel for this platform (then: one pass a word)."""
    try:
        import ahocorasick_rs
    except ImportError:  # pragma: no cover
        return False
    return ahocorasick_rs.BytesAhoCorasick(list(words)) if words else False


# Every live Words, and the one search for all their words: made again when a Words is
# made (a run's ids' halves), of the live ones only, so a language server's runs do not
# pile up words.
_live: weakref.WeakSet[Words] = weakref.WeakSet()
_version = 0
_union: tuple[int, tuple[bytes, ...], Any] = (-1, (), False)  # (at _version, its words, the search)


def _union_search() -> tuple[tuple[bytes, ...], Any]:
    global _union
    if _union[0] != _version:
        words = tuple(sorted({w for ws in list(_live) for w in ws.words}))
        _union = (_version, words, _automaton(words))
    return _union[1], _union[2]


@lru_cache(maxsize=64)
def words_of(needles: tuple[bytes, ...]) -> Words:
    """The `Words` of a run's own needles (the cards' ids, configured guards' names): made
    once for every file that asks."""
    return Words(needles)


_last: tuple[bytes, bytes] | None = None
_found: dict[Words, frozenset[bytes]] = {}  # for the bytes in the slot, by the words asked
_all: tuple[int, frozenset[bytes]] | None = None  # the live words the slot's bytes hold, at a _version


def lowered(data: bytes) -> bytes:
    """`data.lower()`, kept while `data` is the last asked (the slot holds it, so no other
    object can take its identity)."""
    global _last, _all
    if _last is None or _last[0] is not data:
        _last = (data, data.lower())
        _found.clear()
        _all = None
    return _last[1]


def holds(data: bytes, words: Words) -> frozenset[bytes]:
    """Which of `words` `data.lower()` holds: of the live words' one search, made once for
    the file in the slot (again where a Words was made since)."""
    global _all
    low = lowered(data)
    found = _found.get(words)
    if found is None:
        every, automaton = _union_search()
        if automaton is False:  # no wheel: a pass a word of this set
            found = words.found(low)
        else:
            if _all is None or _all[0] != _version:
                _all = (_version, _search(automaton, every, low))
            found = words.held & _all[1]
        _found[words] = found
    return found


# A word's start (`\b` before its first letter) is tested by hand: a regex that starts with
# `\b` (or a look-behind) has sre try every offset of the file, one that starts with a
# literal scans for it. A word character as bytes and str patterns both have it, ASCII.
WORD_CODES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def word_matches(
    pattern: re.Pattern[AnyStr], data: AnyStr, pos: int = 0, endpos: int | None = None
) -> Iterator[re.Match[AnyStr]]:
    """The matches of `(?<![A-Za-z0-9_])` + `pattern` (`\\b` + it, where it starts with a
    word character), as finditer gives them (in data[pos:endpos], as search bounds it)."""
    end = len(data) if endpos is None else endpos
    while (m := pattern.search(data, pos, end)) is not None:
        before = data[m.start() - 1 : m.start()]
        if not before or ord(before) not in WORD_CODES:
            yield m
            pos = m.end()
        else:
            pos = m.start() + 1


def name_at(data: bytes, word: bytes, start: int = 0, end: int | None = None) -> Iterator[int]:
    """Where the name `word` stands whole in data[start:end] (not part of a longer name),
    in order: found by C's search for it, not by a regex compiled for each name."""
    stop = len(data) if end is None else end
    at = data.find(word, start, stop) if word else -1
    while at >= 0:
        after = at + len(word)
        if (at == 0 or data[at - 1] not in WORD_CODES) and (
            after >= len(data) or data[after] not in WORD_CODES
        ):
            yield at
        at = data.find(word, at + 1, stop)


_RUN = re.compile(rb"[A-Za-z0-9_-]*")  # the bytes a token around a hit may span

# Where a literal stops and the next goes on (`"seg" + "-mix"`, `"seg"\n    "-mix"` in
# parentheses): a token may be written across it. _SEAM_BACK is its mirror, matched on
# the reversed text.
SEAM = re.compile(rb"[\"'][ \t]*(?:\\?\r?\n[ \t]*)?(?:\+[ \t]*(?:\\?\r?\n[ \t]*)?)?[rRbBuUfF]{0,2}[\"']")
_SEAM_BACK = re.compile(
    rb"[\"'][rRbBuUfF]{0,2}(?:(?:[ \t]*\n\r?\\?)?[ \t]*\+)?(?:[ \t]*\n\r?\\?)?[ \t]*[\"']"
)
PIECES = 8  # literals one token is followed across


def seamless(data: bytes) -> bytes:
    """`data` with its literals' seams taken out (`"you must " "not"`: `"you must not"`), as
    the string they make reads; itself where it has none."""
    return SEAM.sub(b"", data) if SEAM.search(data) is not None else data


# What follows a backslash in an escape a token's run can take in (`\N{...}` it cannot).
_ESCAPE_BODY = re.compile(rb"U[0-9A-Fa-f]{8}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[0-7]{1,3}|[A-Za-z]")
ESCAPE_BODIES = (1, 2, 3, 5, 9)  # the lengths _ESCAPE_BODY matches: `n`, `55`, `x2d`, `u002d`, `U0000002d`


def token_bounds(data: bytes, rev: bytes, start: int, end: int) -> tuple[int, int] | None:
    """Where the token holding data[start:end] starts and ends; None where it goes on across
    a literals' seam (`token_around` joins its pieces)."""
    size = len(data)
    tail = _RUN.match(data, end).end()  # type: ignore[union-attr]
    head = size - _RUN.match(rev, size - start).end()  # type: ignore[union-attr]
    if SEAM.match(data, tail) or _SEAM_BACK.match(rev, size - head):
        return None
    return head, tail


def token_around(data: bytes, rev: bytes, start: int, end: int) -> str:
    """The token holding data[start:end], its pieces joined across literals' seams."""
    size = len(data)
    pieces = [data[start:end]]
    for _ in range(PIECES):
        after = _RUN.match(data, end).end()  # type: ignore[union-attr]
        pieces.append(data[end:after])
        seam = SEAM.match(data, after)
        if seam is None:
            break
        end = seam.end()
    for _ in range(PIECES):
        before = size - _RUN.match(rev, size - start).end()  # type: ignore[union-attr]
        pieces.insert(0, data[before:start])
        seam = _SEAM_BACK.match(rev, size - before)
        if seam is None:
            # `\nseg_mixx`, `\u201csag-mix` (json.dumps quotes): the escape's body is no part
            # of the token the string's value holds.
            if before > 0 and data[before - 1] == 92 and (body := _ESCAPE_BODY.match(pieces[0])):
                pieces[0] = pieces[0][body.end() :]
            break
        start = size - seam.end()
    return b"".join(pieces).decode("ascii", "replace")
