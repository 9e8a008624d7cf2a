"""Facts of one Python file, read from CPython's own `ast` (in workers).

Everything is recorded symbolically (see core/facts.py); nothing of the user's code is run. One
walk does it all: the value builder (values.py) with definitions (defs.py) and
recognisers (calls.py) on top.
"""

from __future__ import annotations

import ast
import dataclasses

from refusal_lint.core.facts import FileFacts, Guard, Str
from refusal_lint.core.kinds import FileKind
from refusal_lint.core.model import Loc
from refusal_lint.static.extract import vocab
from refusal_lint.static.extract.python.calls import Recognisers
from refusal_lint.static.extract.python.content import ContentPrompts
from refusal_lint.static.extract.python.defs import Definitions, suppressions
from refusal_lint.static.extract.python.scopes import last_name
from refusal_lint.static.extract.python.source import Source


class _Extractor(ContentPrompts, Definitions, Recognisers):
    """Definitions and recognisers over one shared state, in one visit of the module."""

    _expecting: list[ast.AST] | None = None  # the `with pytest.raises(...)` blocks open

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        if any(vocab.expects_failure(item) for item in node.items):
            self._expecting = [*(self._expecting or ()), node]

    def leave_With(self, original_node: ast.With | ast.AsyncWith) -> None:
        if self._expecting and self._expecting[-1] is original_node:
            self._expecting.pop()

    visit_AsyncWith, leave_AsyncWith = visit_With, leave_With

    def add_guard(self, guard: Guard) -> None:
        """A guard in a test's block that expects a failure is the failure tested, no guard;
        so is a call there that a helper would bind (`emit(updater, "no-such-rule")`)."""
        if not self._expecting:
            super().add_guard(guard)

    def visit_Call(self, node: ast.Call) -> None:
        kept = len(self.calls)
        super().visit_Call(node)
        if self._expecting:
            del self.calls[kept:]

    def visit_Raise(self, node: ast.Raise) -> None:
        """`raise RawMeat` builds the class with no arguments: read as `raise RawMeat()` (its
        children are walked after this, the call among them), as Python runs it. A lowercase
        name is an instance (`raise exc`), raised as it is."""
        exc = node.exc
        if isinstance(exc, ast.Name | ast.Attribute) and (last_name(exc) or "")[:1].isupper():
            node.exc = ast.copy_location(ast.Call(exc, [], []), exc)


def extract(
    path: str,
    text: str,
    guard_callables: tuple[str, ...] = (),
    ids: tuple[str, ...] = (),
    tree: ast.Module | None = None,
) -> FileFacts:
    """Facts of a Python file; raises SyntaxError when unreadable (`tree`: the file's parsed
    `ast`, when the caller has it). `ids`: the cards' rule ids, which make strings that
    mention them prompts."""
    src = Source(path, text)
    ex = _Extractor(src, guard_callables)
    ex.content_ids = frozenset(ids)
    ex.walk(tree if tree is not None else ast.parse(text))
    ex.fill_globals()
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
        stars=tuple(ex.stars),
        suppressions=tuple(suppressions(src)),
        string_lines=_string_lines([ex.prompts, tuple(ex.defs.values()), ex.calls, ex.ctor_calls], src),
        ctor_calls=tuple(ex.ctor_calls),
        calls=tuple(ex.calls),
    )


def _string_lines(values: list[object], src: Source) -> tuple[tuple[int, str], ...]:
    """The file's text of each line that a string among `values` stands on."""
    wanted: set[int] = set()
    stack = list(values)
    while stack:
        v = stack.pop()
        cls = type(v)
        if cls is Str:
            wanted.update(v.lines or (v.loc.line,))  # type: ignore[attr-defined]
        elif cls is tuple or cls is list:
            stack.extend(v)  # type: ignore[arg-type]
        else:
            stack.extend(getattr(v, name) for name in _fields(cls))
    if not wanted:
        return ()
    lines = src.lines
    return tuple((n, lines[n - 1]) for n in sorted(wanted) if 0 < n <= len(lines))


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    """The fields of a fact class that can hold a string (a Loc holds none)."""
    found = _FIELDS.get(cls)
    if found is None:
        plain = cls is Loc or not dataclasses.is_dataclass(cls)
        found = _FIELDS[cls] = () if plain else tuple(f.name for f in dataclasses.fields(cls))
    return found
