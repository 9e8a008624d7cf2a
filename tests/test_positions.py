"""Our cheap positions agree with libcst's PositionProvider on every node."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from conftest import fixture_repo, names
from hypothesis import given, settings
from hypothesis import strategies as st
from libcst.metadata import MetadataWrapper, PositionProvider

from refusal_lint.static.extract.positions import Positions

TRICKY = '''\
# header comment
"""Doc."""
import textwrap  # trailing


@decorator(arg="x")
class A(Base):
    X = f"{BASE}/refusals/{V}"  # refusal-lint: ignore[RL304]

    def m(self, rule, *a, **kw):
        return refuse(rule, detail=(
            "implicit"
            "concatenation"
        )), {"rule": "seg-mix", **kw}
'''


def _check(source: str) -> None:
    module = cst.parse_module(source)
    ref = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ours = Positions(module)
    for node, r in ref.items():
        assert ours.get(node) == (r.start.line, r.start.column, r.end.line, r.end.column), node


# Every Python file of every fixture case (the variants written from their tables too), by case/path.
FIXTURE_PY = {
    f"{n}/{p.relative_to(fixture_repo(n))}": p for n in names() for p in sorted(fixture_repo(n).rglob("*.py"))
}


@pytest.mark.parametrize("path", list(FIXTURE_PY.values()), ids=list(FIXTURE_PY))
def test_agrees_on_testdata(path: Path) -> None:
    try:
        source = path.read_text(encoding="utf-8")
        cst.parse_module(source)
    except (UnicodeDecodeError, cst.ParserSyntaxError, ValueError):
        pytest.skip("not parseable: nothing to position")
    _check(source)


def test_agrees_on_tricky_code() -> None:
    _check(TRICKY)
    _check(TRICKY.replace("\n", "\r\n"))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from([*TRICKY.splitlines(keepends=True)[:4], "x = 1\n", "\n", "# c\n"]), max_size=12)
)
def test_agrees_on_shuffled_lines(lines: list[str]) -> None:
    _check("".join(lines))
