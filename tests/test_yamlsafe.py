"""The YAML reader's limits (extract/data/yamlsafe.py): `within_budget`, which the default
run asks of a card candidate it settles by its text, says exactly what building the tree
says, so both runs give RL005 for the same files."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refusal_lint.static.extract.data import yamlsafe
from refusal_lint.static.extract.data.tree import TooDeep


def _trees_fail(text: str, budget: int) -> bool:
    try:
        for doc in yamlsafe.compose_all(text):
            yamlsafe.to_tree(doc, "x.yaml", budget)
    except TooDeep:
        return True
    return False


def _budget_fails(text: str, budget: int) -> bool:
    try:
        yamlsafe.within_budget(yamlsafe.compose_all(text), budget)
    except TooDeep:
        return True
    return False


@st.composite
def _documents(draw: st.DrawFn) -> str:
    """Anchored sequences and mappings, each made of scalars and aliases of the ones above
    (shared nodes, some reached many times), nested to a drawn depth."""
    lines = []
    for i in range(draw(st.integers(1, 6))):
        items = draw(
            st.lists(
                st.one_of(st.just("x"), st.integers(0, i - 1).map(lambda k: f"*a{k}") if i else st.just("y")),
                min_size=1,
                max_size=5,
            )
        )
        body = ", ".join(items)
        depth = draw(st.integers(0, 3))
        value = "[" * depth + f"[{body}]" + "]" * depth
        if draw(st.booleans()):
            value = "{k: " + value + "}"
        lines.append(f"a{i}: &a{i} {value}")
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(_documents(), st.integers(1, 60))
def test_the_budget_says_what_building_the_tree_says(text: str, budget: int) -> None:
    assert _budget_fails(text, budget) is _trees_fail(text, budget)


@pytest.mark.parametrize(
    ("text", "fails"),
    [
        ("a: " + "[" * 500 + "]" * 500, False),  # the deepest a tree is built: 500 levels below the root
        ("a: " + "[" * 501 + "]" * 501, True),
        ("a: &a [x]\nb: [*a, *a]\n", False),
        ("c: &c [*c]\n", True),  # a node that holds itself never ends
    ],
)
def test_depth_and_a_node_holding_itself(text: str, fails: bool) -> None:
    assert _budget_fails(text, yamlsafe.NODE_BUDGET) is fails
    assert _trees_fail(text, yamlsafe.NODE_BUDGET) is fails


@st.composite
def _merging(draw: st.DrawFn) -> str:
    """Anchored mappings, each merging some of the plain ones above (one, or a list), with
    keys of their own that may override merged ones. Only plain ones are merged: PyYAML
    flattens a merged mapping that merges in turn in place, so a key it overrides can come
    back (`{<<: *m1}` with `m1: {<<: *m0, a: 1}` reads m0's `a`); we read the override."""
    keys = st.sampled_from(["a", "b", "c", "d"])
    lines = []
    plain_ones: list[int] = []
    for i in range(draw(st.integers(1, 5))):
        own = draw(st.lists(keys, max_size=3, unique=True))
        body = [f"{k}: v{i}{k}" for k in own]
        if plain_ones and draw(st.booleans()):
            merged = draw(st.lists(st.sampled_from(plain_ones), min_size=1, max_size=3))
            named = f"*m{merged[0]}" if len(merged) == 1 else "[" + ", ".join(f"*m{k}" for k in merged) + "]"
            body.insert(draw(st.integers(0, len(body))), f"<<: {named}")
        else:
            plain_ones.append(i)
        lines.append(f"m{i}: &m{i} {{{', '.join(body)}}}")
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(_merging())
def test_merge_keys_read_as_pyyamls_loader_reads_them(text: str) -> None:
    import yaml

    [doc] = yamlsafe.compose_all(text)
    assert yamlsafe.plain(yamlsafe.to_tree(doc, "x.yaml")) == yaml.safe_load(text)
