"""What can change a finding, decided from the cards' own content (DESIGN §2 "What is read").

A prompt candidate matters when its text holds a card id or a near miss of one, a rule
line of a place that speaks of refusing, or is derived from the params map (which holds
the ids). Whether a *file's* candidates can matter is asked of its bytes, once, with
tests that are supersets of prompttext's (the same words, the same near-miss rule), so a
file passed over could not have changed the output: the ids here, the rule listings in
listing.py. The text of a candidate may come from modules it imports: `imports_of` gives
the text's import edges, and `imports.reaches` follows them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache, lru_cache, partial

from refusal_lint.core import prompttext, spec
from refusal_lint.core.sourcetext import PY_READ_LIMIT, spelled
from refusal_lint.static.gate.text import pystrings
from refusal_lint.static.gate.text.listing import MARKS, opens_line, slotted
from refusal_lint.static.gate.text.lowered import (
    ESCAPE_BODIES,
    PIECES,
    SEAM,
    Words,
    holds,
    lowered,
    token_around,
    token_bounds,
)

# Where a token may start (prompttext.TOKEN's): after no letter or digit, nor one and a
# `-` or `_` (`voice_jailbreak` is one token), or after an escape's body (`\nseg-mix`,
# `\x2dseg-mix`), each of its lengths a lookbehind of its own; and where one ends.
_TOKEN_START = (
    rb"(?:(?<![a-z0-9])(?<![a-z0-9][-_])"
    + b"".join(rb"|(?<=\\[a-z0-9]{%d})|(?<=\\[a-z0-9]{%d}[-_])" % (n, n) for n in ESCAPE_BODIES)
    + rb")"
)
_TOKEN_END = rb"(?![a-z0-9])(?![-_][a-z0-9])"


def _fold(text: bytes) -> bytes:
    return text.lower().translate(None, b"-_")


# `\x2d`, `\u002d`, `\N{HYPHEN-MINUS}`, `\055`: an escape a string may spell an id's
# character with (`\n`, `\t`, a quote spell none of a rule id's).
_SPELLING_ESCAPE = re.compile(rb"\\(?:[xuUN0-7])")


@lru_cache(maxsize=8)
def of(ids: tuple[str, ...]) -> Relevance:
    """The Relevance of a run's ids, made once for every file that asks."""
    return Relevance(ids)


