"""The cheap pre-check before libcst: CPython's own parser, in C.

It finds syntax errors where DESIGN wants them reported (the line `ast.parse` gives), and
proves most files hold no candidate at all, so libcst never parses them. It must stay a
superset of what extraction can find: when in doubt, it says yes.
"""

from __future__ import annotations

import ast

from refusal_lint import spec
from refusal_lint.extract import vocab

_DICT_KEYS = frozenset({"uri", "rule", "error", *vocab.MEDIA_KEYS})


def _last(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def may_hold_facts(tree: ast.Module, guard_names: frozenset[str], ids: frozenset[str] = frozenset()) -> bool:
    """True unless no node of the tree can become a card, guard, payload, error or helper
    call fact (prompt candidates are the second stage's, which does not ask this)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _last(node.func)
            if (
                name == "AgentExtension"
                or name in spec.PROTOCOL_ERRORS
                or vocab.is_guard_name(name, guard_names)
                or any(k.arg in vocab.MEDIA_KEYS or k.arg == "rule" for k in node.keywords)
            ):
                return True
            # A call passing a card's rule id, maybe to a helper that fires it.
            if ids and any(
                isinstance(a, ast.Constant) and a.value in ids
                for a in (*node.args, *(k.value for k in node.keywords))
            ):
                return True
        elif isinstance(node, ast.Dict) and any(
            isinstance(k, ast.Constant) and k.value in _DICT_KEYS for k in node.keys
        ):
            return True
    return False
