"""Adopting refusal-lint in a legacy repo (DESIGN §4): today's findings recorded in a
baseline file and hidden later, matched by code, path, rule id and the text of the
finding's line, so they survive lines moving; a new finding is reported, and an entry
that matches nothing any more is pointed out (RL003), as an unused suppression is.

The file is JSON, one entry a line, so a review diff shows what was added or fixed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from refusal_lint.core import sourcetext
from refusal_lint.core.errors import UsageError
from refusal_lint.core.filekinds import is_kind
from refusal_lint.core.kinds import FileKind
from refusal_lint.core.model import BASELINE_FORMAT, Finding
from refusal_lint.static.discover.contents import DISK

FORMAT = BASELINE_FORMAT


@dataclass(frozen=True)
class Entry:
    code: str
    path: str
    rule_id: str | None
    text: str  # the finding's line, white space folded
    line: int = 0  # where the entry stands in the baseline file


def _fold(text: str) -> str:
    return " ".join(text.split())


class LineTexts:
    """The text of a finding's line, read once per file."""

    def __init__(self, root: str, read: Callable[[str], bytes] = DISK.read) -> None:
        self.root = root
        self.read = read  # the run's contents source (git's index, an editor's buffers)
        self.files: dict[str, list[str]] = {}

    def __call__(self, f: Finding) -> str:
        lines = self.files.get(f.loc.path)
        if lines is None:
            try:
                data = self.read(os.path.join(self.root, f.loc.path))
            except OSError:
                data = b""
            try:
                text = sourcetext.decode(data, is_kind(f.loc.path, FileKind.PYTHON)).text
            except (ValueError, SyntaxError, LookupError):  # what no parser read: RL002's line 1
                text = data.decode("utf-8", errors="replace")
            lines = sourcetext.lines(text)
            self.files[f.loc.path] = lines
        return _fold(lines[f.loc.line - 1]) if 0 < f.loc.line <= len(lines) else ""


def key(e: Entry) -> tuple[str, str, str | None, str]:
    return (e.code, e.path, e.rule_id, e.text)


def entries(findings: list[Finding], text_of: LineTexts) -> list[Entry]:
    return [Entry(f.code, f.loc.path, f.rule_id, text_of(f)) for f in findings]


def dumps(items: list[Entry]) -> str:
    rows = [
        json.dumps({"code": e.code, "path": e.path, "rule_id": e.rule_id, "line": e.text}, ensure_ascii=False)
        for e in sorted(items, key=key)
    ]
    body = ",\n".join(rows)
    return (
        f'{{"format": "{FORMAT}", "findings": [\n{body}\n]}}\n'
        if rows
        else f'{{"format": "{FORMAT}", "findings": []}}\n'
    )


def load(path: str) -> list[Entry]:
    """The entries of a baseline file; a one-line UsageError (exit 2) naming it otherwise."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read baseline: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: invalid baseline: {exc.msg} at line {exc.lineno}") from None
    if (
        not isinstance(data, dict)
        or data.get("format") != FORMAT
        or not isinstance(data.get("findings"), list)
    ):
        raise UsageError(
            f'{path}: not a refusal-lint baseline (want {{"format": "{FORMAT}", "findings": [...]}})'
        )
    lines = text.splitlines()
    out = []
    for i, row in enumerate(data["findings"]):
        if not (
            isinstance(row, dict)
            and isinstance(row.get("code"), str)
            and isinstance(row.get("path"), str)
            and isinstance(row.get("line"), str)
            and (row.get("rule_id") is None or isinstance(row.get("rule_id"), str))
        ):
            raise UsageError(f"{path}: baseline entry {i + 1} is not {{code, path, rule_id, line}}")
        out.append(
            Entry(row["code"], row["path"], row.get("rule_id"), _fold(row["line"]), _entry_line(lines, i))
        )
    return out


def _entry_line(lines: list[str], index: int) -> int:
    """Entries stand one a line after the opening one (as `dumps` writes them); else line 1."""
    n = index + 2
    return n if n <= len(lines) and lines[n - 1].lstrip().startswith("{") else 1


def apply(
    findings: list[Finding], recorded: list[Entry], text_of: LineTexts
) -> tuple[list[Finding], list[Entry]]:
    """(the findings the baseline does not hide, the entries that hide nothing: RL003)."""
    left = Counter(key(e) for e in recorded)
    kept = []
    for f in findings:
        k = (f.code, f.loc.path, f.rule_id, text_of(f))
        if left[k] > 0:
            left[k] -= 1
            continue
        kept.append(f)
    stale = []
    for e in recorded:
        if left[key(e)] > 0:
            left[key(e)] -= 1
            stale.append(e)
    return kept, stale


def rebased(recorded: list[Entry], anchor: str, root: str) -> list[Entry]:
    """Entries, recorded with paths inside the project (`anchor`: the config's folder, else
    the folder checked), as paths of the folder this run checks; one outside it is left out
    (it is no stale entry: a run from a sub-folder does not see its file)."""
    if os.path.abspath(anchor) == os.path.abspath(root):
        return recorded
    return [
        dataclasses.replace(e, path=_from(e, anchor, root)) for e in recorded if not _beside(e, anchor, root)
    ]


def _from(e: Entry, anchor: str, root: str) -> str:
    """An entry's path as a path of the folder `root` (`../x` where it lies outside)."""
    return os.path.relpath(os.path.join(anchor, e.path), root).replace(os.sep, "/")


def _beside(e: Entry, anchor: str, root: str) -> bool:
    """Does an entry's file lie outside the folder `root` a run checks?"""
    rel = _from(e, anchor, root)
    return rel == ".." or rel.startswith("../")


def write(
    path: str, findings: list[Finding], root: str, anchor: str, read: Callable[[str], bytes] = DISK.read
) -> int:
    """Record today's findings (after select, ignores and suppressions) for `--baseline`,
    their paths inside the project (`anchor`, as `rebased` reads them); returns how many.
    A run of a sub-folder rewrites only its part: an entry of the file already there whose
    path lies outside the folder checked is kept (that run did not see its file)."""
    items = [
        dataclasses.replace(e, path=os.path.relpath(os.path.join(root, e.path), anchor).replace(os.sep, "/"))
        for e in entries(findings, LineTexts(root, read))
    ]
    if os.path.abspath(anchor) != os.path.abspath(root) and os.path.exists(path):
        with contextlib.suppress(UsageError):  # not a baseline: written anew, as before
            items += [e for e in load(path) if _beside(e, anchor, root)]
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(dumps(items))
    except OSError as exc:
        raise UsageError(f"{path}: cannot write baseline: {exc.strerror}") from None
    return len(items)
