"""The file walk: .gitignore honoured, never entering .git, virtualenvs, node_modules,
__pycache__ (prefilter.py then decides which files are worth reading)."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from refusal_lint.filekinds import kind_of

if TYPE_CHECKING:
    import pathspec

NEVER_ENTER = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".refusal_lint_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
        ".nox",
    }
)


@dataclass(frozen=True)
class Entry:
    rel: str  # relative to the scan root, '/'-separated
    abs: str
    size: int
    mtime_ns: int = 0
    # The bytes, where they are not the disk's (git's index, an editor's buffer; contents.py):
    # read from here, and never answered by the cache from size and mtime.
    data: bytes | None = None


@dataclass
class Walk:
    files: list[Entry]
    skipped: list[str]  # one-line notes: unreadable folders, loops


def gitignore_spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    import pathspec  # only trees with a .gitignore or globs pay for it

    return pathspec.GitIgnoreSpec.from_lines(lines)


def exclude_spec(lines: list[str]) -> pathspec.GitIgnoreSpec | None:
    lines = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    return gitignore_spec(lines) if lines else None


_SIMPLE_SUFFIX = re.compile(r"\*(\.[A-Za-z0-9_.+-]+)\Z")


class _Ignore:
    """One .gitignore: its folder, a cheap test of whether any of its patterns can match a
    path at all, and pathspec's spec for the exact verdict, built only when one can (most
    paths match no pattern, and compiling every pattern of every .gitignore costs more
    than the whole walk).

    The test is a superset: plain names (`build`, `.venv/`) and `*.ext` lines become set
    and suffix checks on every component of the path; other lines one regex."""

    def __init__(self, base: str, lines: list[str]) -> None:
        self.base = base
        self.lines = lines
        self._spec: pathspec.GitIgnoreSpec | None = None
        self.names: set[str] = set()
        suffixes: list[str] = []
        complex_lines: list[str] = []
        for line in lines:
            pattern = line.strip()
            body = pattern[:-1] if pattern.endswith("/") else pattern
            if not body or pattern.startswith(("!", "/")) or "/" in body or "\\" in body:
                complex_lines.append(line)
            elif (m := _SIMPLE_SUFFIX.match(body)) is not None:
                suffixes.append(m.group(1))
            elif any(c in body for c in "*?["):
                complex_lines.append(line)
            else:
                self.names.add(body)
        self.suffixes = tuple(suffixes)
        self.regex: re.Pattern[str] | None = None
        if complex_lines:
            from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

            alternatives = []
            for line in complex_lines:
                regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
                if include is not None and regex is not None:
                    alternatives.append("(?:" + str(regex).replace("(?P<ps_d>", "(?:") + ")")
            self.regex = re.compile("|".join(alternatives)) if alternatives else None

    def may_match(self, sub: str) -> bool:
        if self.names or self.suffixes:
            for part in sub.split("/"):
                if part in self.names or (self.suffixes and part.endswith(self.suffixes)):
                    return True
        return self.regex is not None and self.regex.search(sub) is not None

    @property
    def spec(self) -> pathspec.GitIgnoreSpec:
        if self._spec is None:
            self._spec = gitignore_spec(self.lines)
        return self._spec


def _read_ignore(folder: str) -> _Ignore | None:
    try:
        with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as fh:
            lines = [ln for ln in fh.read().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    except OSError:
        return None
    return _Ignore(folder, lines) if lines else None


def _sub(path: str, base: str) -> str:
    """`path` relative to its ancestor `base`, '/'-separated (slicing: relpath is slow)."""
    if path.startswith(base) and path[len(base) : len(base) + 1] == os.sep:
        sub = path[len(base) + 1 :]
    else:
        sub = os.path.relpath(path, base)
    return sub.replace(os.sep, "/") if os.sep != "/" else sub


def _ignored(path: str, is_dir: bool, ignores: list[_Ignore]) -> bool:
    """Git's rule: the last matching pattern wins, deeper .gitignore files last."""
    verdict = False
    for ig in ignores:
        sub = _sub(path, ig.base)
        if is_dir:
            sub += "/"
        if not ig.may_match(sub):
            continue
        result = ig.spec.check_file(sub)
        if result.include is not None:
            verdict = result.include
    return verdict


def walk(root: str, targets: list[str], exclude: list[str], exclude_base: str) -> Walk:
    """Every candidate file under `targets` (absolute paths), relative to `root`."""
    out = Walk([], [])
    excl = exclude_spec(exclude)
    seen_dirs: set[tuple[int, int]] = set()

    def rel_of(path: str) -> str:
        return _sub(path, root)

    def excluded(path: str, is_dir: bool) -> bool:
        if excl is None:
            return False
        sub = _sub(path, exclude_base)
        return not sub.startswith("../") and excl.match_file(sub + "/" if is_dir else sub)

    def ignore_specs_above(folder: str) -> list[_Ignore]:
        specs = []
        here = os.path.abspath(folder)
        chain = []
        while True:
            chain.append(here)
            if os.path.isdir(os.path.join(here, ".git")):
                break
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
        for d in reversed(chain[1:]):
            ig = _read_ignore(d)
            if ig is not None:
                specs.append(ig)
        return specs

    for target in (os.path.abspath(t) for t in targets):
        if os.path.isfile(target):
            kind = kind_of(target)
            if kind is not None:
                fst = os.stat(target)
                out.files.append(Entry(rel_of(target), target, fst.st_size, fst.st_mtime_ns))
            continue
        base_specs = ignore_specs_above(target)
        stack: list[tuple[str, list[_Ignore]]] = [(target, base_specs)]
        while stack:
            folder, specs = stack.pop()
            try:
                st = os.stat(folder)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen_dirs:
                continue
            seen_dirs.add((st.st_dev, st.st_ino))
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                out.skipped.append(f"{rel_of(folder)}: cannot list folder ({exc.strerror})")
                continue
            names = {e.name for e in entries}
            if "pyvenv.cfg" in names and folder != target:
                continue
            own = _read_ignore(folder) if ".gitignore" in names else None
            here_specs = [*specs, own] if own else specs
            subdirs = []
            for e in entries:
                path = e.path
                rel = rel_of(path)
                try:
                    is_dir = e.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if e.name in NEVER_ENTER or _ignored(path, True, here_specs) or excluded(path, True):
                        continue
                    subdirs.append(path)
                    continue
                if kind_of(e.name) is None or _ignored(path, False, here_specs) or excluded(path, False):
                    continue
                try:
                    fst = os.stat(path)  # follows a symlinked file; a loop raises ELOOP
                except OSError:
                    continue
                if not stat.S_ISREG(fst.st_mode):
                    continue  # FIFOs, devices, sockets: never opened
                out.files.append(Entry(rel, path, fst.st_size, fst.st_mtime_ns))
            stack.extend((d, here_specs) for d in reversed(subdirs))
    return out


# ---- the text prefilter -----------------------------------------------------------------

# Stage one is plain substring search on the lower-cased bytes (fast); stage two, a precise
# pattern, runs only on the few files stage one lets through.
# Every shape of DESIGN §2's prompt table, as text: keyword arguments and assignments whose
# name holds prompt/instruction/backstory, `system=`/`goal=`, dict keys, chat roles,
# SystemMessage, and `@agent.system_prompt` decorators. A superset: libcst decides.
