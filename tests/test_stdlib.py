"""The whole standard library is not an agent: refusal-lint must stay silent on it (slow)."""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

import pytest
from conftest import run_cli


@pytest.mark.slow
def test_stdlib_reports_nothing(tmp_path: Path) -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    tree = tmp_path / "stdlib"
    shutil.copytree(
        stdlib, tree, ignore=shutil.ignore_patterns("site-packages", "__pycache__"), symlinks=True
    )
    result = run_cli("check", str(tree), "--no-cache")
    assert (result.exit_code, result.stdout) == (
        0,
        "nothing to check: no refusals card, prompt or guard found\n",
    )
