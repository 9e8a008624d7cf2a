"""Where a suppression comment for a finding goes, and the text to insert (DESIGN §4):
`# refusal-lint: ignore[CODE]` at the end of a Python line (one that can hold a comment) or
a YAML line (inside a block scalar: its key's line), `{# ... #}` in Jinja, `<!-- ... -->`
in Markdown and other text. JSON has no comments: nothing is offered there."""

from __future__ import annotations

import io
import re
import tokenize
from typing import NamedTuple

from refusal_lint.core.filekinds import hash_commented, kind_of
from refusal_lint.core.kinds import FileKind
from refusal_lint.core.model import Finding
from refusal_lint.core.sourcetext import lines as split_lines
from refusal_lint.static.extract.data.comments import block_keys
from refusal_lint.static.extract.python.source import with_string_lines

_JINJA = (".j2", ".jinja", ".jinja2")
_EXISTING = re.compile(r"refusal-lint:\s*ignore(\[[A-Za-z0-9,\s]*\])?")


class Insert(NamedTuple):
    """Insert `text` on 1-based `line` at 1-based code-point column `col`."""

    line: int
    col: int
    text: str


def _comment(path: str, code: str) -> str:
    body = f"refusal-lint: ignore[{code}]"
    kind = kind_of(path)
    if kind in (FileKind.PYTHON, FileKind.YAML):
        return f"  # {body}"
    if path.lower().endswith(_JINJA):
        return f" {{# {body} #}}"
    return f" <!-- {body} -->"


def _added(line_no: int, existing: re.Match[str], code: str) -> Insert | None:
    """The code added to a suppression the line already holds; None if it covers the code."""
    listed = existing.group(1)
    if listed is None or code in {c.strip().upper() for c in listed[1:-1].split(",")}:
        return None
    at = existing.end(1) - 1  # before the `]`
    return Insert(line_no, at + 1, f",{code}" if listed[1:-1].strip() else code)


def _takes_comment(lines: list[str], line_no: int, comment: str) -> bool:
    """Does a comment appended to the line stay a comment (not inside a string, not after a
    backslash continuation), with the file still tokenizing?"""
    changed = lines[:]
    changed[line_no - 1] = lines[line_no - 1] + comment
    try:
        toks = list(tokenize.generate_tokens(io.StringIO("\n".join(changed)).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    return any(
        t.type == tokenize.COMMENT and t.start[0] == line_no and t.string.endswith(comment.strip())
        for t in toks
    )


def _string_end(text: str, line_no: int) -> list[int]:
    """The last line of a string written over several lines that holds line `line_no` (the
    extractor's comments() reads a comment there as covering the whole string)."""
    try:
        for _, lines in with_string_lines(text):
            if lines is not None and lines[0] <= line_no < lines[1]:
                return [lines[1]]
    except (tokenize.TokenError, SyntaxError):
        pass
    return []


def insertion(path: str, text: str, finding: Finding) -> Insert | None:
    """Where and what to insert so that the comment silences the finding; None where no
    comment can (JSON, a line inside a Python string, a TOML or INI file: `#` comments, none
    of ours) or one already does."""
    kind = kind_of(path)
    if kind is None or kind == FileKind.JSON or hash_commented(path):
        return None
    lines = split_lines(text)
    code = finding.code
    first, last = finding.loc.line, max(finding.loc.line, finding.loc.end_line)
    if not 1 <= first <= len(lines):
        return None
    candidates = list(range(first, min(last, len(lines)) + 1))
    if kind == FileKind.YAML:
        key = block_keys(lines)[first - 1]
        candidates = [key if key is not None else first]
    elif kind == FileKind.TEXT:
        candidates = [first]
    else:
        candidates += _string_end(text, first)  # a comment where a multi-line string ends covers it
    comment = _comment(path, code)
    for line_no in candidates:
        line = lines[line_no - 1]
        existing = _EXISTING.search(line)
        if existing is not None:
            return _added(line_no, existing, code)
        if kind == FileKind.PYTHON and not _takes_comment(lines, line_no, comment):
            continue
        return Insert(line_no, len(line.rstrip()) + 1, comment)
    return None