class Relevance:
    """The cards' ids, and the byte tests derived from them."""

    def __init__(self, ids: Iterable[str]) -> None:
        self.ids = tuple(sorted(set(ids)))
        self._raw = [i.encode() for i in self.ids if i]
        self._folded = [f for i in self._raw if (f := _fold(i))]
        self._unfoldable = [i for i in self._raw if not _fold(i)]
        self._longest = max(map(len, self._folded), default=0)
        self._parts: dict[bytes, bool] = {}  # in_an_id's answers, by folded piece
        # One edit leaves one half of the id intact: look for either half, then at the token.
        # A token shorter than `shortest` can neither be one edit away nor fold to the id.
        self._halves = [
            (i.decode(), (i.lower()[: len(i) // 2], i.lower()[len(i) // 2 :]), min(len(i) - 1, len(_fold(i))))
            for i in self._raw
            if len(i) >= 5
        ]
        self._half_words = Words(h for _, halves, _ in self._halves for h in halves)
        self._fold_token = _fold_token(self._folded) if self._folded else None
        self._id_set = frozenset(self.ids)
        self._last: tuple[bytes, bool] | None = None

    def in_an_id(self, piece: bytes | None) -> bool:
        """May a token holding `piece` whole, the rest put beside it at run time (`FAMILY +
        "-mixx"`), be a card id or a near miss of one? `piece` folded is one edit at most
        from a part of a folded id; a piece of one letter or none, or unknown, may be any."""
        if piece is None or len(f := _fold(piece)) <= 1:
            return True
        if f not in self._parts:
            self._parts[f] = len(f) <= self._longest + 1 and any(
                f == x[k : k + n] or spec.one_edit(f.decode("latin-1"), x[k : k + n].decode("latin-1"))
                for x in self._folded
                for n in (len(f) - 1, len(f), len(f) + 1)
                for k in range(max(0, len(x) - n + 1))
            )
        return self._parts[f]

    def names_ids(self, data: bytes) -> bool:
        """Can this text hold a card id or a near miss of one, as written or as its strings
        read it (sourcetext.spelled)? Kept for the bytes last asked (the scan asks twice)."""
        last = self._last
        if last is not None and last[0] is data:  # held here, so no other object has its identity
            return last[1]
        answer = self._names_ids(data) or ((view := spelled(data)) is not None and self._names_ids(view))
        self._last = (data, answer)
        return answer

    def _names_ids(self, data: bytes) -> bool:
        # An id as written is also one folded (the folded text holds it): only an id that
        # folds to nothing is looked for as written.
        if any(i in data for i in self._unfoldable):
            return True
        low = lowered(data)
        if self._fold_token is not None:
            folded = low.translate(None, b"-_")  # once for every id, not once an id
            # Held folded (C's search), then as a token: `pii` stands in `api_id` folded.
            if any(f in folded for f in self._folded) and self._folded_named(data, low):
                return True
        return bool(self._halves) and self._near_miss(data, low)

    def file_names_ids(self, rel: str, data: bytes) -> bool:
        """`names_ids` of a file's text; of a Python file's outside its comments, which no
        candidate holds and no importer reads (`# a jailbreak flagged...` in a module every
        file imports would have them all read); or a Python rule line a name fills in."""
        python = rel.endswith(".py")
        if self.names_ids(data) and (not python or self.names_ids(pystrings.without_comments(data))):
            return True
        return python and slotted(data)

    def exports_ids(self, data: bytes) -> bool:
        """Can a module that names an id (`file_names_ids`) pass it to one importing it: does
        a literal whose value its code can read (not a comment, a docstring or a bare string)
        name one? Literals are asked joined as they stand (`"seg-" "mix"`) and one a line."""
        if len(data) > PY_READ_LIMIT:
            return True
        parts = pystrings.strings(data, values=True)
        return bool(parts) and (self.names_ids(b"".join(parts)) or self.names_ids(b"\n".join(parts)))

    def _folded_named(self, data: bytes, low: bytes) -> bool:
        """A token that folds to an id, as a candidate reads one (prompttext.unknown_ids): a
        one-word id in other letter case (`PII`, `VIOLENCE`) only where it may be a rule
        line's id, a separator after it."""
        assert self._fold_token is not None
        for m in self._fold_token.finditer(low):
            token = data[m.start() : m.end()].decode("ascii", "replace")
            if not prompttext.recased(token, self._id_set) or _STATES.match(data, m.end()):
                return True
        return False

    def may_spell_ids(self, data: bytes) -> bool:
        """Can a string of this Python text hold a card id as written (a prompt by its
        content, DESIGN §2)? Its text holds the id or a near miss (also across a seam of
        two literals, `"seg-" "mix"`), an escape that can spell any character, or a rule
        line a name fills in (`slotted`)."""
        return (
            self.names_ids(data)
            or (b"\\" in data and _SPELLING_ESCAPE.search(data) is not None)
            or slotted(data)
        )

    def _near_miss(self, data: bytes, low: bytes) -> bool:
        held = holds(data, self._half_words)
        rev = rev_low = b""  # the text reversed, once a half is found: a token's left end by a forward match
        size = len(data)
        for rule_id, (first, second), shortest in self._halves:
            # A token one edit away starts with the id's first half or ends with its second:
            # a half is looked at only where the rest of such a token can follow (before: the
            # second half, sought backwards in the reversed text), not at each of its hits.
            hits: list[tuple[int, int]] = []
            if first in held:
                after_first = _followed(first, len(rule_id) - 1, first=True)
                hits.extend((m.start(), m.start() + len(first)) for m in after_first.finditer(low))
            if second in held:
                rev_low = rev_low or low[::-1]
                before_second = _followed(second[::-1], len(rule_id) - 1, first=False)
                hits.extend(
                    (size - m.start() - len(second), size - m.start())
                    for m in before_second.finditer(rev_low)
                )
            for start, end in hits:
                rev = rev or data[::-1]
                token = token_around(data, rev, start, end)
                if len(token) >= shortest and _names(
                    token, rule_id, partial(_as_item, data, rev, start, end)
                ):
                    return True
        return False


# What may follow a rule line's id (prompttext's rule line or table row): closing quotes or
# emphasis, blanks, then a separator.
_STATES = re.compile(rb"(?:[`\"'*_ \t]|\xe2\x80[\x99\x9d])*(?:[:=|-]|\xe2\x80[\x93\x94])")


def _fold_token(folded: list[bytes]) -> re.Pattern[bytes]:
    """A token of lowered text that folds to one of the `folded` ids (`seg_mix`, `Seg-Mix`,
    `"seg-" "mix"`): the id's letters, a `-` or `_` or literals' seams between any two,
    where a token starts and ends. A superset of prompttext's tokens that fold to one."""
    gap = rb"[-_]?(?:" + SEAM.pattern + rb"[-_]?){0,%d}" % PIECES
    ids = (gap.join(re.escape(f[k : k + 1]) for k in range(len(f))) for f in folded)
    return re.compile(_TOKEN_START + rb"(?:" + b"|".join(ids) + rb")" + _TOKEN_END)


@cache
def _followed(half: bytes, length: int, first: bool) -> re.Pattern[bytes]:
    """`half` where a token of `length` letters may start (`first`) or end with it (the
    second half, sought in the reversed text): at a token's edge (a first half also after
    an escape's body: `\\nself-harmm`), the rest of the token's letters beside it, or
    fewer before a quote (a literals' seam). In lowered text. Compiled when a text first
    holds the half: a monorepo's hundreds of ids cost no start-up."""
    word = re.escape(half)
    edges = [rb"(?<![a-z0-9]%s)" % word]
    if first:
        edges += [rb"(?<=\\[a-z0-9]{%d}%s)" % (n, word) for n in ESCAPE_BODIES]
    rest = length - len(half)
    beside = rb"(?=[a-z0-9_-]{%d}|[a-z0-9_-]{0,%d}[\"'])" % (rest, rest - 1) if rest > 0 else b""
    return re.compile(word + rb"(?:" + b"|".join(edges) + rb")" + beside)


def _names(token: str, rule_id: str, as_item: Callable[[], bool]) -> bool:
    """Does `token` (a token's bytes, maybe several of prompttext's tokens) hold `rule_id` or
    a near miss? A plural of a one-word id only where it may be a list item's id (`as_item`:
    prompttext.unknown_ids); a one-word id in other letter case is asked by the fold test
    (`_folded_named`), which knows where it stands."""
    return any(
        t == rule_id
        or (spec.near_miss(t, rule_id) and not prompttext.recased(t, {rule_id}))
        or (spec.misspelt(t, rule_id) and as_item())
        for t in prompttext.TOKEN.findall(token)
    )


# Where a list item's id starts (prompttext's list item: a line break, real or escaped, or a
# string's quote, a list mark, marks).
_ITEM_BEFORE = re.compile(
    rb"(?:^|\\n|[\"'`(])[ \t>]*(?:[-*+]|\xe2\x80\xa2|[0-9]+[.)])" + MARKS + rb"\Z", re.M
)


def _as_item(data: bytes, rev: bytes, start: int, end: int) -> bool:
    """May the token around data[start:end] be a list item's id, a separator after it? In
    doubt (it goes on across a literals' seam), yes."""
    bounds = token_bounds(data, rev, start, end)
    if bounds is None:
        return True
    head, tail = bounds
    return _STATES.match(data, tail) is not None and opens_line(_ITEM_BEFORE, data, head)
