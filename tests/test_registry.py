"""One code, one place: each finding code is defined once, beside its check, and used by name."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from refusal_lint.codes import CODES, expand
from refusal_lint.core.kinds import Severity
from refusal_lint.core.model import Finding, Loc
from refusal_lint.static.bind.agent import Agent
from refusal_lint.static.bind.bound import Bound
from refusal_lint.static.checks import registry
from refusal_lint.static.checks.base import Check, Run

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


def test_each_static_family_is_one_module_whose_check_is_registered() -> None:
    import importlib

    from refusal_lint.live import codes as probe
    from refusal_lint.static.checks.registry import CHECKS

    not_families = ("__init__", "base", "registry")
    families = sorted(
        p.stem for p in (PACKAGE / "static" / "checks").glob("*.py") if p.stem not in not_families
    )
    modules = [importlib.import_module(f"refusal_lint.static.checks.{name}") for name in families]
    assert {m.CHECK for m in modules} == set(CHECKS) and len(CHECKS) == len(modules)
    assert all(m.CHECK.codes == m.CODES for m in modules)
    assert len({c.name for c in CHECKS}) == len(CHECKS)
    static = [c.code for check in CHECKS for c in check.codes]
    assert sorted(static + [c.code for c in probe.CODES]) == list(CODES)


def _recording(calls: list[tuple[str, str | None]], name: str, code: str) -> Callable[..., list[Finding]]:
    def fn(agent: Agent | None, run: Run) -> list[Finding]:
        calls.append((name, agent.name if agent else None))
        return [Finding(code, Loc(f"{name}.py"), name)]

    return fn


def test_the_registry_runs_tree_checks_once_and_agent_checks_for_each_agent() -> None:
    calls: list[tuple[str, str | None]] = []
    checks = (
        Check("per-agent", (), _recording(calls, "per-agent", "RL201")),
        Check("tree", (), _recording(calls, "tree", "RL002"), per_agent=False),
    )
    agents = [Agent("survey", "survey", None), Agent("media", "media", None)]
    got = registry.findings(Run(Bound([], [], agents, [], [], [], set()), {}), checks)
    assert calls == [("tree", None), ("per-agent", "survey"), ("per-agent", "media")]
    assert [(f.code, f.agent) for f in got] == [("RL002", None), ("RL201", "survey"), ("RL201", "media")]
    # A tree with no agent: the per-agent checks see it once, as no agent, and name none.
    calls.clear()
    got = registry.findings(Run(Bound([], [], [], [], [], [], set()), {}), checks)
    assert calls == [("tree", None), ("per-agent", None)]
    assert [(f.code, f.agent) for f in got] == [("RL002", None), ("RL201", None)]


def test_a_configured_card_that_is_missing_is_rl100_alone() -> None:
    """The guard check of a tree with no agent gives RL001 only when no card is configured."""
    from refusal_lint.core.kinds import GuardKind, GuardStatus
    from refusal_lint.static.bind.agent import BoundGuard

    guard = BoundGuard(Loc("tools.py", 4), GuardKind.CALL, GuardStatus.ID, "seg-mix")
    bound = Bound([], [], [], [], [guard], [], set())
    assert [f.code for f in registry.findings(Run(bound, {}))] == ["RL001"]
    got = registry.findings(Run(bound, {}, frozenset({"agent-card.json"})))
    assert [(f.code, f.loc.path) for f in got] == [("RL100", "agent-card.json")]
