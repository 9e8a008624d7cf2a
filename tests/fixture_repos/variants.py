"""Fixture cases as data: each variant is a base agent and its one difference, with its exact
expected findings, in a table per family (the *.yaml files beside this module).

A variant names
  from:     its base: `builder` (the `Repo` builder's survey agent), a base of a table's
            `bases:`, a whole repo of testdata/ or another variant;
  at:       the folder the base is put in (a monorepo holding an agent), default the root;
  files:    path -> the file's whole text, or null (the base's file taken away);
  replace:  path -> [[old, new], ...]: each `old` occurs once in the base's file;
  expected: the exact text report (what a testdata repo keeps in expected.txt, which the
            written tree holds too, so that it is byte for byte the repo it stands for).

The tests (test_fixtures, test_differential) and bench/compare.py run every variant exactly
as they run the testdata repos: `names()` lists both, `fixture_repo(name)` is the folder to check.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from fixture_repos.builder import Repo

HERE = Path(__file__).resolve().parent
TESTDATA = HERE.parent.parent / "testdata"
BUILDER = "builder"
EXPECTED = "expected.txt"


@dataclass(frozen=True)
class Variant:
    name: str
    table: str  # the family's file
    base: str
    at: str
    files: Mapping[str, str | None]
    replace: Mapping[str, tuple[tuple[str, str], ...]]
    expected: str


def _variant(name: str, table: str, raw: Mapping[str, Any]) -> Variant:
    unknown = set(raw) - {"from", "at", "files", "replace", "expected"}
    if unknown or "from" not in raw or "expected" not in raw:
        raise ValueError(f"{table}: variant {name}: needs `from` and `expected`, has {sorted(raw)}")
    edits = raw.get("replace", {})
    replace = {path: tuple((old, new) for old, new in pairs) for path, pairs in edits.items()}
    files = raw.get("files", {})
    return Variant(name, table, raw["from"], raw.get("at", ""), files, replace, raw["expected"])


def _load() -> tuple[dict[str, dict[str, str]], dict[str, Variant]]:
    bases: dict[str, dict[str, str]] = {}
    variants: dict[str, Variant] = {}
    for table in sorted(HERE.glob("*.yaml")):
        data = yaml.safe_load(table.read_text(encoding="utf-8"))
        bases.update(data.get("bases", {}))
        for name, raw in data["variants"].items():
            if name in variants:
                raise ValueError(f"{table.name}: variant {name} is also in {variants[name].table}")
            variants[name] = _variant(name, table.name, raw)
    return bases, variants


BASES, VARIANTS = _load()
KEPT = sorted(p.name for p in TESTDATA.iterdir() if p.is_dir())  # whole repos


def names() -> list[str]:
    """Every fixture case: the whole repos of testdata/ and the variants."""
    return sorted([*KEPT, *VARIANTS])


def _edit(name: str, text: str, pairs: tuple[tuple[str, str], ...]) -> str:
    for old, new in pairs:
        if text.count(old) != 1:
            raise ValueError(f"variant {name}: {old!r} occurs {text.count(old)} times, not once")
        text = text.replace(old, new)
    return text


def write(name: str, root: Path) -> None:
    """The tree of case (or base) `name` written into `root`."""
    repo = Repo(root)
    if name == BUILDER:
        repo.agent()
    elif name in BASES:
        for rel, text in BASES[name].items():
            repo.put(rel, text)
    elif name in KEPT:
        shutil.copytree(TESTDATA / name, root, dirs_exist_ok=True)
    elif name in VARIANTS:
        v = VARIANTS[name]
        write(v.base, root / v.at)
        (root / v.at / EXPECTED).unlink(missing_ok=True)  # the base's findings are not the variant's
        for rel, text in v.files.items():
            if text is None:
                (root / rel).unlink()
            else:
                repo.put(rel, text)
        for rel, pairs in v.replace.items():
            repo.put(rel, _edit(name, (root / rel).read_bytes().decode("utf-8"), pairs))
        repo.put(EXPECTED, v.expected)
    else:
        raise KeyError(f"no fixture case, base or variant named {name!r}")


_TMP: list[tempfile.TemporaryDirectory[str]] = []  # removed when the process ends
_MADE: dict[str, Path] = {}


def fixture_repo(name: str) -> Path:
    """The folder of case `name`: testdata/NAME, or the variant written once per process into
    a temporary folder of that name (read only, as testdata is: copy it to change it)."""
    if name in KEPT:
        return TESTDATA / name
    if name not in _MADE:
        if not _TMP:
            _TMP.append(tempfile.TemporaryDirectory(prefix="refusal-lint-variants-"))
        dest = Path(_TMP[0].name) / name
        write(name, dest)
        _MADE[name] = dest
    return _MADE[name]


def write_all(dest: Path) -> list[Path]:
    """Every variant written under `dest`, each in a folder of its name."""
    for name in VARIANTS:
        write(name, dest / name)
    return [dest / name for name in sorted(VARIANTS)]
