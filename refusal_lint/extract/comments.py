"""Suppression comments outside Python (DESIGN §4): `# refusal-lint: ignore[CODE]` at the
end of a YAML line, `{# refusal-lint: ignore[CODE] #}` in Jinja, `<!-- refusal-lint:
ignore[CODE] -->` in Markdown and other text prompts. JSON has no comments.

In YAML a `#` inside a block scalar is text, not a comment: a finding inside a block
scalar is silenced on its key's line, and such a comment covers the whole scalar.
"""

from __future__ import annotations

import re

from refusal_lint.facts import Suppression
from refusal_lint.filekinds import FileKind
from refusal_lint.model import Loc

_BODY = r"refusal-lint:\s*ignore(?:\[([A-Za-z0-9,\s]*)\])?"
_YAML = re.compile(r"(?:^|\s)#\s*" + _BODY)
_TEXT = (re.compile(r"\{#-?\s*" + _BODY + r"\s*-?#\}"), re.compile(r"<!--\s*" + _BODY + r"\s*-->"))
# `key: |`, `- key: >-`, `key: |2  # comment`: a block scalar starts on the next line.
_BLOCK = re.compile(r"^(\s*)(?:-\s+)?[^#\s][^#]*?:\s*[|>][-+0-9]*\s*(?:#.*)?$")


def _codes(m: re.Match[str]) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in (m.group(1) or "").split(",") if c.strip())


def suppressions(path: str, kind: FileKind, text: str) -> tuple[Suppression, ...]:
    if "refusal-lint" not in text or kind not in (FileKind.YAML, FileKind.TEXT):
        return ()
    lines = text.splitlines()
    if kind == FileKind.TEXT:
        out = []
        for i, line in enumerate(lines, 1):
            for pattern in _TEXT:
                m = pattern.search(line)
                if m is not None:
                    out.append(Suppression(i, _codes(m), Loc(path, i, m.start() + 1)))
                    break
        return tuple(out)
    found: list[Suppression] = []
    block_indent: int | None = None
    owner: int | None = None  # index in `found` of the key line's comment, covering the block
    for i, line in enumerate(lines, 1):
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if not line.strip() or indent > block_indent:
                if owner is not None:
                    s = found[owner]
                    found[owner] = Suppression(s.line, s.codes, s.loc, end_line=i)
                continue
            block_indent = owner = None
        m = _YAML.search(line)
        if m is not None:
            found.append(Suppression(i, _codes(m), Loc(path, i, m.start() + 1 + (m.group(0)[0] != "#"))))
        b = _BLOCK.match(line)
        if b is not None:
            block_indent = len(b.group(1))
            owner = len(found) - 1 if m is not None else None
    return tuple(found)
