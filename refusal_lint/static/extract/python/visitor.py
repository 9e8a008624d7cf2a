"""Facts of one Python file, read with libcst (imported here only, inside workers).

Everything is recorded symbolically (see core/facts.py); nothing of the user's code is run. One
visit does it all: the value builder (values.py) with definitions (defs.py) and
recognisers (calls.py) on top.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from refusal_lint.core import sourcetext
from refusal_lint.core.facts import FileFacts, Str
from refusal_lint.core.kinds import FileKind
from refusal_lint.static.extract.positions import Positions
from refusal_lint.static.extract.python.calls import Recognisers
from refusal_lint.static.extract.python.content import ContentPrompts
from refusal_lint.static.extract.python.defs import Definitions


class _Extractor(ContentPrompts, Definitions, Recognisers):
    """Definitions and recognisers over one shared state, in one visit of the module."""


def extract(
    path: str, text: str, guard_callables: tuple[str, ...] = (), ids: tuple[str, ...] = ()
) -> FileFacts:
    """Facts of a Python file; raises libcst's ParserSyntaxError (or SyntaxError) when
    unreadable. `ids`: the cards' rule ids, which make strings that mention them prompts."""
    module = cst.parse_module(text)
    ex = _Extractor(path, module, Positions(module), guard_callables)
    ex.content_ids = frozenset(ids)
    module.visit(ex)
    exts = ex.exts
    if len(ex.all_cards) == 1:
        # `capabilities = AgentCapabilities(extensions=[...])` built before `AgentCard(name=...)`,
        # or `card.capabilities.extensions.append(AgentExtension(...))` after it: the file's one
        # card holds the extension and names the agent (a second declaration is RL108).
        exts = [
            dataclasses.replace(
                e,
                agent_name=e.agent_name or ex.all_cards[0].name,
                card=ex.all_cards[0].ident if e.card == path else e.card,
            )
            for e in exts
        ]
    return FileFacts(
        path=path,
        kind=FileKind.PYTHON,
        py_exts=tuple(exts),
        py_prompts=tuple(ex.prompts),
        guards=tuple(ex.guards),
        protocol_errors=tuple(ex.error_uses),
        defs=tuple(ex.defs.items()),
        imports=tuple(ex.imports.items()),
        suppressions=tuple(ex.suppressions),
        string_lines=_string_lines([ex.prompts, tuple(ex.defs.values()), ex.calls, ex.ctor_calls], text),
        ctor_calls=tuple(ex.ctor_calls),
        calls=tuple(ex.calls),
    )


def _string_lines(values: list[object], text: str) -> tuple[tuple[int, str], ...]:
    """The file's text of each line that a string among `values` stands on."""
    wanted: set[int] = set()
    stack = list(values)
    while stack:
        v = stack.pop()
        if isinstance(v, Str):
            wanted.update(v.lines or (v.loc.line,))
        elif isinstance(v, (tuple, list)):
            stack.extend(v)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
    if not wanted:
        return ()
    lines = sourcetext.lines(text)
    return tuple((n, lines[n - 1]) for n in sorted(wanted) if 0 < n <= len(lines))
