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


def _module_names(tree: ast.Module) -> set[str]:
    """Names bound at module level (assignments, imports, classes), looking into if/try blocks."""
    out: set[str] = set()
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.Assign):
            out.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out.add(stmt.target.id)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        elif isinstance(stmt, ast.ClassDef):
            out.add(stmt.name)
        elif isinstance(stmt, (ast.If, ast.Try, ast.With)):
            stack.extend(stmt.body)
            stack.extend(getattr(stmt, "orelse", []))
            stack.extend(getattr(stmt, "finalbody", []))
            for handler in getattr(stmt, "handlers", []):
                stack.extend(handler.body)
    return out


def _may_be_prompt(value: ast.expr, module_names: set[str]) -> bool:
    """Could this keyword value become prompt text? Parameters and locals cannot."""
    if isinstance(value, (ast.Constant, ast.JoinedStr)):
        return isinstance(value, ast.JoinedStr) or isinstance(value.value, str)
    if isinstance(value, (ast.BinOp, ast.Call, ast.Subscript)):
        return True
    base = value
    while isinstance(base, ast.Attribute):
        base = base.value
    return isinstance(base, ast.Name) and base.id in module_names


def may_hold_facts(tree: ast.Module, guard_names: frozenset[str]) -> bool:
    """True unless no node of the tree can become a card, prompt, guard or error fact."""
    module_names: set[str] | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _last(node.func)
            if (
                name in ("AgentExtension", "SystemMessage")
                or name in spec.PROTOCOL_ERRORS
                or vocab.is_guard_name(name, guard_names)
                or any(k.arg in vocab.MEDIA_KEYS or k.arg == "rule" for k in node.keywords)
            ):
                return True
            for k in node.keywords:
                if k.arg in vocab.PROMPT_KWARGS:
                    if module_names is None:
                        module_names = _module_names(tree)
                    if _may_be_prompt(k.value, module_names):
                        return True
        elif isinstance(node, ast.Dict) and any(
            isinstance(k, ast.Constant) and k.value in _DICT_KEYS for k in node.keys
        ):
            return True
    return _prompt_constant(tree)


def _prompt_constant(tree: ast.Module) -> bool:
    """A module or class constant named like a prompt (only those are prompt candidates)."""
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.ClassDef):
            stack.extend(stmt.body)
        elif isinstance(stmt, (ast.If, ast.Try)):
            stack.extend(stmt.body + stmt.orelse + getattr(stmt, "finalbody", []))
        elif (
            isinstance(stmt, (ast.Assign, ast.AnnAssign))
            and stmt.value is not None
            and _stringish(stmt.value)
        ):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and vocab.is_prompt_name(t.id) for t in targets):
                return True
    return False


_TEXT_CALLS = frozenset({"dedent", "cleandoc", "strip", "lstrip", "rstrip", "format", "join", "read_text"})


def _stringish(value: ast.expr) -> bool:
    """Could this value be prompt text (a string, a concatenation, an alias, a text helper)?"""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str)
    if isinstance(value, ast.Call):
        return _last(value.func) in _TEXT_CALLS
    return isinstance(value, (ast.JoinedStr, ast.BinOp, ast.Name, ast.Attribute))
