"""--fix and --diff: bring drifted reasons back to the card's (RL203, RL303), safely.

Every edit is checked before anything is written: the text it replaces must still be what
the findings saw (else the file changed on disk), and the result must still parse and
say the card's reason (else the reason cannot be written there safely). Writes are
atomic (a temporary file in the same folder, then rename; a file under two names, a hard
link, is written in place) and keep the encoding, BOM, line endings and permissions.
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from refusal_lint.core import markup, sourcetext
from refusal_lint.core.filekinds import is_kind
from refusal_lint.core.kinds import EditKind, FileKind
from refusal_lint.core.model import Edit, Finding
from refusal_lint.static.discover.contents import DISK
from refusal_lint.static.fix.reads import still_reads

_CHANGED = "the file changed on disk since it was read"  # an edit's text is no longer where it was
_LITERAL = re.compile(r"(?P<prefix>[rRbBuUfF]{0,2})(?P<quote>'''|\"\"\"|'|\")", re.S)


@dataclass
class FileFix:
    path: str  # relative
    abs: str
    encoding: str
    bom: bool
    before: str
    after: str
    fixed: list[Finding] = field(default_factory=list)


@dataclass
class Plan:
    files: list[FileFix] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # one line each: what was left alone, and why

    @property
    def count(self) -> int:
        return sum(len(f.fixed) for f in self.files)


def _escape(value: str, quote: str, raw: bool, fstring: bool) -> str | None:
    """The body of a literal with that quote whose value is `value`; None if it cannot be."""
    if raw:
        if "\\" in value or quote[0] in value or "\n" in value or "\r" in value:
            return None
        body = value
    else:
        out = []
        for ch in value:
            if ch == "\\":
                out.append("\\\\")
            elif ch == quote[0]:
                out.append("\\" + ch)
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\r":
                out.append("\\r")
            elif ch == "\t":
                out.append("\\t")
            elif not ch.isprintable():
                out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
            else:
                out.append(ch)
        body = "".join(out)
    return body.replace("{", "{{").replace("}", "}}") if fstring else body


def literal_value(source: str) -> str | None:
    """The value of a Python string literal (f-strings without placeholders included)."""
    try:
        tree = ast.parse(source.strip(), mode="eval").body
    except (SyntaxError, ValueError):  # ValueError: a NUL byte, on early 3.11 releases (later: SyntaxError)
        return None
    if isinstance(tree, ast.Constant) and isinstance(tree.value, str):
        return tree.value
    if isinstance(tree, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in tree.values):
        return "".join(str(v.value) for v in tree.values if isinstance(v, ast.Constant))
    return None


def rewrite_literal(source: str, new: str) -> str | None:
    """`source` (one string literal) rewritten to hold `new`, same prefix, quotes and layout."""
    m = _LITERAL.match(source)
    if m is None or "b" in m["prefix"].lower():
        return None
    prefix, quote = m["prefix"], m["quote"]
    body = _escape(new, quote, "r" in prefix.lower(), "f" in prefix.lower())
    if body is None:
        return None
    out = f"{prefix}{quote}{body}{quote}"
    return out if literal_value(out) == new else None


def _apply(text: str, edit: Edit, starts: list[int], json_string: bool = False) -> tuple[str, str | None]:
    """The text with one edit made, or the reason it was not (`json_string`: the line's
    text stands in a JSON string, where the reasons are written escaped)."""
    if edit.line - 1 >= len(starts):
        return text, _CHANGED
    if edit.kind == EditKind.LITERAL:
        if edit.end_line - 1 >= len(starts):
            return text, _CHANGED
        a = starts[edit.line - 1] + edit.col - 1
        b = starts[edit.end_line - 1] + edit.end_col - 1
        if literal_value(text[a:b]) != edit.old:
            return text, _CHANGED
        new = rewrite_literal(text[a:b], edit.new)
        if new is None:
            return text, "the card's reason cannot be written in this literal's quoting"
        return text[:a] + new + text[b:], None
    end = starts[edit.line] if edit.line < len(starts) else len(text)
    old, new = (_json_body(edit.old), _json_body(edit.new)) if json_string else (edit.old, edit.new)
    line, why = _in_line(text[starts[edit.line - 1] : end], old, new, edit.col)
    return (text, why) if why else (text[: starts[edit.line - 1]] + line + text[end:], None)


_NOT_VERBATIM = "the prompt line is not written out verbatim here (generated or escaped)"


_AMBIGUOUS = "the old reason stands more than once on this line: which one to rewrite is not clear"


def _in_line(line: str, old: str, new: str, col: int = 0) -> tuple[str, str | None]:
    """The line with its one `old` made `new` (where it holds several, the first past the
    rule id's column `col`), or why not."""
    found = line.count(old)
    at = line.find(old, col - 1) if found > 1 and col > 0 else (line.find(old) if found == 1 else -1)
    if at >= 0:
        return line[:at] + new + line[at + len(old) :], None
    return line, _AMBIGUOUS if found > 1 else _NOT_VERBATIM


def _line_wise(path: str) -> bool:
    """A text prompt's edits change its lines only, and no parse asks the result: each is
    made on its line (a file of many RL203s is read once, not once an edit)."""
    return not any(is_kind(path, k) for k in (FileKind.PYTHON, FileKind.JSON, FileKind.YAML))


def _json_body(value: str) -> str:
    """`value` as a JSON string's body (`"` and `\\` escaped, other text as it is)."""
    return json.dumps(value, ensure_ascii=False)[1:-1]


def plan_text(
    path: str, text: str, findings: list[Finding], encoding: str = "utf-8"
) -> tuple[str, list[Finding], list[str]]:
    """One file's text with every fix of `findings` made that can be made safely: the new
    text, the findings fixed, one line for each left alone (--fix, and the editor's code
    actions on a buffer). A reason the file's `encoding` cannot hold is left alone, so that
    --diff shows only what --fix writes."""
    after = text
    fixed: list[Finding] = []
    skipped: list[str] = []
    lines = text.split("\n") if _line_wise(path) else None
    # From the end of the file backwards, so earlier edits keep their positions.
    for f in sorted(findings, key=lambda f: (f.edit.line, f.edit.col) if f.edit else (0, 0), reverse=True):
        assert f.edit is not None
        why = _unwritable(f.edit, encoding)
        if why is None and lines is not None:
            at = f.edit.line - 1
            if at >= len(lines):
                why = _CHANGED
            else:
                lines[at], why = _in_line(lines[at], f.edit.old, f.edit.new, f.edit.col)
        elif why is None:
            why = "the reason cannot be written there safely"
            for edit in _spellings(path, f.edit):
                candidate, failed = _apply(
                    after, edit, sourcetext.line_starts(after), is_kind(path, FileKind.JSON)
                )
                if failed is None and still_reads(path, after, candidate, [f.edit.new], f.edit.line):
                    after, why = candidate, None
                    break
                why = failed or why
        if why is None:
            fixed.append(f)
        else:
            skipped.append(f"{path}:{f.loc.line}: {f.code} not fixed: {why}")
    return ("\n".join(lines) if lines is not None else after), fixed, skipped


def _unwritable(edit: Edit, encoding: str) -> str | None:
    """Why the card's reason can be written in no spelling here, if so: the file's encoding
    cannot hold it, or a prompt line's reader would drop a comment it holds."""
    try:
        edit.new.encode(encoding)
    except UnicodeEncodeError:
        return f"the file's encoding ({encoding}) cannot hold the card's reason"
    if edit.kind == EditKind.TEXT and markup.hides(edit.new):  # a prompt line's
        return "the card's reason holds a comment (`<!-- -->`, `{# #}`) that a prompt's reader drops"
    return None


def _spellings(path: str, edit: Edit) -> list[Edit]:
    """The edit as the card writes the reason; in a Python prompt line also escaped as
    the body of a literal of either quote (`'... I can\\'t ...'`, `_escape`), for the one it
    stands in: _still_reads keeps the one whose file reads the reason."""
    if edit.kind != EditKind.TEXT or not is_kind(path, FileKind.PYTHON):
        return [edit]
    # In an f-string, a brace of the reason is written doubled (`{{budget}}`).
    bodies = (_escape(edit.new, q, raw=False, fstring=f) for q in ("'", '"') for f in (False, True))
    escaped = dict.fromkeys(b for b in bodies if b is not None and b != edit.new)
    return [edit, *(replace(edit, new=b) for b in escaped)]


def plan(findings: list[Finding], root: str, read: Callable[[str], bytes] = DISK.read) -> Plan:
    """Every fix that can be made safely, file by file; nothing is written. `read` is the
    run's contents source: a fix planned on git's index is written only where the disk
    still holds the same text."""
    out = Plan()
    by_file: dict[str, list[Finding]] = {}
    for f in findings:
        if f.edit is not None:
            by_file.setdefault(f.edit.path, []).append(f)
    top = os.path.realpath(root)
    for path, group in sorted(by_file.items()):
        absolute = os.path.join(root, path)
        real = os.path.realpath(absolute)
        if not _within(top, real):
            # A symlink out of the project: its file is another tree's, left to its own run.
            out.skipped.append(f"{path}: not fixed, it is a symlink to {real}, outside the project")
            continue
        try:
            data = read(absolute)
            text, encoding, bom = sourcetext.decode(data, is_kind(path, FileKind.PYTHON))
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError, ValueError) as exc:
            out.skipped.append(f"{path}: not fixed, cannot read it ({exc})")
            continue
        after, fixed, skipped = plan_text(path, text, group, encoding)
        out.skipped.extend(skipped)
        if fixed:
            out.files.append(
                FileFix(path, absolute, encoding, bom, text, after, sorted(fixed, key=Finding.sort_key))
            )
    return out


