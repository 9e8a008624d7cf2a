"""The extractor's walk (extract/python/walk.py) visits every child `ast` gives, save the
markers (`Load`, `+`, `not`, `<`), each once; the nodes it spells an order for (`_IN_ORDER`:
a dict's keys and values in turn, a function's decorators first and its signature's
annotations and defaults, not its `arguments`) are its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

from refusal_lint.static.extract.python.walk import _IN_ORDER, children, field_children, walk_fields

_MARKERS = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
_SOURCES = sorted([*(ROOT / "refusal_lint").rglob("*.py"), *(ROOT / "testdata").rglob("*.py")])


@pytest.mark.parametrize("path", _SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_children_are_the_ast_children_but_markers(path: Path) -> None:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):  # ValueError: NUL, early 3.11
        pytest.skip("a broken file of a fixture (RL002)")
    for node in ast.walk(tree):
        if type(node) in _IN_ORDER:
            continue
        wanted = [c for c in ast.iter_child_nodes(node) if not isinstance(c, _MARKERS)]
        got = children(node)
        assert sorted(map(id, got)) == sorted(map(id, wanted)), type(node).__name__


# Every list field that holds more than nodes (field_children takes the others whole).
_MIXED = """
def f(a, *, b, c=1):
    global g
    def h():
        nonlocal a
    import os.path as p, sys
    from . import x as y
    d = {**e, "k": v, None: 1}
    match d:
        case Point(1, x=0, y=[z, *rest]) | {"k": 1, **kw}:
            pass
"""


def test_field_walk_keeps_only_the_nodes_of_mixed_lists() -> None:
    tree = ast.parse(_MIXED)
    for node in ast.walk(tree):
        wanted = [c for c in ast.iter_child_nodes(node) if not isinstance(c, _MARKERS)]
        assert list(map(id, field_children(node))) == list(map(id, wanted)), type(node).__name__


@pytest.mark.parametrize("path", _SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_field_walk_is_ast_walk_but_markers(path: Path) -> None:
    """The gates' walks (`field_children`, `walk_fields`) give what `ast.iter_child_nodes` and
    `ast.walk` give, in their order, less the markers: a gate's answer, and the order of the
    calls it defers, stay the same."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):  # ValueError: NUL, early 3.11
        pytest.skip("a broken file of a fixture (RL002)")
    for node in ast.walk(tree):
        wanted = [c for c in ast.iter_child_nodes(node) if not isinstance(c, _MARKERS)]
        assert list(map(id, field_children(node))) == list(map(id, wanted)), type(node).__name__
    walked = [n for n in ast.walk(tree) if not isinstance(n, _MARKERS)]
    assert list(map(id, walk_fields(tree))) == list(map(id, walked))


def test_a_local_rebound_from_itself_is_read_without_recursion() -> None:
    """`content = Message(content)` in a function whose local is passed on: the values a
    call's argument may take are literals and names only, never its own calls again (garak
    hit the recursion limit: RL005 with shortcuts off)."""
    from refusal_lint.static.extract.python.visitor import extract

    source = (
        "def generate(result, Message, refuse):\n"
        "    content = result.get('content')\n"
        "    if content:\n"
        "        content = Message(content)\n"
        "    refuse(content)\n"
        "    rule = 'seg-mix'\n"
        "    if result:\n"
        "        rule = 'invalid-cut' if result.cut else rule\n"
        "    refuse(rule)\n"
    )
    facts = extract("agent.py", source)
    assert facts.problem is None and len(facts.guards) == 2
