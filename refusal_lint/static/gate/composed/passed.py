"""The names a Python prompt candidate's value reads (composed/__init__.py): a prompt passed
whole from a name (`Agent(instructions=POLICY)`, `SYSTEM_PROMPT = LEAD + RULES`), whose
words of refusing and rule lines stand where those names are bound, in this module or
another."""

from __future__ import annotations

import re

from refusal_lint.static.gate.composed.leadins import IN_DOUBT
from refusal_lint.static.gate.composed.reach import (
    INSTANCE,
    LISTED,
    REFUSING,
    bound_lines,
    class_attrs,
    held,
    is_class,
    is_def,
    member,
    spans_of,
)
from refusal_lint.static.gate.composed.statements import (
    COMPOSING,
    DEF_LINE,
    DOTTED,
    KEYWORDS,
    RETURN,
    Code,
    code_of,
)
from refusal_lint.static.gate.imports import bindings_of
from refusal_lint.static.gate.text.lowered import name_at

# A value that is a call (`build_instruction()`, `await self.render(ctx)`): its callee.
_CALLED = re.compile(rb"[ \t\r\n(]*(?:await[ \t]+)?(" + DOTTED.pattern + rb")[ \t]*\(")
_CALL_OR_TUPLE = (b"(", b",")  # the last byte of a system call's or a tuple's shape: its value follows
CONSTANTS = 16  # module constants followed back from one value; past it, all are read
LOCALS = 64  # names a function's locals are followed to from one value; past it, read in doubt


def passed(data: bytes, shapes: list[re.Match[bytes]]) -> dict[str, list[str]]:
    """For each prompt shape of the file (text/shapes.py `prompt_shapes`) whose value reads a name
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
        start, end = value_span(code, m)
        names = code.names(start, end, values=True) - KEYWORDS | callee(data, start, end)
        if not names:
            continue
        if imported is None:
            imported = frozenset(local for local, _, _, _ in bindings_of(data))
        first = code.statement(m.start())[0]
        indented = data[first : first + 1] in b" \t"
        # In a function, its locals may pass an imported prompt on (`text = POLICY`, then
        # `instructions=text`), or hold the rest (`items = "- x-y: ..."`).
        heads = {n.partition(".")[0] for n in names}
        via_locals = indented and not heads <= imported | INSTANCE
        own = function_of(code, first) if via_locals else None
        names = _outward(code, names, imported, own)
        if not names:
            continue
        if indented and not via_locals:
            own = function_of(code, first)
        has = held(data[start:end] if own is None else data[own[0] : own[1]])
        out.setdefault(" ".join(w for w in (LISTED, REFUSING) if w not in has), set()).update(names)
    return {need: sorted(names) for need, names in sorted(out.items())}


def callee(data: bytes, start: int, end: int) -> set[str]:
    """The prompt function a value calls (`build_instruction()`, `await self.render(ctx)`),
    which binding follows; none for a call it composes text through (`dedent(X)`)."""
    called = _CALLED.match(data, start, end)
    return set() if called is None or called[1].rpartition(b".")[2] in COMPOSING else {called[1].decode()}


def function_of(code: Code, first: int) -> tuple[int, int] | None:
    """The block whose locals the statement at `first` may read: the `def` or `class`
    holding it, or the outermost function around that (a closure reads its enclosing
    functions' locals, across a class defined in one too; a method, not its class's)."""
    own = outer = code.enclosing(first)
    while outer is not None and code.data[outer[0] : outer[0] + 1] in b" \t":
        outer = code.enclosing(outer[0])
        if outer is not None and not is_class(code.data, outer[0]):
            own = outer
    return own


def value_span(code: Code, m: re.Match[bytes]) -> tuple[int, int]:
    """Where the value of a prompt shape stands: after `name =` or `"key":`, to the end of
    the statement (an assignment) or of the argument or item; a system call's arguments; a
    role's message (`{"role": "system", ...}`, `("system", ...)`, `ChatMessage(role=...,`)
    to its closing bracket;
    a prompt function's body (`@agent.system_prompt`)."""
    first, last = code.statement(m.start())
    pos = m.end()
    shape = code.data[pos - 1 : pos]
    if shape == b"=":
        return pos, code.value_end(pos, last, commas=code.depth_in(first, m.start()) > 0)
    if shape == b":":
        return pos, code.value_end(pos, last, commas=True)
    if code.data[m.start()] == 64:  # `@`: a decorator, and the function it decorates
        found = DEF_LINE.search(code.data, pos)
        return (pos, last) if found is None else (found.start(), code.block(found.start()))
    if shape not in _CALL_OR_TUPLE:
        # A role's message (its shape ends at a quote or an enum member): its whole dict or
        # call (`{"content": P, "role": "system"}`, `ChatMessage(content=P, role=MessageRole.SYSTEM)`).
        pos = code.opener(first, m.start()) + 1
    return pos, code.value_end(pos, last, commas=False)


