"""The file walk: .gitignore honoured, never entering .git, virtualenvs, node_modules,
__pycache__ (prefilter.py then decides which files are worth reading)."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from refusal_lint.core.filekinds import kind_of

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
    # When its bytes last changed as the file system tells (stamp()): with the size, what
    # the cache answers an unchanged file by.
    stamp_ns: int = 0
    # The bytes, where they are not the disk's (git's index, an editor's buffer; contents.py):
    # read from here, and never answered by the cache from size and stamp.
    data: bytes | None = None


def stamp(st: os.stat_result) -> int:
    """The later of a file's modification and status-change times: a write moves both, and
    one whose mtime is put back after it (`touch -r`, `cp -p`, `rsync -t`) still moves the
    ctime, which no program sets; a chmod moves it too (the file is read again: harmless)."""
    return max(st.st_mtime_ns, st.st_ctime_ns)


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
    and suffix checks on every component of the path; other lines one regex (`loose`),
    written without pathspec, so a tree none of whose paths a pattern can match never
    imports it (eleven of the twelve shared repositories)."""

    def __init__(self, base: str, lines: list[str]) -> None:
        self.base = base
        self.lines = lines
        self._spec: pathspec.GitIgnoreSpec | None = None
        self.names: set[str] = set()
        suffixes: list[str] = []
        complex_lines: list[str] = []
        for line in lines:
            pattern = line.rstrip()  # leading blanks are the pattern's, as git (and `loose`) has it
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
        # `loose`'s regexes, by where a match may start: the path's start (a line anchored
        # at the folder), or any folder's start. Each is tried there only (`match`), not
        # searched for at every offset of the path.
        anchored: list[str] = []
        floating: list[str] = []
        for line in complex_lines:
            pattern = loose(line)
            if pattern.startswith(_ANY_FOLDER):
                floating.append(pattern[len(_ANY_FOLDER) :])
            else:
                anchored.append(pattern.removeprefix("^"))
        self.anchored = re.compile("|".join(f"(?:{p})" for p in anchored)) if anchored else None
        self.floating = re.compile("|".join(f"(?:{p})" for p in floating)) if floating else None

    def may_match(self, sub: str) -> bool:
        """Can a pattern match `sub`: `re.search(loose(line), sub)` for some line, or a
        plain name or suffix of it is a component?"""
        if self.names or self.suffixes:
            for part in sub.split("/"):
                if part in self.names or (self.suffixes and part.endswith(self.suffixes)):
                    return True
        if self.anchored is not None and self.anchored.match(sub) is not None:
            return True
        if self.floating is None:
            return False
        at = 0  # the path's start, then each folder's
        while self.floating.match(sub, at) is None:
            at = sub.find("/", at) + 1
            if at == 0:
                return False
        return True

    @property
    def spec(self) -> pathspec.GitIgnoreSpec:
        if self._spec is None:
            self._spec = gitignore_spec(self.lines)
        return self._spec


_ANY_FOLDER = "(?:^|/)"  # how `loose` starts a line that may match below any folder


def loose(line: str) -> str:
    """A regex finding every path (relative to the .gitignore's folder, a folder's with a
    trailing `/`) that the gitignore `line` can match, and maybe more. As git reads a line:
    one with a `/` before its end is anchored at the folder, another may start at any
    folder; it ends at a `/` or the path's end. Looser than git: a run of `*` (and the `/`
    after it) is any text, `?` and a bracket expression (bounded as pathspec bounds it) any
    one character, negation is dropped; an escape or an unclosed bracket, anything."""
    body = line.rstrip().removeprefix("!")  # leading blanks are the pattern's, as git has it
    if "\\" in body:
        return ""
    start = "^" if "/" in body.rstrip("/") else _ANY_FOLDER
    out: list[str] = [start]
    body = body.lstrip("/")
    i, end = 0, len(body)
    while i < end:
        char = body[i]
        i += 1
        if char == "*":
            while i < end and body[i] == "*":
                i += 1
            if i < end and body[i] == "/":
                i += 1  # `**/` may match no folder at all
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "[":
            j = i + 1 if i < end and body[i] in "!^" else i
            j = j + 1 if j < end and body[j] == "]" else j
            j = body.find("]", j)
            if j < 0:
                return ""
            out.append(".")
            i = j + 1
        else:
            out.append(re.escape(char))
    if not body.endswith("/"):
        out.append("(?:/|$)")
    return "".join(out)


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
    walker = _Walker(root, exclude_spec(exclude), exclude_base)
    for target in (os.path.abspath(t) for t in targets):
        if os.path.isfile(target):
            walker.named_file(target)
        else:
            walker.tree(target)
    return walker.out


