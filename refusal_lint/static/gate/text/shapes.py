"""The text gate's prompt shapes (DESIGN §2's table, declared in vocab.py): may a file
hold a prompt candidate, and where do its shapes stand? Asked of a file's bytes before any
parser reads it, only where a card makes prompts matter; conservative, as prefilter.py is."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from refusal_lint.core.filekinds import prompt_by_name
from refusal_lint.core.kinds import FileKind
from refusal_lint.core.sourcetext import NAME_BYTES, before_blanks
from refusal_lint.static.extract import vocab
from refusal_lint.static.gate import relevance
from refusal_lint.static.gate.text.lowered import Words, holds, lowered


def alternatives(words: Iterable[str]) -> bytes:
    return b"|".join(re.escape(w).encode() for w in sorted(words, key=lambda w: (-len(w), w)))


# The words every prompt shape holds (DESIGN §2's table, declared in vocab.py): a name word,
# a chat role, the system-call word, or a keyword argument that holds none of them.
_NAME_WORDS = {w.rstrip("s") for w in vocab.PROMPT_NAME_WORDS}
_COMMON = (b"system", b"prompt")
_SHAPE_WORDS = _NAME_WORDS | vocab.CHAT_SYSTEM_ROLES | {vocab.SYSTEM_CALL_WORD}
_OTHER_KWARGS = {k for k in vocab.PROMPT_KWARGS if not any(w in k for w in _SHAPE_WORDS)}
# The most common first: `any` stops at the first a file holds.
_PROMPT_WORDS = tuple(
    sorted((w.encode() for w in _SHAPE_WORDS | _OTHER_KWARGS), key=lambda w: (w not in _COMMON, w))
)
_BARE_KWARGS = {k for k in vocab.PROMPT_KWARGS if not any(w in k.lower() for w in _NAME_WORDS)}


def _cased(words: set[str]) -> bytes:
    """Any case, as names are written (`SYSTEM_PROMPT`, `systemPrompt`, `SystemMessage`)."""
    return b"(?:" + alternatives({v for w in words for v in (w, w.capitalize(), w.upper())}) + b")"


_PROMPT_SHAPE = re.compile(
    # A name holding a prompt word, assigned or passed (`SYSTEM_PROMPT =`, `instruction=`):
    # matched from the word on, so the search runs from literal prefixes.
    _cased(_NAME_WORDS)
    + rb"[A-Za-z0-9_]*[ \t]*[)\]]*[ \t\r\n]*(?::[^=\n]*)?=(?!=)"
    # A keyword the table names that holds no such word (`system=`, `goal=`, `preamble=`).
    + rb"|(?<![A-Za-z0-9_.])"
    + _cased(_BARE_KWARGS)
    + rb"[ \t\r\n]*=(?!=)"
    # A dict or config key (`"system_prompt":`), or one assigned (`t["system_prompt"] =`).
    + rb"|[\"'](?:[^\"'\n]*(?:"
    + alternatives(_NAME_WORDS)
    + rb")[^\"'\n]*|"
    + alternatives(vocab.PROMPT_KWARGS)
    + rb")[\"'](?:[ \t\r\n]*:|[ \t]*\][ \t]*\+?=(?!=))"
    # Chat messages: `{"role": "system", ...}`, `("system", ...)`.
    + rb"|[\"']role[\"'][ \t]*:[ \t\r\n]*[\"'](?:"
    + alternatives(vocab.CHAT_SYSTEM_ROLES)
    + rb")[\"']"
    + rb"|\([ \t\r\n]*[\"'](?:"
    + alternatives(vocab.CHAT_SYSTEM_ROLES)
    + rb")[\"'][ \t]*,"
    # A message built by a call with its role named (vocab.is_system_role): `role="system"`,
    # `role=MessageRole.SYSTEM`.
    + rb"|(?<![A-Za-z0-9_.])"
    + re.escape(vocab.ROLE_KWARG).encode()
    + rb"[ \t]*=[ \t\r\n]*(?:[\"'](?:"
    + alternatives(vocab.CHAT_SYSTEM_ROLES)
    + rb")[\"']|[A-Za-z_][A-Za-z0-9_.]*\.(?i:"
    + alternatives(vocab.CHAT_SYSTEM_ROLES)
    + rb")(?![A-Za-z0-9_]))"
    # A call whose name says system (`SystemMessage(`, `from_system(`, `add_system_message(`),
    # or SK's `PromptTemplateConfig(`; or one imported under a name of its own, which the
    # calls then use (`SystemMessage as Sys`: vocab.renamed_as_itself).
    + rb"|(?:(?!SystemExit\b|SystemError\b)"
    + _cased({vocab.SYSTEM_CALL_WORD})
    + rb"[A-Za-z0-9_]*(?:\.(?:"
    + alternatives(vocab.SYSTEM_TEMPLATE_METHODS)
    + rb"))?|"
    + re.escape(vocab.PROMPT_CONFIG_CLASS).encode()
    # An import's `as NAME` ends at a comma, a bracket or the line (not `except SystemExit as e:`).
    + rb")(?:[ \t]*\(|[ \t]+as[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*(?=[,)\r\n#]|\Z))"
    # A call that sets it (vocab.PROMPT_SETTERS): `with_instructions(`, `setPrompt(`.
    + rb"|"
    + _cased(set(vocab.PROMPT_SETTERS))
    + rb"[A-Za-z0-9_]*?"
    + _cased(_NAME_WORDS)
    + rb"[A-Za-z0-9_]*[ \t]*\("
    # A prompt function (`@agent.system_prompt`).
    + rb"|@[A-Za-z0-9_.]*\.(?:"
    + alternatives(vocab.PROMPT_DECORATORS)
    + rb")\b"
)
_WORDS = Words(_PROMPT_WORDS)
# The targets a line starts with, unpacked or bracketed, its `=` maybe on the next line
# (`SYSTEM_PROMPT, MODEL = ...`, `(SYSTEM_PROMPT) = ...`, `SYSTEM_PROMPT \`): a prompt shape
# where the word stands among them. Matched at the line's start only.
_TARGET = rb"[(\[ \t]*\*?[A-Za-z_][A-Za-z0-9_.]*[)\] \t]*"  # one class of blanks each side
_TARGETS = re.compile(_TARGET + rb"(?:," + _TARGET + rb")*(?:,[ \t]*)?(?:\\\r?\n[ \t]*)?=(?!=)")
_UNPACKED = re.compile(rb"[,()\[\]\\]")  # not a plain `NAME =`, which _PROMPT_SHAPE finds
_ENDS_AT_NAME = re.compile(rb"[A-Za-z0-9_]*[\"']?[ \t)\]]*\r?$")  # the line ends past the name


def prompt_words(data: bytes) -> bool:
    """The cheap first test: a word any prompt shape holds."""
    return not holds(data, _WORDS).isdisjoint(_PROMPT_WORDS)


def _dotted_start(data: bytes, at: int) -> int:
    """Where the dotted name ending in the word at `at` starts (`MessageRole.` of
    `MessageRole.SYSTEM`); `at` where no `.` stands before it."""
    i = at
    while i > 0 and data[i - 1] == 46:  # `.`
        i -= 1
        while i > 0 and (data[i - 1] in NAME_BYTES):
            i -= 1
    return i


def python_prompt_candidate(data: bytes) -> bool:
    """Can this file hold a prompt candidate? Asked only where a card makes prompts matter."""
    return next(prompt_shapes(data), None) is not None


_kept: tuple[bytes, list[re.Match[bytes]]] | None = None


def shapes_of(data: bytes) -> list[re.Match[bytes]]:
    """`prompt_shapes(data)` as a list, kept while `data` is the last asked (the slot holds
    it, so no other object can take its identity): a file's prompt-stage questions
    (answers.weak, then leads) find its shapes once, not once each."""
    global _kept
    if _kept is None or _kept[0] is not data:
        _kept = (data, [*prompt_shapes(data)])
    return _kept[1]


def prompt_shapes(data: bytes) -> Iterator[re.Match[bytes]]:
    """The prompt shapes of a Python file, left to right: `_PROMPT_SHAPE`'s matches, tried
    only around the prompt words its matches hold: a match holds one, and lies on that
    word's line, or (a tuple's `(\n    "system",`, a role's `"role":\n    "system"`) begins
    at a parenthesis before it or on the line of a colon before it; its key alternative,
    which scans ahead from every quote, is then run on a line, not on the whole file."""
    low = lowered(data)
    starts: set[int] = set()
    for word in _PROMPT_WORDS:
        at = low.find(word)
        while at >= 0:
            starts.add(at)
            at = low.find(word, at + 1)
    lo = hi = -1  # the region searched last (whole lines)
    line_start = seen = taken = 0
    for at in sorted(starts):
        if at < hi:
            continue  # on a line searched already: a `(` before it stands there too
        nl = data.rfind(b"\n", seen, at)  # each line break found once, left to right
        seen = at
        if nl >= 0:
            line_start = nl + 1
        begin = line_start
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        # The next line holds what follows the name where its line ends there (`instructions`
        # / `=` / `"..."`), or goes on past a backslash (`SYSTEM_PROMPT \`).
        more = end < len(data) and _ENDS_AT_NAME.match(data, at, end) is not None
        while more or (0 < end < len(data) and data[max(0, end - 2) : end].rstrip(b"\r").endswith(b"\\")):
            more, end = False, data.find(b"\n", end + 1)
            end = len(data) if end < 0 else end
        value = at - 1 if at > 0 and data[at - 1] in b"\"'" else _dotted_start(data, at)
        if value < at:
            # A tuple's `(`, a role key's `:` or a role keyword's `=` may stand on an
            # earlier line (`role=\n    MessageRole.SYSTEM`).
            k = before_blanks(data, value)
            if k >= 0 and data[k] in b"(:=":
                begin = min(begin, k if data[k] == 40 else data.rfind(b"\n", 0, k) + 1)
        if lo <= begin and end <= hi:
            continue
        targets = _TARGETS.match(data, line_start, end)
        if (
            targets is not None
            and line_start >= taken
            and at < targets.end()
            and _UNPACKED.search(targets[0])
        ):
            taken = targets.end()
            yield targets
        for m in _PROMPT_SHAPE.finditer(data, begin, end):
            if m.start() >= taken:  # not one a region before found
                taken = m.end()
                yield m
        lo, hi = begin, end


_ADK = re.compile(rb"^instruction\s*:", re.M)


def may_hold_prompt(data: bytes, ids: tuple[str, ...]) -> bool:
    """May a file hold a prompt candidate: a word a prompt shape holds, or a string that
    can hold a card id (a prompt by its content: as written, or spelled by an escape or
    across two literals)?"""
    return prompt_words(data) or (bool(ids) and relevance.of(ids).may_spell_ids(data))


def is_prompt_file(rel: str, kind: str, data: bytes) -> bool:
    """A prompt by its name, or (YAML) an ADK agent config by its `instruction:`."""
    return prompt_by_name(rel) or (kind == FileKind.YAML and _ADK.search(data) is not None)


def may_hold_the_prompt(rel: str, kind: str, data: bytes) -> bool:
    """A prompt by its name, or Python with a prompt shape: a file that, unread, leaves its
    agent's prompt unknown."""
    return prompt_by_name(rel) or (kind == FileKind.PYTHON and python_prompt_candidate(data))
