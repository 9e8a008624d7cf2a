"""The text gates' one-pass word search (gate/text/lowered.py) says exactly which words a text
holds, as one `word in text` a word would, wherever words overlap or nest."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refusal_lint.core import prompttext
from refusal_lint.static.gate import guardcall as G
from refusal_lint.static.gate import prefilter as P
from refusal_lint.static.gate.relevance import Relevance
from refusal_lint.static.gate.text import lowered
from refusal_lint.static.gate.text import shapes as S

_ALPHABET = st.sampled_from([b"a", b"b", b"-", b"_", b" ", b"\n", b"A", b"B", b"\xe2", b"\x80"])
_WORDS = st.lists(st.lists(_ALPHABET, min_size=1, max_size=5).map(b"".join), min_size=1, max_size=8)
_TEXTS = st.lists(_ALPHABET, max_size=60).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(_WORDS, _TEXTS)
def test_found_is_every_word_in_the_text(words: list[bytes], text: bytes) -> None:
    low = text.lower()
    assert lowered.Words(words).found(low) == {w.lower() for w in words if w.lower() in low}


@settings(max_examples=300, deadline=None)
@given(_WORDS, _TEXTS, _TEXTS)
def test_holds_answers_for_the_bytes_asked(words: list[bytes], first: bytes, second: bytes) -> None:
    """The slot never answers for another file's bytes."""
    w = lowered.Words(words)
    for text in (first, second, first):
        text = bytes(bytearray(text))  # a new object each time, as each file's bytes are
        assert lowered.holds(text, w) == {x for x in w.words if x in text.lower()}


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=4), _TEXTS, _TEXTS)
def test_one_search_for_every_set_answers_each_as_its_own(
    sets: list[list[bytes]], first: bytes, second: bytes
) -> None:
    """Every live set is searched for in one pass; each is told its own words only, also
    for a set made while a file's answers are kept (a run's ids' halves)."""
    made = [lowered.Words(ws) for ws in sets[:-1]]
    for text in (first, second):
        text = bytes(bytearray(text))
        for w in made:
            assert lowered.holds(text, w) == {x for x in w.words if x in text.lower()}
        late = lowered.Words(sets[-1])
        for w in (*made, late):
            assert lowered.holds(text, w) == {x for x in w.words if x in text.lower()}


_GATE_TEXTS = st.lists(
    st.sampled_from(
        [b"Rule", b"rule", b"'rule'", b"RULE=", b"rule=", b"AgentExtension(", b"agentextension(", b'"URI":',
         b'"uri":', b"media_type=", b"MEDIA_TYPE=", b"seg-mix", b"SEG-MIX", b"refuse(", b"Refusal", b"system",
         b"PROMPT", b" ", b"\n", b"(", b"x", b"HTTPException(", b"[", b"]", b"'refusal'", b"'mimeType':",
         b"class P(ServerExtension)", b"class Q(Extension)",
         b"metadata={", b".get("]
    ),
    max_size=30,
).map(b"".join)  # fmt: skip


def _plain_worth(data: bytes, extra: tuple[bytes, ...], ids: frozenset[str]) -> bool:
    """python_worth_parsing as plain `in` tests, one pass a needle (its reading before holds)."""
    low = data.lower()
    if b"refus" in low and (
        P.guard_call(data, ids) or any(n in data for n in P._PY_NEEDLES) or G.caught_as_error(data, low)
    ):
        return True
    if any(n in data for n in G.ERROR_NAMES) and G.error_subscript(data):
        return True
    if b"rule" in data and (b"'rule'" in data or b'"rule"' in data or P.rule_keyword(data)):
        return True
    if b"AgentExtension(" in data and P._extension_call(data):
        return True
    if b"Extension" in data and P.extension_class(data):
        return True
    quoted_uri = (b'uri"' in data or b"uri'" in data) and any(n in data for n in P._QUOTED_URI)
    media = b"edia" in data and any(n in data for n in P._MEDIA_WORDS)
    if (quoted_uri or media) and P._URI_KEY.search(data) is not None:
        return True
    if b"mimetype" in low and P._META_MIME.search(data) is not None:
        return True
    return any(n in data for n in extra)


@settings(max_examples=500, deadline=None)
@given(_GATE_TEXTS, st.sampled_from([(), ("seg-mix", "invalid-cut"), ("Seg-Mix", ""), ("x",)]))
def test_gates_answer_as_plain_tests_do(text: bytes, ids: tuple[str, ...]) -> None:
    """The gates that ask `holds` first answer as their plain `in` tests would: a word the
    lowered text does not hold is in no case in the bytes, and the bytes decide the rest."""
    needles = tuple(i.encode() for i in ids)
    # A card id as written (an empty one is no token: it names nothing), or spelled.
    spelled = bool(ids) and Relevance(ids).may_spell_ids(text)
    plain_prompt = any(w in text.lower() for w in S._PROMPT_WORDS) or spelled
    assert S.may_hold_prompt(text, ids) == plain_prompt
    if any(i and i in prompttext.TOKEN.findall(text.decode()) for i in ids):
        assert S.may_hold_prompt(text, ids)  # an id as a whole token (in `Ruleseg-mix` it is none)
    assert P.python_worth_parsing(text, needles, frozenset(ids)) == _plain_worth(
        text, needles, frozenset(ids)
    )


_WORD_TEXTS = st.lists(
    st.sampled_from(
        [b"except", b"xexcept", b"_except", b" ", b":", b"refus", b"AgentExtension(", b"xAgentExtension("]
    ),
    max_size=14,
).map(b"".join)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(_WORD_TEXTS, st.integers(0, 40), st.integers(0, 80))
def test_word_matches_are_the_leading_boundary_regex(text: bytes, pos: int, endpos: int) -> None:
    """A pattern's matches at a word's start, found by its literal, are `\\b` + pattern's;
    within bounds, as finditer bounds them."""
    import re

    for pattern in (G._CAUGHT, P._EXTENSION_CALL):
        plain = re.compile(rb"\b" + pattern.pattern)
        assert [m.span() for m in lowered.word_matches(pattern, text)] == [
            m.span() for m in plain.finditer(text)
        ]
        assert [m.span() for m in lowered.word_matches(pattern, text, pos, endpos)] == [
            m.span() for m in plain.finditer(text, pos, endpos)
        ]


def test_without_the_wheel_each_word_is_a_pass_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A platform without ahocorasick-rs gets the same answers, a pass a word."""
    monkeypatch.setattr(lowered, "_automaton", lambda words: False)
    words = lowered.Words([b"seg", b"-mix", b"SEG-MIX", b"refus"])
    assert words.found(b"no seg-mix here, refused") == {b"seg", b"-mix", b"seg-mix", b"refus"}
    assert words.found(b"nothing") == frozenset()
