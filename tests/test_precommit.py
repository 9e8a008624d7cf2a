"""The pre-commit hook for real: installed from this checkout into a throwaway git repo."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, TESTDATA

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_pre_commit_hook_fails_then_passes(tmp_path: Path) -> None:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("this checkout is not a git repository")
    repo = tmp_path / "agent-repo"
    shutil.copytree(TESTDATA / "py-rl302", repo, ignore=shutil.ignore_patterns("expected.txt"))
    # The same snippet the README gives, pointing at this checkout instead of the published repo.
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {head.stdout.strip()}\n    hooks:\n      - id: refusal-lint\n"
    )
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    pre_commit = [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"]
    failing = subprocess.run(pre_commit, cwd=repo, capture_output=True, text=True, env=env, timeout=600)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "refusal-lint" in failing.stdout and "Failed" in failing.stdout
    assert "survey/tools.py:6:16: RL302 [seg_mix] guard fires rule `seg_mix`" in failing.stdout

    tools = repo / "survey" / "tools.py"
    tools.write_text(
        tools.read_text()
        .replace('refuse("seg_mix"', 'refuse("seg-mix"')
        .replace('    if cut == "zodiac":\n        return refuse("astro-cut")\n', "")
    )
    _git(repo, "add", "-A")
    passing = subprocess.run(pre_commit, cwd=repo, capture_output=True, text=True, env=env, timeout=600)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout


def test_hook_files_pattern_covers_every_suffix_read() -> None:
    """A commit touching only a .prompty or .markdown prompt must run the hook (issue 15)."""
    import re

    import yaml

    from refusal_lint.filekinds import SUFFIXES

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["refusal-lint", "refusal-lint-fix"]
    assert hooks[1]["entry"] == "refusal-lint check --fix"
    suffixes = list(SUFFIXES)
    for hook in hooks:
        files = re.compile(hook["files"])
        for suffix in suffixes:
            assert files.search("agent/prompts/system" + suffix), (hook["id"], suffix)
        for other in (".png", ".lock", ".toml", ".pyc", ".jsonl"):
            assert not files.search("agent/x" + other), (hook["id"], other)
