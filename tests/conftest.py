from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from refusal_lint.cli import main

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"


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
