"""Strings put together by binding (`BASE + POLICY`, a stripped or moved value): where each
line of the result stands, in which file."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from refusal_lint.core.facts import Const, DictV, Fmt, Item, Seq, Str, Value
from refusal_lint.core.kinds import ValueKind
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


_BRACES = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
_PERCENTS = re.compile(r"%(?:\(([^()]*)\))?([-#0 +*]*\d*(?:\.\d+)?)([a-zA-Z%])")


def filled_in(s: Str, style: str, value_of: Callable[[int | str], Str | None]) -> Str:
    """Template `s` (Fmt.style) once filled: each slot whose value is a known string holding
    it (`"- {}: ...".format(SEG_MIX)`, `"- %s: ..." % SEG_MIX`), the others as written, its
    escapes read. A slot read as written (`{0:>8}`, `%d`), or any past a `*` width, is left."""
    fills: list[tuple[int, int, Str | str]] = []  # (start, end, what stands there)
    escapes = dict(_ESCAPES[style])
    auto = 0
    lost = False  # a `%*d` takes an argument more: the rest are not known by place
    for m in (_BRACES if style == "{" else _PERCENTS).finditer(s.value):
        if m[0] in escapes:
            fills.append((m.start(), m.end(), escapes[m[0]]))
            continue
        key, plain, counted = _slot(m, style, auto)
        auto += counted
        lost = lost or (style == "%" and "*" in m[2])
        known = value_of(key) if plain and key is not None and not lost else None
        if known is not None:
            fills.append((m.start(), m.end(), known))
    if not any(isinstance(f, Str) for _, _, f in fills):
        return unescaped(s, style)  # no slot known: the template's text, as before
    parts: list[Str] = []
    pos = line = 0
    for start, end, what in fills:
        parts.append(_piece(s, line, s.value[pos:start]))
        line += s.value.count("\n", pos, start)
        parts.append(what if isinstance(what, Str) else _piece(s, line, what))
        line += s.value.count("\n", start, end)
        pos = end
    parts.append(_piece(s, line, s.value[pos:]))
    return join_strs(parts, s.loc)


def _slot(m: re.Match[str], style: str, auto: int) -> tuple[int | str | None, bool, int]:
    """A slot's key (a position or a name; None where it is neither), whether its value
    stands in it as it is (no conversion but `s`, no format spec), and the positions it takes."""
    if style == "%":
        plain = m[2] == "" and m[3] == "s"
        return (m[1], plain, 0) if m[1] is not None else (auto, plain, 1)
    name, _, spec = m[1].partition(":")
    name, _, conversion = name.partition("!")
    name = name.removesuffix(".value")  # an enum member's value (`{0.value}`), as the member
    plain = not spec and conversion in ("", "s")
    if not name:
        return auto, plain, 1
    return (int(name) if name.isdigit() else name if name.isidentifier() else None), plain, 0


def _piece(s: Str, line: int, text: str) -> Str:
    """`text`, a piece of `s` whose first line is `s`'s line `line`, on the lines where it stands."""
    count = text.count("\n") + 1
    paths = s.line_paths()[line : line + count]
    return Str(text, s.loc, s.lines[line : line + count], literal=False, paths=own_paths(paths, s.loc))


def fed_by(
    fmt: Fmt, resolve: Callable[[Value], Value | None], item: Callable[[DictV, str], Item | None]
) -> Callable[[int | str], Str | None]:
    """What a template's slot is fed, by its place or its name, where it is a known string
    (`resolve`d): `.format`'s arguments; `%`'s one value, tuple or dict (`item`)."""
    table: DictV | None = None
    if fmt.style == "%":
        fed = resolve(fmt.args[0]) if fmt.args else None
        table = fed if isinstance(fed, DictV) else None
        places = list(fed.items) if isinstance(fed, Seq) else [] if table else list(fmt.args)
        named: dict[str, Value] = {}
    else:
        pairs = list(zip(fmt.names, fmt.args, strict=True))
        named = {n: a for n, a in pairs if n not in ("", "*", "**")}
        spread = resolve(fmt.args[0]) if fmt.names[:1] == ("*",) and fmt.names.count("*") == 1 else None
        # A spread's items stand first (`.format(*LINES, ...)`, a tuple binding reads), else
        # none is known by its place.
        places = [a for n, a in pairs if not n]
        places = [*spread.items, *places] if isinstance(spread, Seq) else [] if "*" in fmt.names else places

    def value_of(key: int | str) -> Str | None:
        if isinstance(key, str):
            entry = item(table, key) if table is not None else None
            arg = entry.value if entry is not None else named.get(key)
        else:
            arg = places[key] if key < len(places) else None
        found = resolve(arg) if arg is not None else None
        return found if isinstance(found, Str) else None

    return value_of


def transformed(op: str, base: Str) -> Str:
    """`base` after a string transform (`Op`): dedent, cleandoc, strip, ...; its lines and
    paths shifted to where the text still stands."""
    if op == "dedent":
        import textwrap

        return Str(textwrap.dedent(base.value), base.loc, base.lines, literal=False, paths=base.paths)
    if op == "cleandoc":
        import inspect

        new = inspect.cleandoc(base.value)
    else:
        new = getattr(base.value, op)()
    paths = shift(base.value, new, base.paths) if base.paths else ()
    return Str(new, base.loc, shift(base.value, new, base.lines), literal=False, paths=paths)


def is_empty(value: Value | None) -> bool:
    """`None`, `{}`, `[]`, `""`: what `x or default` passes over."""
    if isinstance(value, Const):
        return value.kind == ValueKind.NULL
    return (isinstance(value, (DictV, Seq)) and not value.items) or (
        isinstance(value, Str) and not value.value
    )
