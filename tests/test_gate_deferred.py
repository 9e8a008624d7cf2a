"""gate/deferred.py and the `ast` gate's deferral: a deferred call is one the gate would
have passed, and a file is deferred only where each callee is a name binding can look up
from the file's one top-level import."""

from __future__ import annotations

import ast
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refusal_lint.static.extract.job import Callee
from refusal_lint.static.gate import deferred, pyscan

IDS = frozenset({"seg-mix", "invalid-cut"})
CALLS = [
    "CutRefusal(message)",
    "CutRefusal(pick(q))",
    "CutRefusal(f'{q}')",
    "CutRefusal('seg-mix')",
    "CutRefusal(rule=q)",
    "CutRefusal(*args)",
    "Helpers.extract_refusal(item.raw)",
    "refuse(q, detail='x')",
    "refusal(1)",
    "tracker.refuse()",
    "log('seg-mix')",
    "CutRefusal(q, reason='why')",
]


def parse(code: str) -> ast.Module:
    return ast.parse(textwrap.dedent(code))


@given(st.lists(st.sampled_from(CALLS), max_size=4), st.booleans())
def test_deferral_never_changes_what_the_gate_passes(calls: list[str], with_ids: bool) -> None:
    body = "\n".join(f"    x{i} = {c}" for i, c in enumerate(calls)) or "    pass"
    tree = parse(f"from agent.errors import CutRefusal, Helpers\n\ndef f(q, message, item, args):\n{body}\n")
    ids = IDS if with_ids else frozenset()
    found: list[ast.Call] = []
    held = pyscan.may_hold_facts(tree, frozenset(), ids, found)
    assert (held or bool(found)) == pyscan.may_hold_facts(tree, frozenset(), ids)


def callees_of(code: str) -> tuple[Callee, ...] | None:
    tree = parse(code)
    found: list[ast.Call] = []
    assert not pyscan.may_hold_facts(tree, frozenset(), IDS, found)
    assert found
    return deferred.callees(tree, found, IDS)


def test_an_imported_class_and_a_class_method() -> None:
    got = callees_of(
        """
        from .exceptions import ModelRefusalError as TurnRefusal
        from agents.items import ItemHelpers

        def turn(items, refusal):
            text = ItemHelpers.extract_refusal(items[-1].raw)
            raise TurnRefusal(refusal)
        """
    )
    assert got == (
        Callee("ItemHelpers.extract_refusal", "ItemHelpers", "agents.items", "ItemHelpers", 0),
        Callee("TurnRefusal", "TurnRefusal", "exceptions", "ModelRefusalError", 1),
    )


@pytest.mark.parametrize(
    "code",
    [
        # bound twice: the import and a local
        "from e import CutRefusal\ndef f(q):\n    CutRefusal = q.kind\n    raise CutRefusal(q.why)\n",
        # bound by a function-level import only
        "def f(q):\n    from e import CutRefusal\n    raise CutRefusal(q.why)\n",
        # a plain import: `errors.CutRefusal` binds through the module, not deferred
        "import errors\ndef f(q):\n    raise errors.CutRefusal(q.why)\n",
        # a method of this file: the repo's methods by name bind calls on unknown objects
        "from e import CutRefusal\nclass A:\n    def g(self, q):\n        raise CutRefusal(q.why)\n",
        # a star import may bind the name too
        "from e import CutRefusal\nfrom f import *\ndef f(q):\n    raise CutRefusal(q.why)\n",
        # a card's rule id in the file: a copy of the params map, a prompt by its content
        "from e import CutRefusal\nX = 'seg-mix'\ndef f(q):\n    raise CutRefusal(q.why)\n",
        # a callee that is no name
        "from e import make\ndef f(q):\n    raise make()(q.why).refusal(q.why)\n",
    ],
)
def test_what_cannot_be_deferred(code: str) -> None:
    tree = ast.parse(code)
    found: list[ast.Call] = []
    assert not pyscan.may_hold_facts(tree, frozenset(), IDS, found)
    assert found  # the gate passes it for that call alone, and it stays so
    assert deferred.callees(tree, found, IDS) is None
