"""A Python file's imports read from its text, without a parse: which modules it imports
(relevance.py follows a prompt's text into them), and whether it imports from its own
package bare (`from . import X`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

# Matched where their keyword stands at a line's start after blanks, as `^[ \t]*` with
# re.M would: the keyword is found by C, and the pattern tried only there.
# The names run to the line's end, or past it where a backslash continues the line.
_FROM = re.compile(
    rb"from[ \t]+(\.*)([A-Za-z0-9_.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n\\]*(?:\\(?:\r\n|.)[^\n\\]*)*)", re.S
)
_IMPORT = re.compile(rb"import[ \t]+([^\n\\]*(?:\\(?:\r\n|.)[^\n\\]*)*)", re.S)
_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_BLANKS = re.compile(rb"[ \t]*")


def _statements(keyword: bytes, pattern: re.Pattern[bytes], data: bytes) -> Iterator[re.Match[bytes]]:
    """The matches `re.compile(rb"^[ \t]*" + pattern, re.M).finditer(data)` gives: at a
    line's start after blanks, none overlapping the one before. Linear in the text: each
    line's start and blanks are found once, left to right."""
    after = pos = seen = 0
    first = _BLANKS.match(data).end()  # type: ignore[union-attr]
    line_start = 0
    while (at := data.find(keyword, pos)) >= 0:
        nl = data.rfind(b"\n", seen, at)
        if nl >= 0:
            line_start = nl + 1
            first = _BLANKS.match(data, line_start).end()  # type: ignore[union-attr]
        seen = at
        if line_start >= after and first == at and (m := pattern.match(data, at)) is not None:
            yield m
            after = pos = m.end()
        else:
            pos = at + 1


# `from . import X` (`from .. import X`): the module a package's `__init__.py` is imported by
# from inside it, without its name (imports_of's spelling of a `from` line).
_BARE_RELATIVE = re.compile(rb"from[ \t]+\.+[ \t]+import[ \t(]")


def bare_relative(data: bytes) -> bool:
    """Does the text import from a package (`from . import X`) without naming it?"""
    return b"import" in data and next(_statements(b"from", _BARE_RELATIVE, data), None) is not None


def could_name(level: int, dotted: str, stems: frozenset[str]) -> bool:
    """Can import (level, dotted) resolve to a module of one of `stems` (resolve.py's
    ModuleIndex: its file is `dotted`'s last part, `.py` or a package), or to the package
    `from . import X` imports from (level > 0, nothing named)?"""
    return (level > 0 and not dotted) or dotted.rsplit(".", 1)[-1] in stems


def imports_of(data: bytes) -> list[tuple[int, str]]:
    """(level, dotted module) of every import the text shows, anywhere in the file; for
    `from m import a, b` also `m.a` and `m.b` (they may be submodules)."""
    out: list[tuple[int, str]] = []
    if b"import" not in data:
        return out
    for m in _statements(b"from", _FROM, data):
        dots, module, names = m.groups()
        level = len(dots)
        base = module.decode()
        out.append((level, base))
        for n in _NAME.findall(names.split(b"#", 1)[0] if not names.startswith(b"(") else names):
            name = n.decode()
            if name != "as":
                out.append((level, f"{base}.{name}" if base else name))
    for m in _statements(b"import", _IMPORT, data):
        for n in _NAME.findall(m[1].split(b"#", 1)[0]):
            name = n.decode()
            if name != "as":
                out.append((0, name))
    return out


_ALIAS = re.compile(rb"([A-Za-z_][A-Za-z0-9_.]*|\*)(?:[ \t\r\n]+as[ \t\r\n]+([A-Za-z_][A-Za-z0-9_]*))?")


def bindings_of(data: bytes) -> list[tuple[str, int, str, str]]:
    """(local name, level, module, imported name) of every import the text shows:
    `from m import a as b` binds `b` to `a` of `m`; `import m.n as k` binds `k` to module
    `m.n` (imported name ""), `import m.n` binds `m` to `m`; `from m import *` binds `*`."""
    out: list[tuple[str, int, str, str]] = []
    if b"import" not in data:
        return out
    for m in _statements(b"from", _FROM, data):
        dots, module, names = m.groups()
        text = names.split(b"#", 1)[0] if not names.startswith(b"(") else names.strip(b"()")
        for a in _ALIAS.finditer(text):
            out.append(((a[2] or a[1]).decode(), len(dots), module.decode(), a[1].decode()))
    for m in _statements(b"import", _IMPORT, data):
        for a in _ALIAS.finditer(m[1].split(b"#", 1)[0]):
            dotted = a[1].decode()
            local = a[2].decode() if a[2] else dotted.split(".", 1)[0]
            out.append((local, 0, dotted if a[2] else local, ""))
    return out
