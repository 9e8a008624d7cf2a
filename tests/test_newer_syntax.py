"""Newer Python read by this one (extract/python/newer.py): PEP 695 rewritten in place."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import libcst
import pytest
from hypothesis import given
from hypothesis import strategies as st

from refusal_lint.static.extract.python import newer

_NAMES = st.sampled_from(["T", "K", "V", "RuleId", "Pair", "_X"])
_BOUNDS = st.sampled_from(["", ": int", ": (int, str)", " = int" if sys.version_info >= (3, 13) else ""])


@st.composite
def _pep695(draw: st.DrawFn) -> str:
    """A module mixing aliases, generic functions and classes with ordinary lines."""
    out = ['RULE = "seg-mix"']
    for _ in range(draw(st.integers(1, 5))):
        params = ", ".join(f"{draw(_NAMES)}{draw(_BOUNDS)}" for _ in range(draw(st.integers(1, 3))))
        kind = draw(st.sampled_from(["alias", "generic-alias", "def", "class", "method"]))
        name = draw(_NAMES)
        if kind == "alias":
            out.append(f"type {name} = list[str]")
        elif kind == "generic-alias":
            out.append(f"type {name}[{params}] = dict[str, str]")
        elif kind == "def":
            out.append(f"def f_{len(out)}[{params}](x: int) -> str:\n    return refuse(RULE, detail='x')")
        elif kind == "class":
            out.append(f"class C{len(out)}[{params}](object):\n    rule = 'seg-mix'")
        else:
            out.append(f"class M{len(out)}:\n    def m[{params}](self) -> None:\n        type Inner = int")
    return "\n".join(out) + "\n"


@given(_pep695())
def test_a_rewrite_keeps_every_line_and_column_and_parses(text: str) -> None:
    module = libcst.parse_module(text)
    out = newer.rewritten(module, text)
    assert out is not None
    assert len(out) == len(text)
    assert [len(line) for line in out.splitlines()] == [len(line) for line in text.splitlines()]
    tree = ast.parse(out)  # this Python reads it
    # Every string stands where it stood: the rewrite touched names and brackets only.
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            line = text.splitlines()[node.lineno - 1]
            assert line[node.col_offset : node.end_col_offset].strip("'\"") == node.value
    if sys.version_info >= (3, 12):
        # Where this Python reads the original too, the rewrite names the same things.
        names = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
        assert {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} <= names


@pytest.mark.parametrize(
    "text",
    [
        "type X[\n    T,\n] = list[T]\n",  # a line break inside the span: no rewrite of the same length
        "def f[\n    T\n](x: T) -> T:\n    return x\n",
        "x = 1\n",  # nothing newer
    ],
)
def test_no_rewrite_where_none_keeps_the_file_valid(text: str) -> None:
    assert newer.rewritten(libcst.parse_module(text), text) is None


def test_an_alias_becomes_an_assignment_in_place() -> None:
    text = "type Pair[K, V] = tuple[K, V]\n"
    assert newer.rewritten(libcst.parse_module(text), text) == "Pair =" + " " * 12 + "tuple[K, V]\n"


def test_a_syntax_error_is_no_newer_syntax() -> None:
    assert newer.parses("def f(:\n", "invalid syntax") is None
    assert newer.parses("x = (" * 300, "too many nested parentheses") is None


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 parses PEP 695 itself")
def test_a_reason_in_a_module_of_newer_python_is_fixed(tmp_path: Path) -> None:
    """A `type X = ...` alias elsewhere in the module: --fix reads the file as extraction
    does (the same lines and columns), so the drifted reason is still rewritten."""
    from conftest import Repo, run_cli

    repo = Repo(tmp_path)
    repo.card()
    repo.tools()
    repo.write(
        "agent/prompts.py",
        '''
        type Cuts = list[str]

        SYSTEM_PROMPT = """You are the survey analyst. Refuse these and name the rule:
        - seg-mix: Families cannot be mixed.
        - invalid-cut: That demographic cut is not defined for this study.
        """
        ''',
    )
    first = run_cli("check", str(tmp_path), "--no-cache", "--format", "json", cwd=tmp_path)
    assert [(f["code"], f["fixable"]) for f in json.loads(first.stdout)["findings"]] == [("RL203", True)]
    run_cli("check", str(tmp_path), "--no-cache", "--fix", cwd=tmp_path)
    fixed = (tmp_path / "agent" / "prompts.py").read_text()
    assert "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut." in fixed
    assert fixed.startswith("type Cuts = list[str]\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('x = f"offer {offer["id"]} is unpaid"\n', 'x = f"offer {___________} is unpaid"\n'),
        ("x = f'{a[\"k\"]!r:>10} and {b}'\n", "x = f'{______!r:>10} and {b}'\n"),
        ('x = f"{"\\n".join(rows)}"\n', 'x = f"{_______________}"\n'),
    ],
)
def test_a_pep701_field_becomes_a_name_in_place(text: str, expected: str) -> None:
    """PEP 701 (3.12): a field's expression may hold the string's own quote, a backslash
    or a comment. It becomes a name of underscores of its length: a value known at run
    time, the string's text and every other column kept."""
    out = newer.rewritten(libcst.parse_module(text), text)
    assert out == expected
    ast.parse(out)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 parses PEP 701 itself")
def test_a_guard_in_a_module_of_pep701_fstrings_is_read(tmp_path: Path) -> None:
    """`detail=f"offer {offer["id"]} ..."` beside the guard: the file was RL005 (unchecked),
    and its guard's rule unfired (a false RL301); it is read, in both modes alike."""
    from conftest import Repo, check_json
    from test_differential import differential

    repo = Repo(tmp_path)
    root = repo.agent().root
    tools = root / "agent" / "tools.py"
    text = tools.read_text()
    assert 'detail="families crossed"' in text
    tools.write_text(text.replace('detail="families crossed"', 'detail=f"families {q["families"]} crossed"'))
    assert check_json(root)["findings"] == []
    differential(root)
