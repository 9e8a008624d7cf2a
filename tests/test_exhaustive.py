"""Every shortcut (text prefilter, ast pre-check, prompt stages, JSON card check) only
saves work: with all of them off the findings are byte-identical (issue 13)."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest
from conftest import ROOT, TESTDATA, pending_marked, run_cli

CASES = sorted(p for p in TESTDATA.iterdir() if p.is_dir())
REAL = ROOT.parent / "shared" / "bench" / "real-repos.tar.xz"


def _json(path: Path, monkeypatch: pytest.MonkeyPatch, exhaustive: bool) -> str:
    if exhaustive:
        monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", "1")
    else:
        monkeypatch.delenv("REFUSAL_LINT_EXHAUSTIVE", raising=False)
    result = run_cli("check", str(path), "--no-cache", "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return result.stdout


@pytest.mark.parametrize("case", pending_marked(CASES))
def test_shortcuts_change_nothing(case: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _json(case, monkeypatch, False) == _json(case, monkeypatch, True)


@pytest.fixture(scope="module")
def real_repos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not REAL.exists():
        pytest.skip(f"{REAL} not here")
    root = tmp_path_factory.mktemp("real")
    with tarfile.open(REAL) as tar:
        tar.extractall(root, filter="data")
    return root


@pytest.mark.slow
def test_real_repositories_give_no_finding(real_repos: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight real agent repos nobody here wrote, none using the extension: nothing to report."""
    for repo in sorted(p for p in real_repos.iterdir() if p.is_dir()):
        data = json.loads(_json(repo, monkeypatch, False))
        assert data["findings"] == [], repo.name


@pytest.mark.slow
def test_real_repository_same_with_shortcuts_off(real_repos: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = real_repos / "huggingface__smolagents"
    assert _json(repo, monkeypatch, False) == _json(repo, monkeypatch, True)
