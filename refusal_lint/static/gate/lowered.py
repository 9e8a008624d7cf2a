"""A file's bytes lowered once for every text gate that asks (prompt words, guard words,
ids, words of refusing), and which of a gate's words the lowered text holds: one slot, the
file being looked at.

`holds` finds every word of a set in one pass (Aho-Corasick, ahocorasick-rs) where each
`word in text` would be a pass of its own: a gate asks two dozen words of every file, and
most files hold none of them, so the passes were most of the text gates' time. A gate
still asks the bytes themselves where a word is held (its case, its place); a word the
lowered text does not hold cannot stand in the bytes, in any case. `word_matches` finds a
regex's matches at a word's start without the leading `\\b` that makes sre try every offset."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any, AnyStr


class Words:
    """A fixed set of lowercase words, and the one search for all of them (built when first
    asked: a warm run that reads no file never imports ahocorasick-rs)."""

    def __init__(self, words: Iterable[bytes]) -> None:
        self.words = tuple(sorted({w.lower() for w in words if w}))
        self._search: Any = None

    def found(self, low: bytes) -> frozenset[bytes]:
        """The words `low` holds (every occurrence is looked at: a word inside another's
        match counts too)."""
        if self._search is None:
            self._search = _automaton(self.words)
        if self._search is False:
            return frozenset(w for w in self.words if w in low)
        words = self.words
        return frozenset(words[i] for i, _, _ in self._search.find_matches_as_indexes(low, overlapping=True))


def _automaton(words: tuple[bytes, ...]) -> Any:
    """The one-pass search for `words`; False where there are none, or no ahocorasick-rs
    wheel for this platform (then: one pass a word)."""
    try:
        import ahocorasick_rs
    except ImportError:  # pragma: no cover
        return False
    return ahocorasick_rs.BytesAhoCorasick(list(words)) if words else False


@lru_cache(maxsize=64)
def words_of(needles: tuple[bytes, ...]) -> Words:
    """The `Words` of a run's own needles (the cards' ids, configured guards' names): made
    once for every file that asks."""
    return Words(needles)


_last: tuple[bytes, bytes] | None = None
_found: dict[Words, frozenset[bytes]] = {}  # for the bytes in the slot, by the words asked


def lowered(data: bytes) -> bytes:
    """`data.lower()`, kept while `data` is the last asked (the slot holds it, so no other
    object can take its identity)."""
    global _last
    if _last is None or _last[0] is not data:
        _last = (data, data.lower())
        _found.clear()
    return _last[1]


def holds(data: bytes, words: Words) -> frozenset[bytes]:
    """Which of `words` `data.lower()` holds, found once for the file in the slot."""
    low = lowered(data)
    found = _found.get(words)
    if found is None:
        found = _found[words] = words.found(low)
    return found


# A word's start (`\b` before its first letter) is tested by hand: a regex that starts with
# `\b` (or a look-behind) has sre try every offset of the file, one that starts with a
# literal scans for it. A word character as bytes and str patterns both have it, ASCII.
_WORD_CODES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def word_matches(pattern: re.Pattern[AnyStr], data: AnyStr) -> Iterator[re.Match[AnyStr]]:
    """The matches of `(?<![A-Za-z0-9_])` + `pattern` (`\\b` + it, where it starts with a
    word character), as finditer gives them."""
    pos = 0
    while (m := pattern.search(data, pos)) is not None:
        before = data[m.start() - 1 : m.start()]
        if not before or ord(before) not in _WORD_CODES:
            yield m
            pos = m.end()
        else:
            pos = m.start() + 1
