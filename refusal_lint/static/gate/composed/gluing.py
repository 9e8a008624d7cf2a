"""A prompt value that may compose a card id or a near miss of one that no piece of it
holds (`FAMILY + "-mixx"`: a literal's piece glued to a name's value; text/glues.py). Only
the reading that composes the value sees such a token: the file is read then (DESIGN §2
"What is read": the shortcuts change no output). Asked of what the value is composed from
in its own module (reach.py follows what it imports)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from refusal_lint.static.gate.composed.grown import changing
from refusal_lint.static.gate.composed.passed import function_of, value_span
from refusal_lint.static.gate.composed.reach import (
    INSTANCE,
    bound_lines,
    class_attrs,
    def_lines,
    is_class,
    is_def,
    member,
)
from refusal_lint.static.gate.composed.statements import KEYWORDS, Code, code_of
from refusal_lint.static.gate.relevance import Relevance
from refusal_lint.static.gate.text.glues import glue

NAMES = 256  # names followed from one value; past it, in doubt: the file is read

May = Callable[[bytes | None], bool]  # may a glued piece be part of a card id or a near miss?


def glued(data: bytes, shapes: list[re.Match[bytes]], relevance: Relevance | None) -> bool:
    """May a prompt value of the file compose a card id or a near miss of one that no piece
    of it holds? Its value, and what it is composed from in the module: the statements
    binding the names it reads (module constants, its function's locals, a class's
    attributes read as `self.X`), the functions it calls, in turn. A piece that can be in
    no id is passed over."""
    may: May = relevance.in_an_id if relevance is not None else _anything
    if not any(may(p) for p in glue(data)):
        return False  # no glue of the file's can make an id: where it stands does not matter
    code = code_of(data)
    for m in shapes:
        i = code.token_at(m.start())
        if i >= 0 and code.starts[i] != m.start():
            continue  # in a string or a comment
        start, end = value_span(code, m)
        own = function_of(code, code.statement(m.start())[0])
        if composes(code, [(start, end)], own, may):
            return True
    return False


def composes(code: Code, spans: list[tuple[int, int]], own: tuple[int, int] | None, may: May) -> bool:
    """Does a glue that `may` be part of an id stand in `spans`, or in what binds the names
    they read in the module, in turn (`own`: the function whose locals they may read)? A
    superset of what binding composes: every name read (callees and a call's arguments
    too), a function's returns and the locals they read."""
    todo = [(s, e, own) for s, e in spans]
    seen: set[tuple[str, tuple[int, int] | None]] = set()
    while todo:
        start, end, scope = todo.pop()
        if any(may(p) for p in glue(code.data, start, end)):
            return True
        for name in code.names(start, end) - KEYWORDS:
            head, _, rest = name.partition(".")
            key = (name if head in INSTANCE else head, scope)
            if key in seen:
                continue
            seen.add(key)
            if len(seen) > NAMES:
                return True
            todo.extend(_binding_spans(code, head, rest.partition(".")[0], scope))
    return False


def _binding_spans(
    code: Code, head: str, attr: str, scope: tuple[int, int] | None
) -> Iterator[tuple[int, int, tuple[int, int] | None]]:
    """Where `head` (`self.attr`: a class's `attr`) may be bound in the module, and the
    function whose locals each reads: the assignments of `scope` (the function read), the
    module's statements, a class's attribute, the returns of a function of that name (a
    method, a nested one too)."""
    data = code.data
    name = attr if head in INSTANCE else head
    if not name:
        return
    if head in INSTANCE:
        for qualified in class_attrs(data, name):
            owner = qualified.partition(".")[0]
            for start in bound_lines(data, owner):
                line = member(data, start, code.block(start), name) if is_class(data, start) else None
                if line is not None:
                    yield (line, code.statement(line)[1], None)
    else:
        if scope is not None:
            yield from ((s, e, scope) for s, e in code.assigning(name, scope) or ())
        yield from ((s, e, scope) for s, e in changing(code, name, scope))
        for start in bound_lines(data, name):
            if code.token_at(start) < 0 and not is_def(data, start) and not is_class(data, start):
                yield (start, code.statement(start)[1], None)
    for line in def_lines(data).get(name, ()):
        if code.token_at(data.index(b"def", line)) < 0:
            block = (line, code.block(line))
            yield from ((s, e, block) for s, e in code.returned(*block))


def _anything(piece: bytes | None) -> bool:
    return True
