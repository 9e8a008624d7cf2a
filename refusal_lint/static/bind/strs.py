"""Strings put together by binding (`BASE + POLICY`, a stripped or moved value): where each
line of the result stands, in which file."""

from __future__ import annotations

from typing import TypeVar

from refusal_lint.core.facts import Str
from refusal_lint.core.model import Loc

T = TypeVar("T")


def join_strs(parts: list[Str], loc: Loc) -> Str:
    """`a + b + ...` with each line of the result on the file line where its text starts
    (and in the file: `BASE + POLICY`, POLICY imported, has lines of two modules). In one
    pass: a prompt of 5,000 literals joined pairwise copied its lines 5,000 times."""
    if not parts:
        return Str("", loc, (loc.line,), literal=False)
    first = parts[0]
    values = [first.value]
    lines, paths = list(first.lines), list(first.line_paths())
    fresh = first.value.endswith("\n") or not first.value  # the next part starts a line
    for b in parts[1:]:
        if not lines:
            lines, paths = list(b.lines), list(b.line_paths())
        elif b.lines:
            bp = b.line_paths()
            if fresh:  # b starts a fresh line: it is where that line's text is
                lines[-1:], paths[-1:] = b.lines, bp
            else:
                lines += b.lines[1:]
                paths += bp[1:]
        if b.value:
            fresh = b.value.endswith("\n")
        values.append(b.value)
    return Str("".join(values), loc, tuple(lines), literal=False, paths=own_paths(tuple(paths), loc))


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


# What a template's escapes stand for once filled (`5%%` is "5%"; `{{` is "{").
_ESCAPES = {"%": (("%%", "%"),), "{": (("{{", "{"), ("}}", "}"))}


def filled(text: str, style: str) -> str:
    """`text` as a template of `style` (Fmt.style) reads once filled: its escapes read."""
    for escape, char in _ESCAPES.get(style, ()):
        text = text.replace(escape, char)
    return text


STYLES = tuple(_ESCAPES)


def as_filled(text: str) -> str:
    """The text as every fill style reads it (`50%%` as `50%`)."""
    for style in STYLES:
        text = filled(text, style)
    return text


def unescaped(s: Str, style: str) -> Str:
    """The text of template `s` once filled (Fmt.style): its escapes read. No longer the
    literal as written, so no fix rewrites it."""
    value = filled(s.value, style)
    return s if value == s.value else Str(value, s.loc, s.lines, literal=False, paths=s.paths)
