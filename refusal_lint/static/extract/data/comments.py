"""Suppression comments outside Python (DESIGN §4): `# refusal-lint: ignore[CODE]` at the
end of a YAML line, `{# refusal-lint: ignore[CODE] #}` in Jinja, `<!-- refusal-lint:
ignore[CODE] -->` in Markdown and other text prompts. JSON has no comments.

In YAML a `#` inside a block scalar is text, not a comment: a finding inside a block
scalar is silenced on its key's line, and such a comment covers the whole scalar.
"""

from __future__ import annotations

import re

from refusal_lint.core import sourcetext
from refusal_lint.core.facts import Suppression
from refusal_lint.core.kinds import FileKind
from refusal_lint.core.model import Loc

_BODY = r"refusal-lint:\s*ignore(?:\[([A-Za-z0-9,\s]*)\])?"
_YAML = re.compile(r"(?:^|\s)#\s*" + _BODY)
_TEXT = (re.compile(r"\{#-?\s*" + _BODY + r"\s*-?#\}"), re.compile(r"<!--\s*" + _BODY + r"\s*-->"))
# `key: |`, `- key: >-`, `key: |2  # comment`: a block scalar starts on the next line.
_BLOCK = re.compile(r"^(\s*)(?:-\s+)?[^#\s][^#]*?:\s*[|>][-+0-9]*\s*(?:#.*)?$")


def _codes(m: re.Match[str]) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in (m.group(1) or "").split(",") if c.strip())


_WORDS = re.compile(rb"refusal-lint:\s*ignore")  # every form's (_BODY's) own words


def may_hold(kind: FileKind | None, data: bytes) -> bool:
    """Can a file of this kind hold a suppression comment?"""
    return (
        kind in (FileKind.YAML, FileKind.TEXT) and b"refusal-lint" in data and _WORDS.search(data) is not None
    )


def suppressions(path: str, kind: FileKind, text: str) -> tuple[Suppression, ...]:
    if "refusal-lint" not in text or kind not in (FileKind.YAML, FileKind.TEXT):
        return ()
    # A text file's lines as git counts them; YAML's as PyYAML's marks do (U+2028 breaks one).
    lines = sourcetext.text_lines(text) if kind == FileKind.TEXT else text.splitlines()
    if kind == FileKind.TEXT:
        out = []
        for i, line in enumerate(lines, 1):
            for pattern in _TEXT:
                m = pattern.search(line)
                if m is not None:
                    out.append(Suppression(i, _codes(m), Loc(path, i, m.start() + 1)))
                    break
        return tuple(out)
    found: dict[int, Suppression] = {}
    for i, (line, key) in enumerate(zip(lines, block_keys(lines), strict=True), 1):
        if key is not None:
            s = found.get(key)  # the key line's comment covers the whole scalar
            if s is not None:
                found[key] = Suppression(s.line, s.codes, s.loc, end_line=i)
            continue
        m = _YAML.search(line)
        if m is not None:
            found[i] = Suppression(i, _codes(m), Loc(path, i, m.start() + 1 + (m.group(0)[0] != "#")))
    return tuple(found.values())


def block_keys(lines: list[str]) -> list[int | None]:
    """For each YAML line, the (1-based) key line of the block scalar it stands in, else
    None: where a comment that covers it must go."""
    out: list[int | None] = []
    block_indent: int | None = None
    key: int | None = None
    for i, line in enumerate(lines, 1):
        if block_indent is not None:
            if not line.strip() or len(line) - len(line.lstrip()) > block_indent:
                out.append(key)
                continue
            block_indent = key = None
        out.append(None)
        b = _BLOCK.match(line)
        if b is not None:
            block_indent, key = len(b.group(1)), i
    return out
