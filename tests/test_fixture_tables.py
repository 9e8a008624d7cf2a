"""The fixture tables (tests/fixture_repos/*.yaml) stay data about differences: testdata/ keeps
whole repos only where a whole repo is the point, each variant is its base and a real
difference, and every case reaches the tests and bench/compare.py (issue 23)."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import KEPT, ROOT, TESTDATA, VARIANTS, fixture_repo, names
from fixture_repos.variants import BASES, BUILDER, EXPECTED, write

MOST_COPIES = 0.40  # issue 23: at most this share of testdata's files are byte copies of another's


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_few_testdata_files_are_byte_copies_of_another() -> None:
    files = [p for p in TESTDATA.rglob("*") if p.is_file()]
    digest = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    seen = Counter(digest.values())
    copies = sorted(str(p.relative_to(TESTDATA)) for p in files if seen[digest[p]] > 1)
    assert len(copies) <= MOST_COPIES * len(files), copies


def test_names_are_unique_and_every_base_is_known() -> None:
    assert not set(KEPT) & set(VARIANTS)
    assert not (set(BASES) | {BUILDER}) & set(names())
    for v in VARIANTS.values():
        assert v.base in {*BASES, BUILDER, *names()}, v.name
    used = {v.base for v in VARIANTS.values()}
    assert set(BASES) <= used, "a base no variant builds on"


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_change_of_a_variant_changes_its_base(name: str, tmp_path: Path) -> None:
    """A table line that changes nothing would hide what the case is about: every file given
    differs from the base's, every file taken away was there (write() raises on a `replace`
    whose text is not in the base exactly once)."""
    v = VARIANTS[name]
    write(v.base, tmp_path / "base" / v.at)
    base = _tree(tmp_path / "base")
    base.pop(f"{v.at}/{EXPECTED}" if v.at else EXPECTED, None)
    for rel, text in v.files.items():
        if text is None:
            assert rel in base, f"{rel} is not in {v.base}"
        else:
            assert base.get(rel) != text.encode("utf-8"), f"{rel} is the same in {v.base}"
    assert v.files or v.replace
    written = _tree(fixture_repo(name))
    assert written[EXPECTED] == v.expected.encode("utf-8")
    assert {k: b for k, b in written.items() if k != EXPECTED} != base


@pytest.mark.parametrize("name", sorted(n for n in VARIANTS if n.endswith("-drift")))
def test_a_drift_twin_is_its_clean_twin_with_one_line_changed(name: str) -> None:
    v = VARIANTS[name]
    assert v.base == name.removesuffix("-drift") and not v.files and not v.at
    ((_, pairs),) = v.replace.items()
    ((old, new),) = pairs
    assert "\n" not in old and "\n" not in new


def test_compare_runs_every_case(tmp_path: Path) -> None:
    """bench/compare.py holds a refactoring to byte-identical output on every case the tests run."""
    spec = importlib.util.spec_from_file_location("compare", ROOT / "bench" / "compare.py")
    assert spec and spec.loader
    compare = importlib.util.module_from_spec(spec)
    sys.modules["compare"] = compare
    spec.loader.exec_module(compare)
    trees = compare.trees(tmp_path, False)
    assert sorted(p.name for p in trees) == names()
    for tree in trees:
        assert _tree(tree) == _tree(fixture_repo(tree.name)), tree.name
