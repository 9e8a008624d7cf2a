"""The package's layout holds (issue 23): the folder tree is the architecture, so it stays
readable. No import cycle (imports under `if TYPE_CHECKING:` and inside functions count: they
are the same dependency, only later; importing `a.b.c` runs `a/b/__init__.py` too), the core
imports nothing else of the package, each code's literal stands in at most two modules, no
folder holds more than 12 modules directly, no module is over 400 lines, no function over 60."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "refusal_lint"
CODE = re.compile(r"^RL\d{3}$")


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, tuple[Path, ast.Module]]:
    return {_name(p): (p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(PACKAGE.rglob("*.py"))}


def _imported(module: str, path: Path, tree: ast.Module, known: set[str]) -> set[str]:
    """The package's modules `module` imports anywhere in its text: `from a import b` is
    module `a.b` where that is a module, else `a`."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            for a in node.names:
                if f"{base}.{a.name}" in known:
                    out.add(f"{base}.{a.name}")
                elif base in known:
                    out.add(base)
    # Importing a.b.c first runs the packages a and a.b: an edge to each, but for the
    # importer's own packages (those are loading already, the ordinary parent-child shape).
    own = {module.rsplit(".", k)[0] for k in range(1, module.count(".") + 1)}
    for name in list(out):
        parts = name.split(".")
        out |= {p for i in range(2, len(parts)) if (p := ".".join(parts[:i])) in known and p not in own}
    out.discard(module)
    return out


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: _imported(m, path, tree, set(modules)) for m, (path, tree) in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of the graph (its modules, the first repeated at the end), or []."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str]:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return [*path[path.index(n) :], n]
            if n not in state and (found := visit(n)):
                return found
        state[m] = 2
        path.pop()
        return []

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return []


def test_the_graph_sees_every_kind_of_import() -> None:
    graph = import_graph()
    assert "refusal_lint.core.model" in graph["refusal_lint.codes"]  # at the top
    assert (
        "refusal_lint.static.bind.agent" in graph["refusal_lint.static.checks.guards"]
    )  # under TYPE_CHECKING
    assert "refusal_lint.static.baseline" in graph["refusal_lint.static.filter"]  # inside a function
    assert "refusal_lint.static.checks.registry" in graph["refusal_lint.codes"]  # `from pkg.mod import x`
    assert (
        "refusal_lint.static.checks.files" in graph["refusal_lint.static.bind.agents"]
    )  # `from pkg import mod`


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_no_import_cycle() -> None:
    assert find_cycle(import_graph()) == []


def _code_literals(tree: ast.Module) -> set[str]:
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.match(node.value)
    }


def test_each_code_literal_is_in_at_most_two_modules() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for module, (_, tree) in _modules().items():
        for code in _code_literals(tree):
            where[code].append(module)
    assert where  # the codes are spelled somewhere: their definitions
    assert {code: mods for code, mods in where.items() if len(mods) > 2} == {}


def test_a_parent_package_is_an_edge_from_outside_it() -> None:
    graph = import_graph()
    assert "refusal_lint.static" in graph["refusal_lint.cli.check"]  # it imports static.pipeline
    assert "refusal_lint.cli" not in graph["refusal_lint.cli.check"]  # its own package


def test_the_core_imports_nothing_else_of_the_package() -> None:
    graph = import_graph()
    core = {m: deps for m, deps in graph.items() if m.startswith("refusal_lint.core")}
    assert core
    outside = {
        m: sorted(d for d in deps if not d.startswith("refusal_lint.core")) for m, deps in core.items()
    }
    assert {m: d for m, d in outside.items() if d} == {}


def test_no_folder_holds_more_than_twelve_modules() -> None:
    folders = {p.parent for p in PACKAGE.rglob("*.py")}
    crowded = {f.name: n for f in folders if (n := len(list(f.glob("*.py")))) > 12}
    assert len(folders) > 5 and crowded == {}


def test_no_module_over_400_lines_and_no_function_over_60() -> None:
    long_modules, long_functions = [], []
    for module, (path, tree) in _modules().items():
        if (lines := path.read_text(encoding="utf-8").count("\n")) > 400:
            long_modules.append(f"{module} {lines}")
        long_functions += [
            f"{module}:{node.name} {node.end_lineno - node.lineno + 1}"
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno is not None
            and node.end_lineno - node.lineno + 1 > 60
        ]
    assert long_modules == [] and long_functions == []


def test_the_bench_scripts_start() -> None:
    """bench/ is run by hand, so nothing else would notice one that no longer starts (a
    `global` after its first use is a SyntaxError only when the script is run)."""
    import subprocess
    import sys

    for script in sorted((PACKAGE.parent / "bench").glob("*.py")):
        done = subprocess.run(
            [sys.executable, str(script), "--help"], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0 and "usage" in done.stdout.lower(), (script.name, done.stderr[-300:])