def fixable(
    findings: list[Finding], root: str, read: Callable[[str], bytes]
) -> tuple[list[Finding], list[str]]:
    """The findings with each edit --fix would refuse dropped, so that `fixable` says what
    --fix does (a quoted YAML scalar, a reason split across literals, a template the reason
    would add placeholders to); and one line for each, saying why (for --fix and --diff)."""
    planned = plan(findings, root, read)
    kept = {id(f) for file in planned.files for f in file.fixed}
    out = [f if f.edit is None or id(f) in kept else replace(f, edit=None) for f in findings]
    return out, planned.skipped


def diff(p: Plan, show: Callable[[str], str] = str) -> bytes:
    """The plan as a unified diff, in bytes as `git diff` gives them: each file's lines in its
    own encoding (with its BOM), so that `git apply` finds a Latin-1 file's context lines;
    `show` gives each path as the patch names it (relative to the current folder, so
    `git apply` takes it there)."""
    out: list[bytes] = []
    for f in p.files:
        # A UTF-16 or UTF-32 file's lines go as UTF-8 (a patch in a wide encoding is no
        # patch to any tool): readable, not to be applied (cli/check.py says so).
        wide = is_wide(f.encoding)
        encoding = "utf-8" if wide else f.encoding
        bom = "\ufeff" if f.bom and not wide else ""
        chunks = difflib.unified_diff(
            _lines(bom + f.before),
            _lines(bom + f.after),
            f"a/{show(f.path)}",
            f"b/{show(f.path)}",
        )
        for i, chunk in enumerate(chunks):
            if not chunk.endswith("\n"):
                chunk += "\n\\ No newline at end of file\n"
            # The `---`/`+++` lines name the file (as the terminal shows paths); the rest is its text.
            out.append(chunk.encode("utf-8" if i < 2 else encoding, "surrogateescape"))
    return b"".join(out)


