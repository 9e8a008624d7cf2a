"""What a prompt's markup hides from the model: comments a renderer drops (HTML in Markdown,
Jinja), and emphasis around a whole reason. Rule lines and mentions are read through it."""

from __future__ import annotations

from dataclasses import replace

from refusal_lint.core.model import PromptLine

# Comments a renderer drops: their text is no prompt's (DESIGN §2 "Not candidates": comments).
_COMMENTS = {"<!--": "-->", "{#": "#}"}
_EMPHASIS = ("***", "**", "__", "*", "_")


def visible(lines: tuple[PromptLine, ...]) -> tuple[PromptLine, ...]:
    """The lines as the model reads them: the text of an HTML or Jinja comment, on one line
    or over several (`<!-- - seg-mix: the old reason -->`), blanked, columns kept."""
    if not any("<!--" in pl.text or "{#" in pl.text for pl in lines):
        return lines
    out = []
    closing = ""  # the end of the comment open at this line's start, if one is
    for pl in lines:
        text, i = pl.text, 0
        while i < len(text):
            start = i
            if not closing:
                starts = [(j, o) for o in _COMMENTS if (j := text.find(o, i)) >= 0]
                if not starts:
                    break
                start, opener = min(starts)
                closing, i = _COMMENTS[opener], start + len(opener)
            end = text.find(closing, i)
            i = len(text) if end < 0 else end + len(closing)
            text = text[:start] + " " * (i - start) + text[i:]
            if end >= 0:
                closing = ""
        out.append(pl if text == pl.text else replace(pl, text=text))
    return tuple(out)


def unemphasised(text: str) -> str:
    """A reason without Markdown emphasis around the whole of it (`**...**`, `*...*`, `_..._`):
    the model reads the words. Emphasis inside it (`**Never** mix`) stays."""
    for mark in _EMPHASIS:
        inner = text[len(mark) : -len(mark)]
        if len(text) > 2 * len(mark) and text.startswith(mark) and text.endswith(mark):
            return inner.strip() if mark[0] not in inner else text
    return text
