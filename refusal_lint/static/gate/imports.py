"""A Python file's imports read from its text, without a parse: which modules it imports
(relevance.py follows a prompt's text into them); the files that import, transitively,
a module whose text can matter (`reaches`); and the other names a file binds a function to
(`aliases_of`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterable, Iterator

from refusal_lint.static.gate.text.lowered import name_at

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


def imported(data: bytes, stems: frozenset[str]) -> str:
    """`imports_of` as a note keeps it: each import that `could_name` a module of the tree
    (`stems`: `module_stems`), as its source spells it, a dot a level (`..policy`, `.` for
    `from . import X`), blank-separated. (`os.path`, `typing.Any` are left out.)"""
    return " ".join(
        "." * level + dotted for level, dotted in imports_of(data) if could_name(level, dotted, stems)
    )


def module_stems(rels: Iterable[str]) -> frozenset[str]:
    """The names that import the tree's Python modules (`policy` for `a/policy.py`)."""
    return frozenset(_stem(p) for p in rels if p.endswith(".py")) - {""}


def spelled_imports(note: str) -> Iterator[tuple[int, str]]:
    """The (level, dotted module) pairs of an `imported` note."""
    for spelled in note.split():
        dotted = spelled.lstrip(".")
        yield len(spelled) - len(dotted), dotted


def reaches(
    start: Iterable[str],
    modules: Iterable[str],
    matters: Callable[[str], bool],
    imported: Callable[[str], str],
    resolve: Callable[[str, int, str], str | None],
    exports: Callable[[str], bool],
) -> Generator[None, None, set[str]]:
    """The files among `start` whose own text, or the text of a module they import
    (transitively), can matter: a candidate's value may be built from imported names.

    Walked back from the modules whose text matters: a file joins where one of its imports
    (`imported(path)`, an `imported` note) resolves (`resolve(path, level, dotted)`) to a
    module reached. The imports are read once and filed by the name they end in, so a
    round resolves only those that `could_name` a module it reached. A file whose own text
    matters leads its importers in only where it `exports` what matters (a string of its
    code holds it, not only a comment or a docstring, which no importer reads).

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
    by_end: dict[str, list[tuple[str, int, str]]] = {}  # an import's last name: (file, level, dotted)
    if grown:
        for p in files:
            if p.endswith(".py"):
                for level, dotted in spelled_imports(imported(p)):
                    by_end.setdefault(dotted.rpartition(".")[2], []).append((p, level, dotted))
            yield
    while grown:
        stems = frozenset(_stem(p) for p in grown) - {""}
        grown = {
            p
            for end in sorted(stems | {""})  # "": `from . import X`
            for p, level, dotted in by_end.get(end, ())
            if p not in reached and could_name(level, dotted, stems) and resolve(p, level, dotted) in reached
        }
        reached = reached | grown
        yield
    return (found | reached).intersection(start)


def _stem(path: str) -> str:
    """The name an import of this module spells: `policy` for `a/policy.py`, `a` for `a/__init__.py`."""
    parts = path.rsplit("/", 2)
    name = parts[-1].removesuffix(".py")
    return (parts[-2] if len(parts) > 1 else "") if name == "__init__" else name


# What binds another name to a function: an import's `as`, or an assignment of it alone
# (`nope = say_no`, `self.nope = out.say_no`), its targets before it on the line.
_AS = re.compile(rb"[ \t]+as[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
_ALIAS_TARGETS = re.compile(
    rb"(?:[A-Za-z_][A-Za-z0-9_.]*[ \t]*(?::[^=\n]*)?=(?!=)[ \t]*)+(?:[A-Za-z_][A-Za-z0-9_]*\.)*"
)
_TARGET = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=")
_ALONE = re.compile(rb"[ \t]*(?:[#;\r\n]|$)")


def aliases_of(data: bytes, name: str) -> list[str]:
    """The names `data` binds to `name`: `name as X` (an import), `X = name` or
    `X = mod.name` alone on its line. A superset (a line of a string counts too)."""
    word = name.encode()
    out: set[str] = set()
    for at in name_at(data, word):
        end = at + len(word)
        if (m := _AS.match(data, end)) is not None:
            out.add(m[1].decode())
            continue
        line = data.rfind(b"\n", 0, at) + 1
        lead = data[line:at].lstrip(b" \t")
        if _ALONE.match(data, end) is not None and (t := _ALIAS_TARGETS.fullmatch(lead)) is not None:
            out.update(m[1].decode().rsplit(".", 1)[-1] for m in _TARGET.finditer(t[0]))
    out.discard(name)
    return sorted(out)
