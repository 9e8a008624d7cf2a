"""pystrings reads a Python file's strings from its text: what `ast` would give, and at
least everything that can be prompt text (python_lists_rules is sound only so)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import ROOT, TESTDATA
from hypothesis import given, settings
from hypothesis import strategies as st

from refusal_lint.static.gate.text import listing, pystrings


def ast_lists_rules(data: bytes) -> bool:
    """The `ast` spelling pystrings replaces: every str constant that is no docstring, bare
    string statement or reason=/detail= value, in source order, f-string fields as slots."""
    tree = ast.parse(data)
    skip: set[int] = set()
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        statement = isinstance(node, ast.Expr) and isinstance(node.value, (ast.Constant, ast.JoinedStr))
        payload = isinstance(node, ast.keyword) and node.arg in ("reason", "detail")
        if statement or payload:
            skip.update(id(n) for n in ast.walk(node.value))  # type: ignore[attr-defined]
        elif isinstance(node, ast.JoinedStr) and id(node) not in skip:
            skip.update(id(n) for n in ast.walk(node))
            text = "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
            found.append((node.lineno, node.col_offset, text))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found.append((node.lineno, node.col_offset, node.value))
    parts = [f[2] for f in sorted(found, key=lambda f: (f[0], f[1]))]
    return listing.strings_list_rules([p.encode("utf-8", "surrogatepass") for p in parts])


def test_what_is_left_out_and_what_is_kept() -> None:
    data = b'''"""Module docstring: refuse these.

- seg-mix: not a prompt
"""
import x  # - a-b: a comment "with quotes"

class A:
    """Class docstring."""

    def f(self):
        "bare statement"
        return refuse("seg-mix", reason="a reason", detail=f"a {detail}")


PROMPT = (
    "Refuse these:\\n"
    'it\\'s "quoted"\\n'
    f"- {RULE}: a slot"
)
DATA = b"- x-y: bytes"
LONG = """one
two"""
OTHER = "a" \\
    "continued"
'''
    assert pystrings.strings(data) == [
        b"seg-mix",
        b"Refuse these:\\n",
        b'it\\\'s "quoted"\\n',
        b"- {RULE}: a slot",
        b"one\ntwo",
        b"a",
        b"continued",
    ]


_PIECES = [
    '"""Refuse these:\\n- seg-mix: a doc."""\n',
    "x = 1\n",
    "PROMPT = (\n    'Refuse these computations:\\n'\n    '- zodiac-sign: No star signs.'\n)\n",
    "P = 'Refuse: ' + extra + '\\n- moon-cut: No moon phases.'\n",
    "# refuse these\n# - a-b: c d\n",
    "f(reason='- a-b: will not do', detail='x')\n",
    "def g():\n    'never - a-b: docstring'\n    return 1\n",
    "Q = f'Never do these:\\n- {R}: {S}'\n",
    "B = b'refuse - a-b: c d'\n",
    "L = ['Refuse these:', '- k-v: a reason here']\n",
    "S = '''Will not:\n- p-q: multi line'''\n",
    "T = 'x' \\\n    'refuse - r-s: joined lines'\n",
    "U = {'x-y': 'a value here', 'refuse': 1}\n",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_every_list_ast_finds_is_found(pieces: list[str]) -> None:
    data = "".join(pieces).encode()
    if ast_lists_rules(data):
        assert listing.python_lists_rules(data)


_SOURCES = sorted(p for base in (TESTDATA, ROOT / "refusal_lint", ROOT / "tests") for p in base.rglob("*.py"))


@pytest.mark.parametrize("path", _SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_list_ast_finds_is_found_in_real_files(path: Path) -> None:
    data = path.read_bytes()
    try:
        expected = ast_lists_rules(data)
    except (SyntaxError, ValueError):  # ValueError: a NUL byte, on early 3.11 releases
        pytest.skip("not Python the running CPython reads")
    if expected:
        assert listing.python_lists_rules(data)


# The token regex pystrings had, with the prefix before the quote: the engine tried it at
# every offset. The group-free one, and the prefix read back from the quote, find the same.
_PREFIXED = re.compile(rb"(#[^\r\n]*)|([rRbBuUfF]{0,2})(" + pystrings._STRING + rb")")


_BITS = ["r", "b", "F", "u", "x", "_", '"', "'", '"""', "#", "\\", "\n", " ", "(", "a"]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_BITS)))
def test_tokens_are_the_prefixed_regex_tokens(pieces: list[str]) -> None:
    data = "".join(pieces).encode()
    old = [(m.start(), m.end(), m[1] is not None) for m in _PREFIXED.finditer(data)]
    new = []
    last = 0
    for m in pystrings._TOKEN.finditer(data):
        comment = data[m.start()] == ord("#")
        new.append((m.start() if comment else pystrings._prefix(data, last, m.start()), m.end(), comment))
        last = m.end()
    assert new == old
