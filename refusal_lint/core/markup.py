"""What a prompt's markup hides from the model: comments a renderer drops (HTML in Markdown,
Jinja), and emphasis around a whole reason. Rule lines and mentions are read through it."""

from __future__ import annotations

import re
from dataclasses import replace

from refusal_lint.core.model import PromptLine

# Comments a renderer drops: their text is no prompt's (DESIGN §2 "Not candidates": comments).
_COMMENTS = {"<!--": "-->", "{#": "#}"}
_NOT_NEWLINE = re.compile(r"[^\n]")
_EMPHASIS = ("***", "**", "__", "*", "_")


def visible(lines: tuple[PromptLine, ...]) -> tuple[PromptLine, ...]:
    """The lines as the model reads them: the text of an HTML or Jinja comment, on one line
    or over several (`<!-- - seg-mix: the old reason -->`), blanked, columns kept. A comment
    never closed is no comment (a stray `{#` in prose hides nothing after it)."""
    if not any("<!--" in pl.text or "{#" in pl.text for pl in lines):
        return lines
    text = "\n".join(pl.text for pl in lines)
    pieces, at = [], 0
    for start, end in _comments(text):
        pieces += [text[at:start], _NOT_NEWLINE.sub(" ", text[start:end])]
        at = end
    blanked = "".join([*pieces, text[at:]]).split("\n")
    if len(blanked) != len(lines):  # a line of its own held a line break: leave all as written
        return lines
    return tuple(pl if t == pl.text else replace(pl, text=t) for pl, t in zip(lines, blanked, strict=True))


def hides(text: str) -> bool:
    """Does `text` hold a comment a renderer drops (so no prompt can state it as written)?"""
    return bool(_comments(text))


def _comments(text: str) -> list[tuple[int, int]]:
    """Where the comments stand, in one pass: an opener never closed ends the search for its
    kind (no later one closes either), so a hostile text costs linear time."""
    out: list[tuple[int, int]] = []
    at, dead = 0, set()
    while starts := [(j, o) for o in _COMMENTS if o not in dead and (j := text.find(o, at)) >= 0]:
        start, opener = min(starts)
        end = text.find(_COMMENTS[opener], start + len(opener))
        if end < 0:
            dead.add(opener)
            continue
        at = end + len(_COMMENTS[opener])
        out.append((start, at))
    return out


def unemphasised(text: str) -> str:
    """A reason without Markdown emphasis around the whole of it (`**...**`, `*...*`, `_..._`):
    the model reads the words. Emphasis inside it (`**Never** mix`) stays."""
    for mark in _EMPHASIS:
        inner = text[len(mark) : -len(mark)]
        if len(text) > 2 * len(mark) and text.startswith(mark) and text.endswith(mark):
            return inner.strip() if mark[0] not in inner else text
    return text
