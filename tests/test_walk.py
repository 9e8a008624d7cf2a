"""The file walk: .gitignore inside and outside git, exclude globs, folders never entered."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from refusal_lint.static.discover.walk import walk


def _files(root: Path, exclude: list[str] | None = None) -> list[str]:
    return sorted(e.rel for e in walk(str(root), [str(root)], exclude or [], str(root)).files)


def _touch(root: Path, *rels: str) -> None:
    for rel in rels:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x = 1\n")


@pytest.mark.parametrize("git", [False, True])
def test_gitignore_honoured_with_or_without_git(tmp_path: Path, git: bool) -> None:
    if git:
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _touch(tmp_path, "agent/tools.py", "build/gen.py", "agent/secret.py", "agent/keep.py", "notes.log.py")
    (tmp_path / ".gitignore").write_text("build/\n*.log.py\n")
    (tmp_path / "agent" / ".gitignore").write_text("secret.py\n")
    assert _files(tmp_path) == ["agent/keep.py", "agent/tools.py"]


def test_gitignore_above_the_scanned_folder(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _touch(tmp_path, "sub/a.py", "sub/gen_x.py")
    (tmp_path / ".gitignore").write_text("gen_*.py\n")
    assert sorted(
        e.rel for e in walk(str(tmp_path / "sub"), [str(tmp_path / "sub")], [], str(tmp_path)).files
    ) == ["a.py"]


def test_never_entered(tmp_path: Path) -> None:
    _touch(
        tmp_path,
        "a.py",
        ".git/hooks/x.py",
        "node_modules/p/x.py",
        "pkg/__pycache__/x.py",
        ".venv/lib/x.py",
        "env2/lib/y.py",
    )
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    (tmp_path / "env2" / "pyvenv.cfg").write_text("home = /usr\n")
    assert _files(tmp_path) == ["a.py"]


def test_exclude_globs_are_gitignore_style(tmp_path: Path) -> None:
    _touch(tmp_path, "agent/x.py", "agent/deep/y.py", "tests/test_x.py", "keep.py")
    assert _files(tmp_path, ["tests/**", "agent/**/*.py"]) == ["keep.py"]


_SEGMENTS = st.sampled_from(["a", "b", "build", "x.pyc", "keep.pyc", "docs", "y.txt", "agent", "card.json"])
_PATTERNS = st.sampled_from(
    [
        "*.pyc",
        "!keep.pyc",
        "build/",
        "/docs",
        "docs/**/x",
        "a/*.txt",
        "**/b",
        "agent/",
        "!agent/card.json",
        "*.json",
        "*.py[cod]",
        "*$py.class",
        "/b?ild",
        "[ab]/*.txt",
        "docs/**",
        "**/x.pyc/",
        "!/a/[!x]*",
    ]
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_PATTERNS, max_size=6), st.lists(_SEGMENTS, min_size=1, max_size=4), st.booleans())
def test_ignore_shortcut_agrees_with_pathspec(patterns: list[str], parts: list[str], is_dir: bool) -> None:
    """The union regex only skips asking pathspec where no pattern matches: same verdicts."""
    import pathspec

    from refusal_lint.static.discover.walk import _Ignore, _ignored

    spec = pathspec.GitIgnoreSpec.from_lines(patterns)
    path = "/r/" + "/".join(parts)
    want = spec.check_file("/".join(parts) + ("/" if is_dir else "")).include or False
    assert _ignored(path, is_dir, [_Ignore("/r", patterns)]) is want


def test_unlistable_folder_is_a_note_and_the_rest_is_walked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _touch(tmp_path, "a.py", "locked/b.py", "open/c.py")
    real = os.scandir

    def scandir(path: str) -> Any:
        if os.path.basename(path) == "locked":  # as chmod 000 would (the tests may run as root)
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = walk(str(tmp_path), [str(tmp_path)], [], str(tmp_path))
    assert sorted(e.rel for e in found.files) == ["a.py", "open/c.py"]
    assert found.skipped == ["locked: cannot list folder (Permission denied)"]


def test_overlapping_targets_walk_a_folder_once(tmp_path: Path) -> None:
    _touch(tmp_path, "a.py", "sub/b.py")
    found = walk(str(tmp_path), [str(tmp_path / "sub"), str(tmp_path)], [], str(tmp_path))
    assert [e.rel for e in found.files] == ["sub/b.py", "a.py"]


def test_a_named_file_is_read_if_ignored_and_only_if_its_kind_is_read(tmp_path: Path) -> None:
    _touch(tmp_path, "gen.py", "notes.log")
    (tmp_path / ".gitignore").write_text("gen.py\n")
    assert _files(tmp_path) == []
    targets = [str(tmp_path / "gen.py"), str(tmp_path / "notes.log")]
    assert [e.rel for e in walk(str(tmp_path), targets, [], str(tmp_path)).files] == ["gen.py"]


_GLOB_PIECES = st.sampled_from(
    [
        "a",
        "b",
        ".",
        "/",
        "*",
        "**",
        "?",
        "[ab]",
        "[!a]",
        "[]a]",
        "[a-c]",
        "[^b]",
        "[",
        "]",
        "!",
        "\\",
        " ",
        "x.py",
        "-",
        "**/",
    ]
)
_PATH_PIECES = st.sampled_from(["a", "b", ".", "/", "x.py", "]", "[", "!", " ", "-", "ab", "c"])


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(_GLOB_PIECES, min_size=1, max_size=7).map("".join),
    st.lists(_PATH_PIECES, min_size=1, max_size=8),
)
def test_loose_finds_every_path_pathspec_matches(line: str, parts: list[str]) -> None:
    """The walk's own reading of a gitignore line (imported only where it may match) finds
    every path pathspec's pattern matches: a superset, so no ignored path is walked."""
    import re
    import warnings

    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    from refusal_lint.static.discover.walk import loose

    warnings.simplefilter("ignore", FutureWarning)  # pathspec's regexes of `[[` say "nested set"

    sub = "".join(parts).strip("/") or "a"
    try:
        regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
        if include is None or regex is None:
            return
        compiled = re.compile(regex)
    except Exception:  # pathspec rejects the line (its spec would too): nothing to hold
        return
    for path in (sub, sub + "/"):
        if compiled.match(path) is not None:
            assert re.search(loose(line), path) is not None, (line, path)


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(st.lists(_GLOB_PIECES, min_size=1, max_size=7).map("".join), min_size=1, max_size=3),
    st.lists(_PATH_PIECES, min_size=1, max_size=8),
)
@example([" a"], [" ", "a"])  # a leading blank is the pattern's: ` a` is no plain name `a`
def test_may_match_is_the_search_of_every_line(lines: list[str], parts: list[str]) -> None:
    """A .gitignore's cheap test tries each line's `loose` regex only where a match can
    start (the path's start, or a folder's), and answers as searching the whole path for
    any of them would (or a plain name or suffix of a component)."""
    import re

    from refusal_lint.static.discover.walk import _Ignore, loose

    sub = "".join(parts).strip("/") or "a"
    ignore = _Ignore("/base", lines)
    for path in (sub, sub + "/"):
        plain = any(re.search(loose(line), path) is not None for line in lines)
        if not plain:
            assert not ignore.may_match(path) or any(
                part in ignore.names or (ignore.suffixes and part.endswith(ignore.suffixes))
                for part in path.split("/")
            ), (lines, path)
        else:
            assert ignore.may_match(path), (lines, path)
