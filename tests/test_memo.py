"""The runs' memo (static/memo.py): an unchanged tree is answered whole, with the same
bytes as a run that works it out; any change of what the run reads works it out again."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from conftest import TESTDATA, Repo, run_cli

from refusal_lint.static import memo, pipeline, schedule

FORMATS = ["json", "text", "sarif", "github", "junit", "rdjson"]


def _copy(name: str, dest: Path) -> Path:
    root = dest / name
    shutil.copytree(
        TESTDATA / name, root, ignore=shutil.ignore_patterns("expected.txt", ".refusal_lint_cache")
    )
    return root


def _out(root: Path, *args: str) -> tuple[int, str]:
    result = run_cli("check", str(root), *args, cwd=root)
    return result.exit_code, result.stdout


def _unworked(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on a run that works anything out fails the test."""

    def no(*_: object, **__: object) -> None:
        raise AssertionError("the run was worked out, not answered from the memo")

    monkeypatch.setattr(schedule, "Extraction", no)


def _kept(root: Path) -> list[Path]:
    """The runs kept for the tree at `root`."""
    return sorted((root / ".refusal_lint_cache" / memo.FOLDER).glob("*.json"))


def _touch(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    time.sleep(0.01)  # a distinct stamp even on coarse file systems
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_unchanged_tree_is_answered_whole_with_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    root = _copy("py-rl303", tmp_path)
    fresh = _out(root, "--no-cache", "--format", fmt)
    assert fresh[0] == 1
    assert _out(root, "--format", fmt) == fresh  # works it out, and keeps it
    _unworked(monkeypatch)
    assert _out(root, "--format", fmt) == fresh


def test_a_kept_run_fixes_as_a_worked_one(tmp_path: Path) -> None:
    """`--fix` on a tree answered whole (the run before kept it) rewrites the drift, and the
    run after it reads the rewritten file, not the kept result."""
    root = _copy("py-rl303", tmp_path)
    _out(root)
    assert run_cli("check", str(root), "--fix", cwd=root).exit_code == 0
    assert "Segmentation families cannot be crossed" in (root / "survey/tools.py").read_text()
    fixed = _out(root, "--no-cache")
    assert fixed[0] == 0
    assert _out(root) == fixed


@pytest.mark.parametrize(
    "change",
    [
        "edit a guard, same size",
        "add a guard module",
        "remove the prompt",
        "config ignores per file",
        "option selects",
        "exhaustive",
    ],
)
def test_what_the_run_reads_changed_works_it_out_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    root = _copy("py-rl303", tmp_path)
    args: list[str] = ["--format", "json"]
    if change == "config ignores per file":
        # A config the walk does not list (ignored by git): its edit changes no file of the
        # walk, nor any setting, so the config's own part of the key shows.
        (root / ".gitignore").write_text(".refusal-lint.yaml\n")
        config = root / ".refusal-lint.yaml"
        config.write_text('per-file-ignores: {"prompt.md": ["RL203"]}\n')
    before = _out(root, *args)
    if change == "edit a guard, same size":
        _touch(root / "survey/tools.py", '"invalid-cut"', '"invalid-cux"')
    elif change == "add a guard module":
        (root / "survey/more.py").write_text(
            'from survey.policy import refuse\n\n\ndef f():\n    return refuse("astro-cut")\n'
        )
    elif change == "remove the prompt":
        (root / "prompt.md").unlink()
    elif change == "config ignores per file":
        config.write_text(config.read_text().replace("prompt.md", "survey/*.py").replace("RL203", "RL303"))
    elif change == "option selects":
        args += ["--select", "RL2"]
    else:
        monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", "1")
    after = _out(root, *args)
    assert after == _out(root, *args, "--no-cache")
    assert len(_kept(root)) <= memo.KEPT
    if change != "exhaustive":
        assert after != before, change
    else:
        assert after == before  # the same findings, from its own kept run
        assert len(_kept(root)) == 2


def test_a_run_for_some_files_keeps_nothing(tmp_path: Path) -> None:
    """Which agents own the files given is worked out from the whole tree each time."""
    root = _copy("py-rl303", tmp_path)
    assert run_cli("check", str(root / "survey/tools.py"), cwd=root).exit_code == 1
    assert _kept(root) == []


def test_a_run_with_unchecked_facts_keeps_nothing(repo: Repo) -> None:
    """A file past a limit is tried again by the next run, as the files' cache does."""
    root = repo.agent().root
    (root / ".refusal-lint.yaml").write_text("max-file-size: 1000\n")
    prompt = root / "agent/system_prompt.md"
    prompt.write_text(prompt.read_text() + "Answer from the tables only.\n" * 80)
    found = json.loads(run_cli("check", str(root), "--format", "json", cwd=root).stdout)["findings"]
    assert [f["code"] for f in found] == ["RL005"]
    assert _kept(root) == []


@pytest.mark.parametrize(
    "damage",
    [
        "not json",
        "[1, 2]",
        "wrong shapes",
        "findings of another shape",
        "a class of another package",
    ],
)
def test_a_damaged_or_foreign_memo_is_worked_around(tmp_path: Path, damage: str) -> None:
    root = _copy("py-rl303", tmp_path)
    want = _out(root, "--format", "json")
    (store,) = _kept(root)
    kept = json.loads(store.read_text())
    if damage == "wrong shapes":
        text = json.dumps({"c": "refusal_lint.static.pipeline:Result", "f": {"root": 3}})
    elif damage == "findings of another shape":
        kept["f"]["findings"] = [1, 2]
        text = json.dumps(kept)
    elif damage == "a class of another package":
        text = json.dumps({"c": "antigravity:fly", "f": {}})
    else:
        text = damage
    store.write_text(text)
    assert _out(root, "--format", "json") == want
    assert "antigravity" not in sys.modules  # never imported, let alone run


def test_only_this_package_s_dataclasses_and_enums_are_made() -> None:
    for place in ("os:system", "refusal_lint.static.memo:key", "refusal_lint.static.schedule:Extraction"):
        with pytest.raises(TypeError):
            memo._decode({"c": place, "f": {}})
    with pytest.raises(TypeError):
        memo._decode({"e": "refusal_lint.core.model:Finding", "v": 1})


@pytest.mark.parametrize("name", sorted(p.name for p in TESTDATA.iterdir() if p.is_dir()))
def test_every_fixture_s_result_is_kept_as_it_is(tmp_path: Path, name: str) -> None:
    """The memo's codec gives back an equal result: findings, agents and all they hold."""
    from refusal_lint.static.configure import configure

    root = _copy(name, tmp_path)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        targets, cfg, settings = configure((".",), None, None, None, True, None, False)
        result = pipeline.run(targets, cfg, settings)
    finally:
        os.chdir(cwd)
    data = json.loads(json.dumps(memo._encode(result)))
    assert memo._decode(data) == result


def test_the_runs_used_last_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _copy("py-rl303", tmp_path)
    for code in ("RL1", "RL2", "RL3", "RL4"):
        _out(root, "--select", code)
        time.sleep(0.01)  # distinct stamps of use
    _out(root, "--select", "RL1")  # answered: used last now
    time.sleep(0.01)
    _out(root, "--select", "RL5")  # a fifth: the one used least lately (RL2's) goes
    assert len(_kept(root)) == memo.KEPT
    _unworked(monkeypatch)  # a run worked out now fails (exit 2)
    codes = ("RL1", "RL3", "RL4", "RL5", "RL2")
    assert [_out(root, "--select", code)[0] for code in codes] == [0, 1, 0, 0, 2]
