"""The names a Python prompt candidate's value reads (composed/__init__.py): a prompt passed
whole from a name (`Agent(instructions=POLICY)`, `SYSTEM_PROMPT = LEAD + RULES`), whose
words of refusing and rule lines stand where those names are bound, in this module or
another."""

from __future__ import annotations

import keyword
import re

from refusal_lint.static.gate.composed.reach import LISTED, REFUSING, held
from refusal_lint.static.gate.composed.statements import AFTER_TARGET, Code, code_of
from refusal_lint.static.gate.imports import bindings_of
from refusal_lint.static.gate.lowered import WORD_CODES

_DEF = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]", re.M)
_KEYWORDS = frozenset(keyword.kwlist)
LOCALS = 16  # local names followed back from one value; past it, no more


def passed(data: bytes, shapes: list[re.Match[bytes]]) -> dict[str, list[str]]:
    """For each prompt shape of the file (prefilter.prompt_shapes), the names its value
    reads that reach.py can follow, by what the value still lacks to list rules (`LISTED`,
    `REFUSING`, or both, joined by a blank): what its own text cannot hold, their bindings
    must."""
    code = code_of(data)
    imported: set[str] | None = None
    out: dict[str, set[str]] = {}
    for m in shapes:
        start, end = _value(code, m)
        names = code.names(start, end, values=True) - _KEYWORDS
        if not names:
            continue
        if imported is None:
            imported = {local for local, _, _, _ in bindings_of(data)}
        names = _followed(code, names, imported, start)
        if names:
            has = held(data[start:end])
            out.setdefault(" ".join(w for w in (LISTED, REFUSING) if w not in has), set()).update(names)
    return {need: sorted(names) for need, names in sorted(out.items())}


def _value(code: Code, m: re.Match[bytes]) -> tuple[int, int]:
    """Where the value of a prompt shape stands: after `name =` or `"key":`, to the end of
    the statement (an assignment) or of the argument or item; a system call's arguments; a
    role's message (`{"role": "system", ...}`, `("system", ...)`) to its closing bracket;
    a prompt function's body (`@agent.system_prompt`)."""
    first, last = code.statement(m.start())
    pos = m.end()
    shape = code.data[pos - 1 : pos]
    if shape == b"=":
        return pos, code.value_end(pos, last, commas=code.depth_in(first, m.start()) > 0)
    if shape == b":":
        return pos, code.value_end(pos, last, commas=True)
    if shape in (b"(", b",", b'"', b"'"):
        return pos, code.value_end(pos, last, commas=False)
    found = _DEF.search(code.data, pos)  # a decorator: the function it decorates
    return (pos, last) if found is None else (found.start(), code.block(found.start()))


def _followed(code: Code, names: set[str], imported: set[str], at: int) -> set[str]:
    """Of `names`, read at `at`, those imported (any, after a star import), and those its
    local names are assigned from in the function it stands in (`text = POLICY`, then
    `instructions=text`), in turn. A prompt passed whole from a constant of its own module
    is one of its strings, which `relevance` reads already."""
    if "*" in imported:
        return names
    out = {n for n in names if n.partition(".")[0] in imported}
    todo = sorted(n for n in names if "." not in n and n not in imported)
    if not todo:
        return out
    scope = code.scope(at)
    if scope == (0, len(code.data)):
        return out
    seen = set(todo)
    while todo and len(seen) <= LOCALS:
        for read in _assigned_from(code, todo.pop(), scope):
            if read.partition(".")[0] in imported:
                out.add(read)
            elif "." not in read and read not in seen:
                seen.add(read)
                todo.append(read)
    return out


def _assigned_from(code: Code, name: str, scope: tuple[int, int]) -> set[str]:
    """The names read by the statements of `scope` that assign `name` first on their line."""
    data, word = code.data, name.encode()
    out: set[str] = set()
    at = scope[0] - 1
    while (at := data.find(word, at + 1, scope[1])) >= 0:
        end = at + len(word)
        if data[data.rfind(b"\n", 0, at) + 1 : at].strip(b" \t") or (
            end < len(data) and data[end] in WORD_CODES
        ):
            continue  # not first on its line, or part of a longer name
        m = AFTER_TARGET.match(data, end)
        if m is not None and code.token_at(at) < 0:
            out |= code.names(m.end(), code.statement(at)[1], values=True) - _KEYWORDS
    return out
