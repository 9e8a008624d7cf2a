"""A Python file's imports read from its text, without a parse: which modules it imports
(relevance.py follows a prompt's text into them), and whether it imports from its own
package bare (`from . import X`); and the files that import, transitively, a module whose
text can matter (`reaches`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterable, Iterator

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


def reaches(
    start: Iterable[str],
    modules: Iterable[str],
    matters: Callable[[str], bool],
    names: Callable[[str, tuple[bytes, ...], re.Pattern[bytes], bool], bool],
    imports: Callable[[str, frozenset[str]], Iterable[str]],
    exports: Callable[[str], bool],
) -> Generator[None, None, set[str]]:
    """The files among `start` whose own text, or the text of a module they import
    (transitively), can matter: a candidate's value may be built from imported names.

    Walked back from the modules whose text matters: a file can import one only if its
    text names it (`from agent.policy import POLICY`, `from . import policy`) or, for a
    package's `__init__.py`, if it lies in that package and imports from `.` bare
    (`from . import POLICY`). So only such files (`names(path, words, pattern,
    relative)`: a word is in the text and the pattern finds it as a name, or `relative`
    and the text has a bare relative import) have their imports resolved, and of those
    only the ones that can name a found module (`imports(path, stems)`). A file whose own
    text matters leads its importers in only where it `exports` what matters (a string of
    its code holds it, not only a comment or a docstring, which no importer reads).

    A generator, a step a file (`yield`), returning the set: the steps can be taken while
    the workers are busy (ondemand.warming); ondemand.relevant takes them all."""
    start = list(start)
    files = sorted(set(start).union(modules))
    found = set()
    for p in files:
        if matters(p):
            found.add(p)
        yield
    # The modules an importer may read it from (only a Python module is imported).
    grown = reached = {p for p in found if p.endswith(".py") and exports(p)}
    while grown:
        py = [p for p in grown if p.endswith(".py")]
        stems = frozenset(_stem(p) for p in py) - {""}
        inits = {p for p in py if p == "__init__.py" or p.endswith("/__init__.py")}
        packages = tuple(sorted(p[: -len("__init__.py")] for p in inits))
        if not stems and not packages:
            break
        # Only a name can be imported (`from policy import X`): a stem that is none
        # (`my-notes`) is named by no import statement.
        words = tuple(s.encode() for s in sorted(stems) if s.isidentifier())
        named = whole_names(words)
        grown = set()
        for p in files:
            if p in reached or not p.endswith(".py"):
                continue
            relative = p.startswith(packages)  # "" (a root package) holds every file
            if names(p, words, named, relative) and any(m in reached for m in imports(p, stems)):
                grown.add(p)
            yield
        reached = reached | grown
    return (found | reached).intersection(start)


def whole_names(words: tuple[bytes, ...]) -> re.Pattern[bytes]:
    """One of `words` not before a word character; `word_matches` finds it where it is not
    after one either (a leading `\\b` would have the regex tried at every offset)."""
    return re.compile(rb"(?:" + b"|".join(re.escape(w) for w in words) + rb")(?![A-Za-z0-9_])")


def _stem(path: str) -> str:
    """The name an import of this module spells: `policy` for `a/policy.py`, `a` for `a/__init__.py`."""
    parts = path.rsplit("/", 2)
    name = parts[-1].removesuffix(".py")
    return (parts[-2] if len(parts) > 1 else "") if name == "__init__" else name
