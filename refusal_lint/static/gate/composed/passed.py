"""The names a Python prompt candidate's value reads (composed/__init__.py): a prompt passed
whole from a name (`Agent(instructions=POLICY)`, `SYSTEM_PROMPT = LEAD + RULES`), whose
words of refusing and rule lines stand where those names are bound, in this module or
another."""

from __future__ import annotations

import keyword
import re

from refusal_lint.static.gate.composed.reach import LISTED, REFUSING, bound_lines, held, is_class
from refusal_lint.static.gate.composed.statements import Code, code_of
from refusal_lint.static.gate.imports import bindings_of

_DEF = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]", re.M)
KEYWORDS = frozenset(keyword.kwlist)  # no name a value is read from
_OPENERS = (b"(", b",", b'"', b"'")  # the last byte of a call's, a role's or a tuple's shape
CONSTANTS = 16  # module constants followed back from one value; past it, all are read


def passed(data: bytes, shapes: list[re.Match[bytes]]) -> dict[str, list[str]]:
    """For each prompt shape of the file (prefilter.prompt_shapes) whose value reads a name
    imported from another module (at the module's level, also through the module constants
    it reads), the names it reads, for reach.py to follow, by what the value still lacks to
    list rules (`LISTED`, `REFUSING`, or both, joined by a blank): what its own text cannot
    hold, their bindings must. A value built from its own module's strings alone is read by
    `relevance` and `leadins` already."""
    code = code_of(data)
    imported: frozenset[str] | None = None
    out: dict[str, set[str]] = {}
    for m in shapes:
        i = code.token_at(m.start())
        if i >= 0 and code.starts[i] != m.start():
            continue  # in a string or a comment (a docstring's `system (`), not at its quote
        start, end = _value(code, m)
        names = code.names(start, end, values=True) - KEYWORDS
        if not names:
            continue
        if imported is None:
            imported = frozenset(local for local, _, _, _ in bindings_of(data))
        first = code.statement(m.start())[0]
        module_level = data[first : first + 1] not in b" \t"
        names = _outward(code, names, imported, module_level)
        if not names:
            continue
        # In a function, its locals may hold the rest (`items = "- x-y: ..."`): its text counts.
        own = None if module_level else code.enclosing(first)
        has = held(data[start:end] if own is None else data[own[0] : own[1]])
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
    if shape in _OPENERS:
        return pos, code.value_end(pos, last, commas=False)
    found = _DEF.search(code.data, pos)  # a decorator: the function it decorates
    return (pos, last) if found is None else (found.start(), code.block(found.start()))


def _outward(code: Code, names: set[str], imported: frozenset[str], module_level: bool) -> set[str]:
    """The names reach.py is to follow from a value reading `names`, where one of them is
    imported (any, after a star import), or, for a value at the module's level (a statement
    at column 0), leads to one through the module constants it reads (`RULES = ITEMS`), in
    turn; empty where no imported name is reached. A function's locals are not followed
    (`text = POLICY`, then `instructions=text`, is a known gap: following them cost a tenth
    of a run)."""
    if "*" in imported or any(n.partition(".")[0] in imported for n in names):
        return names
    if not module_level:
        return set()
    todo = sorted(names)
    seen = set(todo)
    while todo:
        if len(seen) > CONSTANTS:
            return seen  # past the budget: in doubt, all of them
        name = todo.pop()
        if name.partition(".")[0] in imported:
            return seen
        for read in _bound_from(code, name.partition(".")[0]) - seen:
            seen.add(read)
            todo.append(read)
    return set()


def _bound_from(code: Code, name: str) -> set[str]:
    """The names the module-level statements assigning `name` read (not a class's: binding
    composes no instance of one)."""
    out: set[str] = set()
    for start in bound_lines(code.data, name):
        if code.token_at(start) < 0 and not is_class(code.data, start):
            out |= code.names(start, code.statement(start)[1], values=True) - KEYWORDS - {name}
    return out
