"""Where a run reads files from (contents.py): the disk, an editor's buffers over it, git's index."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import SURVEY_RULES, Repo, run_cli

from refusal_lint import config
from refusal_lint.codes import CODES
from refusal_lint.static import pipeline
from refusal_lint.static.discover import contents


def _codes(root: Path, source: contents.Source, use_cache: bool = True) -> list[tuple[str, str]]:
    cfg = config.load(None, str(root))
    settings = pipeline.Settings(frozenset(CODES), frozenset(), use_cache, jobs=1, contents=source)
    return [(f.code, f.loc.path) for f in pipeline.run([str(root)], cfg, settings).findings]


def test_buffers_over_the_disk_are_read_and_never_answered_by_the_cache(repo: Repo) -> None:
    repo.agent()
    prompt = repo.root / "agent" / "system_prompt.md"
    tools = repo.root / "agent" / "tools.py"
    assert _codes(repo.root, contents.DISK) == []  # fills the cache with the disk's verdicts
    drifted = prompt.read_bytes().replace(b"ask for one family", b"ask for two families")
    renamed = tools.read_bytes().replace(b'refuse("seg-mix"', b'refuse("seg_mix"')
    buffers = contents.Overlay({str(prompt): drifted, str(tools): renamed})
    got = _codes(repo.root, buffers)
    # The prompt is read in this process, the guard in a worker: both from the buffers,
    # though their size and mtime on disk are what the cache remembers.
    assert ("RL203", "agent/system_prompt.md") in got
    assert ("RL302", "agent/tools.py") in got
    assert buffers.read(str(prompt)) == drifted
    assert _codes(repo.root, contents.DISK) == []  # the disk, and what the cache says of it, unchanged


def test_a_buffer_of_a_file_not_yet_saved_is_a_candidate(repo: Repo) -> None:
    repo.card()
    repo.tools()
    unsaved = repo.root / "agent" / "system_prompt.md"
    text = "Refuse these, naming the rule:\n" + "".join(f"- {i}: {r}\n" for i, r in SURVEY_RULES.items())
    assert ("RL200", ".well-known/agent-card.json") in _codes(repo.root, contents.DISK, use_cache=False)
    assert _codes(repo.root, contents.Overlay({str(unsaved): text.encode()}), use_cache=False) == []
    assert not unsaved.exists()


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_index_reads_what_the_commit_will_hold(repo: Repo) -> None:
    repo.agent()
    _git(repo.root, "init", "-q")
    _git(repo.root, "add", "-A")
    prompt = repo.root / "agent" / "system_prompt.md"
    clean = prompt.read_text()
    prompt.write_text(clean.replace("ask for one family", "ask for two families"))
    # An untracked draft with a drifted rule line: not in the commit, never read.
    repo.write("agent/prompts/draft_prompt.md", "- seg-mix: half written\n")
    disk = _codes(repo.root, contents.DISK)
    assert ("RL203", "agent/system_prompt.md") in disk
    assert _codes(repo.root, contents.GitIndex()) == []  # the unstaged edit is not in the commit
    _git(repo.root, "add", "agent/system_prompt.md")
    prompt.write_text(clean)  # staged drift, working copy mended: the commit holds the drift
    index = contents.GitIndex()
    assert _codes(repo.root, index) == [("RL203", "agent/system_prompt.md")]
    assert b"two families" in index.read(str(prompt))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_index_through_the_cli(repo: Repo, tmp_path: Path) -> None:
    repo.agent()
    _git(repo.root, "init", "-q")
    _git(repo.root, "add", "-A")
    repo.write("agent/draft_prompt.md", "Refuse these:\n- seg-mix: something else entirely\n")
    assert "RL203" in repo.check()
    result = run_cli("check", str(repo.root), "--git-index", "--no-cache")
    assert result.exit_code == 0, result.output
    outside = tmp_path.parent / (tmp_path.name + "-not-a-repo")
    outside.mkdir()
    try:
        result = run_cli("check", str(outside), "--git-index")
        assert result.exit_code == 2
        assert "not inside a git work tree" in result.stderr
    finally:
        os.rmdir(outside)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_index_fix_exits_1_until_the_fix_is_staged(repo: Repo) -> None:
    """`check --git-index --fix` mends the work tree, not the index: the commit would still
    hold the drift, so it exits 1 (it said all checks passed) and says to stage the files;
    once staged, the check passes."""
    repo.agent()
    _git(repo.root, "init", "-q")
    prompt = repo.root / "agent" / "system_prompt.md"
    prompt.write_text(prompt.read_text().replace("ask for one family", "ask for two families"))
    _git(repo.root, "add", "-A")
    fixed = run_cli("check", str(repo.root), "--git-index", "--fix", "--no-cache")
    assert fixed.exit_code == 1 and "`git add` the files" in fixed.stderr
    assert "ask for one family per cut" in prompt.read_text()
    assert run_cli("check", str(repo.root), "--git-index", "--no-cache").exit_code == 1  # the index: drift
    # A second --fix: the work tree is mended, the index is not; the note says so, not "changed".
    again = run_cli("check", str(repo.root), "--git-index", "--fix", "--no-cache")
    assert "the file on disk is not the text in git's index: stage it" in again.stderr, again.stderr
    _git(repo.root, "add", "-A")
    assert run_cli("check", str(repo.root), "--git-index", "--no-cache").exit_code == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_index_names_a_file_the_work_tree_lost_but_the_commit_holds(repo: Repo) -> None:
    """`check --git-index agent/tools.py` with the file deleted from the work tree only:
    the commit still holds it, so it names its agent as it would on the disk (it was exit 2,
    "no such file"); a name in neither is still a usage error."""
    repo.agent()
    _git(repo.root, "init", "-q")
    _git(repo.root, "add", "-A")
    on_disk = run_cli(
        "check", "agent/tools.py", "--git-index", "--no-cache", "--format", "json", cwd=repo.root
    )
    (repo.root / "agent" / "tools.py").unlink()
    gone = run_cli("check", "agent/tools.py", "--git-index", "--no-cache", "--format", "json", cwd=repo.root)
    assert gone.exit_code == on_disk.exit_code, gone.output
    assert json.loads(gone.stdout)["findings"] == json.loads(on_disk.stdout)["findings"]
    missing = run_cli("check", "agent/nothere.py", "--git-index", cwd=repo.root)
    assert missing.exit_code == 2
    assert "no such file" in missing.stderr


def test_settings_default_to_the_disk() -> None:
    settings = pipeline.Settings(frozenset(), frozenset())
    assert settings.contents is contents.DISK
    assert dataclasses.replace(settings, contents=contents.Overlay({})).contents is not contents.DISK


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_an_editors_buffers_with_a_file_path_as_the_language_server_runs(repo: Repo) -> None:
    """The prompt open in an editor, the card edited in another buffer and not saved: a
    check of the prompt's path reports the drift the card's buffer makes."""
    repo.agent()
    _git(repo.root, "init", "-q")
    prompt = repo.root / "agent" / "system_prompt.md"
    card = repo.root / ".well-known" / "agent-card.json"
    cfg = config.load(None, str(prompt))

    def codes(buffers: dict[str, bytes]) -> list[tuple[str, str]]:
        settings = pipeline.Settings(
            frozenset(CODES), frozenset(), False, 1, contents=contents.Overlay(buffers)
        )
        result = pipeline.run([str(prompt)], cfg, settings)
        return [(f.code, os.path.join(result.root, f.loc.path)) for f in result.findings]

    assert codes({str(prompt): prompt.read_bytes()}) == []
    edited = card.read_bytes().replace(b"ask for one family per cut", b"one family a cut")
    assert codes({str(prompt): prompt.read_bytes(), str(card): edited}) == [("RL203", str(prompt))]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_index_reads_the_config_the_commit_will_hold(repo: Repo) -> None:
    repo.agent()
    prompt = repo.root / "agent" / "system_prompt.md"
    prompt.write_text(prompt.read_text().replace("ask for one family", "ask for two families"))
    _git(repo.root, "init", "-q")
    _git(repo.root, "add", "-A")
    assert "RL203" in run_cli("check", str(repo.root), "--git-index", "--no-cache").stdout
    # An untracked config is not in the commit: it changes nothing.
    config_file = repo.write(".refusal-lint.yaml", "ignore: [RL203]\n")
    assert "RL203" not in repo.check()
    assert "RL203" in run_cli("check", str(repo.root), "--git-index", "--no-cache").stdout
    # Staged, it counts, even once the working copy says otherwise.
    _git(repo.root, "add", ".refusal-lint.yaml")
    config_file.write_text("ignore: []\n")
    assert "RL203" in repo.check()
    assert "RL203" not in run_cli("check", str(repo.root), "--git-index", "--no-cache").stdout
