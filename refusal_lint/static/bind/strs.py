"""Strings put together by binding (`BASE + POLICY`, a stripped or moved value): where each
line of the result stands, in which file."""

from __future__ import annotations

from typing import TypeVar

from refusal_lint.core.facts import Str
from refusal_lint.core.model import Loc

T = TypeVar("T")


def join_strs(a: Str, b: Str, loc: Loc) -> Str:
    """`a + b` with each line of the result on the file line where its text starts (and
    in the file: `BASE + POLICY`, POLICY imported, has lines of two modules)."""
    ap, bp = a.line_paths(), b.line_paths()
    if not (a.lines and b.lines):
        lines, paths = (a.lines, ap) if a.lines else (b.lines, bp)
    elif a.value.endswith("\n") or not a.value:
        # b starts a fresh line: it is where that line's text is
        lines, paths = a.lines[:-1] + b.lines, ap[:-1] + bp
    else:
        lines, paths = a.lines + b.lines[1:], ap + bp[1:]
    return Str(a.value + b.value, loc, lines, literal=False, paths=own_paths(paths, loc))


def own_paths(paths: tuple[str, ...], loc: Loc) -> tuple[str, ...]:
    """`Str.paths` for a string at `loc`: none where every line is in loc's own file."""
    return () if all(p == loc.path for p in paths) else paths


def moved(s: Str, loc: Loc) -> Str:
    """`s` standing at `loc` (a Join's), each line still in its own file; no longer a literal."""
    return Str(s.value, loc, s.lines, literal=False, paths=own_paths(s.line_paths(), loc))


def shift(value: str, new: str, lines: tuple[T, ...]) -> tuple[T, ...]:
    """Lines (or their files) of `new`, which is `value` with some leading and trailing text removed."""
    start = value.find(new) if new else 0
    dropped = value[: max(start, 0)].count("\n")
    return lines[dropped : dropped + new.count("\n") + 1]
