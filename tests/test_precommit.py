"""Both pre-commit hooks for real: installed by pre-commit from this checkout (its current
commit) into a throwaway git repo, run by `git commit` as a user's commit runs them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, SURVEY_RULES, Repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _head() -> str:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("this checkout is not a git repository")
    return head.stdout.strip()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One pre-commit home for the module: each hook environment is installed once."""
    yield tmp_path_factory.mktemp("pre-commit-home")


class Hooked:
    """A git repo holding the survey agent, with a refusal-lint hook installed in git."""

    def __init__(self, root: Path, home: Path, hook: str) -> None:
        self.root = root
        self.env = {
            **os.environ,
            "PRE_COMMIT_HOME": str(home),
            "PRE_COMMIT_COLOR": "never",
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.invalid",
        }
        self.env.pop("GITHUB_ACTIONS", None)  # the text report, wherever the tests run
        self.repo = Repo(root)
        self.repo.agent()
        # The same snippet the README gives, pointing at this checkout instead of the published repo.
        self.repo.write(
            ".pre-commit-config.yaml",
            f"repos:\n  - repo: {ROOT}\n    rev: {_head()}\n    hooks:\n      - id: {hook}\n",
        )
        self.git("init", "-q")
        install = [sys.executable, "-m", "pre_commit", "install"]
        subprocess.run(install, cwd=root, env=self.env, check=True, capture_output=True)
        self.git("add", "-A")
        first = self.commit("the agent")
        assert first.returncode == 0, first.stdout

    def git(self, *args: str) -> None:
        subprocess.run(["git", *args], cwd=self.root, env=self.env, check=True, capture_output=True)

    def commit(self, message: str) -> subprocess.CompletedProcess[str]:
        """`git commit`; git shows the hook's report on stderr: it is all in `stdout` here."""
        return subprocess.run(
            ["git", "commit", "-q", "-m", message],
            cwd=self.root,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
        )

    def edit(self, rel: str, old: str, new: str) -> Path:
        path = self.root / rel
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))
        return path


SEG = SURVEY_RULES["seg-mix"]
DRIFT = SEG.replace("one family", "two families")
PROMPT = "agent/system_prompt.md"
CARD = ".well-known/agent-card.json"


def test_a_drifted_prompt_blocks_the_commit(tmp_path: Path, home: Path) -> None:
    hooked = Hooked(tmp_path / "repo", home, "refusal-lint")
    hooked.edit(PROMPT, SEG, DRIFT)
    hooked.git("add", PROMPT)
    blocked = hooked.commit("drift")
    assert blocked.returncode != 0
    assert f"{PROMPT}:5:3: RL203 [seg-mix]" in blocked.stdout, blocked.stdout
    hooked.edit(PROMPT, DRIFT, SEG)
    hooked.git("add", PROMPT)
    (hooked.root / "agent" / "tools.py").write_text((hooked.root / "agent" / "tools.py").read_text() + "\n")
    hooked.git("add", "agent/tools.py")
    passed = hooked.commit("mended")
    assert passed.returncode == 0, passed.stdout


def test_the_fix_hook_rewrites_the_prompt_and_blocks(tmp_path: Path, home: Path) -> None:
    hooked = Hooked(tmp_path / "repo", home, "refusal-lint-fix")
    hooked.edit(PROMPT, "Answer from", "Be brief. Answer from")  # the change being committed
    prompt = hooked.edit(PROMPT, SEG, DRIFT)  # and a drift that slipped in with it
    hooked.git("add", PROMPT)
    blocked = hooked.commit("drift")
    assert blocked.returncode != 0
    assert "files were modified by this hook" in blocked.stdout, blocked.stdout
    assert SEG in prompt.read_text() and DRIFT not in prompt.read_text()
    assert "Be brief." in prompt.read_text()
    hooked.git("add", PROMPT)
    again = hooked.commit("drift, fixed")
    assert again.returncode == 0, again.stdout


def test_an_untracked_draft_does_not_block(tmp_path: Path, home: Path) -> None:
    hooked = Hooked(tmp_path / "repo", home, "refusal-lint")
    # A half-written prompt beside the agent, not added: the commit will not hold it.
    hooked.repo.write("agent/prompts/draft_prompt.md", "Refuse these:\n- seg-mix: TODO write this\n")
    # An unstaged drift in the tracked prompt: pre-commit stashes it; the index is clean.
    hooked.edit(PROMPT, SEG, DRIFT)
    hooked.edit("agent/tools.py", "def crosstab", "# crosstabs of the survey tables\ndef crosstab")
    hooked.git("add", "agent/tools.py")
    passed = hooked.commit("an unrelated change")
    assert passed.returncode == 0, passed.stdout
    # Both are still there, untouched.
    assert (hooked.root / "agent" / "prompts" / "draft_prompt.md").exists()
    assert DRIFT in (hooked.root / PROMPT).read_text()


def test_a_changed_card_reports_the_drift_in_the_unchanged_prompt(tmp_path: Path, home: Path) -> None:
    hooked = Hooked(tmp_path / "repo", home, "refusal-lint")
    hooked.edit(CARD, SEG, "Segment families never mix.")
    hooked.git("add", CARD)
    blocked = hooked.commit("a new wording in the card")
    assert blocked.returncode != 0
    assert f"{PROMPT}:5:3: RL203 [seg-mix]" in blocked.stdout, blocked.stdout


def test_hook_files_pattern_covers_every_suffix_read() -> None:
    """A commit touching only a .prompty or .markdown prompt must run the hook (issue 15)."""
    import re

    import yaml

    from refusal_lint.core.filekinds import SUFFIXES

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["refusal-lint", "refusal-lint-fix"]
    entries = [h["entry"] for h in hooks]
    assert entries == ["refusal-lint check --git-index", "refusal-lint check --git-index --fix"]
    suffixes = list(SUFFIXES)
    for hook in hooks:
        assert hook.get("pass_filenames", True)  # the files name their agents (DESIGN §1)
        files = re.compile(hook["files"])
        for suffix in suffixes:
            assert files.search("agent/prompts/system" + suffix), (hook["id"], suffix)
            assert files.search("agent/prompts/SYSTEM" + suffix.upper()), (hook["id"], suffix)
        for other in (".png", ".lock", ".html", ".pyc", ".jsonl"):
            assert not files.search("agent/x" + other), (hook["id"], other)
