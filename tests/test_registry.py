"""One code, one place: each finding code is defined once, beside its check, and used by name."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from refusal_lint.codes import CODES, expand
from refusal_lint.model import Severity

PACKAGE = Path(__file__).resolve().parent.parent / "refusal_lint"
CODE = re.compile(r"^RL\d{3}$")


def _modules() -> dict[str, ast.Module]:
    return {
        str(p.relative_to(PACKAGE)): ast.parse(p.read_text(encoding="utf-8")) for p in PACKAGE.rglob("*.py")
    }


def _literals(tree: ast.Module) -> set[str]:
    """Code strings used as values (docstrings and comments name codes freely)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and CODE.match(node.value)
        and id(node) not in docstrings
    }


def test_each_code_literal_stands_in_one_module_its_definition() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for name, tree in _modules().items():
        for code in _literals(tree):
            where[code].append(name)
    assert set(where) == set(CODES)
    assert {code: mods for code, mods in where.items() if len(mods) != 1} == {}


def test_each_code_is_defined_under_its_own_name_and_emitted_somewhere() -> None:
    defined: dict[str, str] = {}
    used: set[str] = set()
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                target = node.targets[0]
                if isinstance(target, ast.Name) and CODE.match(target.id):
                    defined[target.id] = name
            # RL101.finding(...) or RL101.code: the code at work, not just listed
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and CODE.match(node.value.id)
            ):
                used.add(node.value.id)
    assert set(defined) == set(CODES)
    assert set(CODES) - used == set()


def test_registry_fields() -> None:
    assert list(CODES) == sorted(CODES)
    for c in CODES.values():
        assert c.severity in (Severity.ERROR, Severity.WARNING)
        assert c.what and c.why and c.fix and c.summary
        assert c.explanation.startswith("What: ") and "\nWhy: " in c.explanation
        assert not c.what[:1].isupper(), c.code  # prose starts lower-case: pages capitalise it
    assert {c.code for c in CODES.values() if c.fixable} == {"RL203", "RL303"}


def test_expand_prefixes() -> None:
    assert expand(["RL10"]) == {c for c in CODES if c.startswith("RL10")}
    assert expand(["all"]) == set(CODES)