def _ignores_above(folder: str) -> list[_Ignore]:
    """The .gitignore files of the folders above `folder`, up to its git work tree's top
    (or the file system's root), outermost first."""
    chain = []
    here = os.path.abspath(folder)
    while True:
        chain.append(here)
        if os.path.isdir(os.path.join(here, ".git")):
            break
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return [ig for ig in (_read_ignore(d) for d in reversed(chain[1:])) if ig is not None]


class _Walker:
    """One walk: the root paths are relative to, the --exclude globs, the folders seen
    (overlapping targets walk a folder once; a symlinked folder is never entered), and what
    was found."""

    def __init__(self, root: str, excl: pathspec.GitIgnoreSpec | None, exclude_base: str) -> None:
        self.root = root
        self.excl = excl
        self.exclude_base = exclude_base
        self.seen_dirs: set[tuple[int, int]] = set()
        self.out = Walk([], [])
        self.names = OneName(self.out.files)

    def excluded(self, path: str, is_dir: bool) -> bool:
        if self.excl is None:
            return False
        sub = _sub(path, self.exclude_base)
        return not sub.startswith("../") and self.excl.match_file(sub + "/" if is_dir else sub)

    def named_file(self, target: str) -> None:
        """A file named on the command line: taken if its kind is read, ignored or not."""
        if kind_of(target) is not None:
            fst = os.stat(target)
            self.out.files.append(Entry(_sub(target, self.root), target, fst.st_size, stamp(fst)))

    def tree(self, target: str) -> None:
        """The folder `target`, depth first in name order, each folder under the .gitignore
        files above it and its own."""
        stack: list[tuple[str, list[_Ignore]]] = [(target, _ignores_above(target))]
        while stack:
            folder, specs = stack.pop()
            entries = self._list(folder)
            if entries is None:
                continue
            names = {e.name for e in entries}
            if "pyvenv.cfg" in names and folder != target:
                continue  # a virtualenv: never the user's code
            own = _read_ignore(folder) if ".gitignore" in names else None
            here_specs = [*specs, own] if own else specs
            subdirs = self._take(entries, here_specs)
            stack.extend((d, here_specs) for d in reversed(subdirs))

    def _list(self, folder: str) -> list[os.DirEntry[str]] | None:
        """The folder's entries by name; None for a folder gone, seen or unreadable (noted)."""
        try:
            st = os.stat(folder)
        except OSError:
            return None
        if (st.st_dev, st.st_ino) in self.seen_dirs:
            return None
        self.seen_dirs.add((st.st_dev, st.st_ino))
        try:
            with os.scandir(folder) as it:
                return sorted(it, key=lambda e: e.name)
        except OSError as exc:
            self.out.skipped.append(f"{_sub(folder, self.root)}: cannot list folder ({exc.strerror})")
            return None

    def _take(self, entries: list[os.DirEntry[str]], specs: list[_Ignore]) -> list[str]:
        """Adds the folder's files worth reading to the walk; returns its folders to enter."""
        subdirs = []
        for e in entries:
            path = e.path
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if e.name in NEVER_ENTER or _ignored(path, True, specs) or self.excluded(path, True):
                    continue
                subdirs.append(path)
                continue
            if kind_of(e.name) is None or _ignored(path, False, specs) or self.excluded(path, False):
                continue
            try:
                fst = os.stat(path)  # follows a symlinked file; a loop raises ELOOP
            except OSError:
                continue
            if not stat.S_ISREG(fst.st_mode):
                continue  # FIFOs, devices, sockets: never opened
            self.names.add(Entry(_sub(path, self.root), path, fst.st_size, stamp(fst)), fst, e.is_symlink())
        return subdirs


class OneName:
    """Each file of a walk once (device, inode -> its entry's index): a symlink to a file of
    the tree, or a hard link, is one file under two names, read (and fixed) under its own."""

    def __init__(self, files: list[Entry]) -> None:
        self.files = files
        self.seen: dict[tuple[int, int], int] = {}
        self.links: set[int] = set()

    def add(self, entry: Entry, fst: os.stat_result, link: bool) -> None:
        """A file found, unless it was found under another name (a link's gives way to its own)."""
        key = (fst.st_dev, fst.st_ino)
        at = self.seen.get(key)
        if at is None:
            self.seen[key] = len(self.files)
            if link:
                self.links.add(len(self.files))
            self.files.append(entry)
        elif at in self.links and not link:
            self.files[at] = entry
            self.links.discard(at)