def _within(top: str, path: str) -> bool:
    try:
        return os.path.commonpath([top, path]) == top
    except ValueError:  # another drive (Windows)
        return False


def is_wide(encoding: str) -> bool:
    return encoding.lower().replace("_", "-").startswith(("utf-16", "utf-32"))


def _lines(text: str) -> list[str]:
    """The text's lines as git counts them, ends kept: split at `\n` only (`splitlines` also
    splits at a form feed or U+2028, which a patch would then not match)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def write(p: Plan, staged: bool = False) -> list[str]:
    """Write each fixed file atomically; returns one line per file that could not be written.
    `staged`: the plan was made from git's index (--git-index), which the disk must match."""
    problems = []
    for f in p.files:
        target = os.path.realpath(f.abs)  # a symlinked file is written where it is, the link kept
        try:
            st = os.stat(target)
            if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
                raise PermissionError("the file is read-only")
            with open(target, "rb") as fh:
                current = sourcetext.decode(fh.read(), is_kind(f.path, FileKind.PYTHON)).text
            if current != f.before:
                raise RuntimeError(
                    "the file on disk is not the text in git's index: stage it, then fix"
                    if staged
                    else "it changed on disk since it was read"
                )
            data = (("\ufeff" if f.bom else "") + f.after).encode(f.encoding)
            if st.st_nlink > 1:  # a hard link: renamed over, its names would part; in place
                with open(target, "r+b") as fh:
                    fh.write(data)
                    fh.truncate()
                continue
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".refusal-lint-")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.chmod(tmp, stat.S_IMODE(st.st_mode))
                os.replace(tmp, target)
            except BaseException:
                os.unlink(tmp)
                raise
        # ValueError: now undecodable
        except (OSError, RuntimeError, ValueError, SyntaxError, LookupError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            problems.append(f"{f.path}: not fixed, {why}")
            f.fixed.clear()
    return problems