def _outward(code: Code, names: set[str], imported: frozenset[str], own: tuple[int, int] | None) -> set[str]:
    """The names reach.py is to follow from a value reading `names`: where one of them is
    imported (any, after a star import), or leads to one through the module constants it
    reads (`RULES = ITEMS`), in turn; empty where no imported name is reached. A value in a
    function (`own`: its block) reads its locals' names too (`text = POLICY`, then
    `instructions=text`): reach.py follows no local, so they are followed here, to the
    names of the module and its imports they read."""
    if own is not None:
        names = _through_locals(code, names, imported, own)
    if "*" in imported or IN_DOUBT in names or any(n.partition(".")[0] in imported for n in names):
        return names
    todo = sorted(names)
    seen = set(todo)
    while todo:
        if len(seen) > CONSTANTS:
            return seen  # past the budget: in doubt, all of them
        name = todo.pop()
        if name.partition(".")[0] in imported:
            return seen
        for read in _bound_from(code, name) - seen:
            seen.add(read)
            todo.append(read)
    return set()


def _through_locals(code: Code, names: set[str], imported: frozenset[str], own: tuple[int, int]) -> set[str]:
    """`names` and those the function's statements assigning them read, in turn, less the
    function's own locals: the names of the module and its imports the value may read (its
    locals' text is the value's own: passed() asks it whole). Past the budget, in doubt."""
    todo = sorted(names)
    seen = set(todo)
    local: set[str] = set()
    while todo:
        if len(seen) > LOCALS:
            return {*seen, IN_DOUBT}
        head = todo.pop().partition(".")[0]
        if head in imported or head in local or head in INSTANCE:
            continue
        reads = _local_from(code, head, own)
        if reads is None:
            continue
        local.add(head)
        for read in reads - seen:
            seen.add(read)
            todo.append(read)
    if b"global" in code.data[own[0] : own[1]]:
        return seen  # `global NAME`: a name assigned here may be the module's too
    return {n for n in seen if n.partition(".")[0] not in local}


def _local_from(code: Code, name: str, own: tuple[int, int]) -> set[str] | None:
    """The names the statements of a function's block (`own`) that assign `name` read, as
    binding composes them (`text = POLICY + ask(x)` reads POLICY, not x); None where none
    assigns it (no local)."""
    spans = code.assigning(name, own)
    if spans is None:
        return None
    return {n for s, e in spans for n in code.composed_names(s, e)} - KEYWORDS - {name}


def _bound_from(code: Code, name: str) -> set[str]:
    """The names what `name` holds may be read from: the module-level statements assigning
    it; for `Class.attr` (`self.attr`, `cls.attr`: a class of the module's), the class body's
    statements assigning `attr`; for a function passed by name (`instructions=dynamic`,
    `instructions=self.dynamic`), the names its `def` reads (binding reads what it returns)."""
    head, _, rest = name.partition(".")
    attr = rest.partition(".")[0]
    out: set[str] = set()
    if head in INSTANCE:
        for qualified in class_attrs(code.data, attr) if attr else ():
            out |= _bound_from(code, qualified)
        return out | _def_reads(code, attr) if attr else out
    for start in bound_lines(code.data, head):
        if code.token_at(start) >= 0:
            continue
        if not is_class(code.data, start):
            out |= _reads(code, start) - {head}
        elif attr and (line := member(code.data, start, code.block(start), attr)) is not None:
            out |= _reads(code, line) - {head}
    return out


def _reads(code: Code, start: int) -> set[str]:
    """The names the binding at `start` reads (reach.spans_of): an assignment's value; what
    a function returns, as binding composes it (a call's result stands as a placeholder, its
    callee is a prompt function binding may follow)."""
    if not is_def(code.data, start):
        return {n for s, e in spans_of(code, start) for n in code.names(s, e, values=True)} - KEYWORDS
    out: set[str] = set()
    for s, e in spans_of(code, start):
        out |= code.composed_names(s, e)
        returned = RETURN.match(code.data, s)
        if returned is not None:
            out |= callee(code.data, returned.end(), e)  # `return build_prompt(x)`
    return out - KEYWORDS


def _def_reads(code: Code, name: str) -> set[str]:
    """The names the methods called `name` read in what they return."""
    out: set[str] = set()
    word = name.encode()
    for at in name_at(code.data, word):
        line = code.data.rfind(b"\n", 0, at) + 1
        lead = code.data[line:at]
        if (
            lead.endswith(b"def ")
            and code.data[at + len(word) : at + len(word) + 1] in (b"(", b" ")
            and lead[:-4].strip(b" \t") in (b"", b"async")
            and lead[:1].isspace()
            and code.token_at(at) < 0
        ):
            out |= _reads(code, line) - {name}
    return out
