from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from refusal_lint.cli import main

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"


def snapshot(root: Path) -> dict[str, str]:
    """Every file under root (links and the cache folder left out) with the hash of its bytes."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and ".refusal_lint_cache" not in p.parts
    }


def run_cli(*args: str, cwd: Path | None = None) -> Result:
    runner = CliRunner()
    if cwd is None:
        return runner.invoke(main, list(args), catch_exceptions=False)
    with runner.isolated_filesystem(temp_dir=None) as _:
        import os

        old = os.getcwd()
        os.chdir(cwd)
        try:
            return runner.invoke(main, list(args), catch_exceptions=False)
        finally:
            os.chdir(old)


def check_json(path: Path | str, *extra: str) -> dict[str, Any]:
    result = run_cli("check", str(path), "--no-cache", "--format", "json", *extra)
    assert result.exit_code in (0, 1), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture
def cli() -> Any:
    return run_cli
