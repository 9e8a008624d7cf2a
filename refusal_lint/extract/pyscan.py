"""The cheap pre-check before libcst: CPython's own parser, in C.

It finds syntax errors where DESIGN wants them reported (the line `ast.parse` gives), and
proves most files hold no candidate at all, so libcst never parses them.
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


def may_hold_facts(tree: ast.AST, guard_names: frozenset[str]) -> bool:
    """True unless no node of the tree can become a card, prompt, guard or error fact."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _last(node.func)
            if (
                name in ("AgentExtension", "SystemMessage")
                or name in spec.PROTOCOL_ERRORS
                or vocab.is_guard_name(name, guard_names)
                or any(k.arg in vocab.PROMPT_KWARGS or k.arg in vocab.MEDIA_KEYS for k in node.keywords)
            ):
                return True
        elif isinstance(node, ast.Dict):
            if any(isinstance(k, ast.Constant) and k.value in _DICT_KEYS for k in node.keys):
                return True
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and vocab.is_prompt_const(t.id) for t in targets):
                return True
    return False
