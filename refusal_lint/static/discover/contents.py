"""Where a run reads files from: the disk (default), git's index (`--git-index`), or an
editor's unsaved buffers over the disk (the language server).

A source lists the candidate files (`walk`) and gives the bytes of one (`read`). An entry
whose bytes differ from the disk carries them (`Entry.data`): every reader uses them, and
the cache never answers such an entry by size and stamp (its content key still works).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from refusal_lint.core import sourcetext
from refusal_lint.core.errors import UsageError
from refusal_lint.core.filekinds import kind_of
from refusal_lint.core.kinds import FileKind
from refusal_lint.static.discover import walk as discover

if TYPE_CHECKING:
    import subprocess

    import pathspec


class Disk:
    """Files as they stand on the disk."""

    name = "disk"

    def walk(self, root: str, targets: list[str], exclude: list[str], exclude_base: str) -> discover.Walk:
        return discover.walk(root, targets, exclude, exclude_base)

    def read(self, path: str) -> bytes:
        """The bytes of the file at `path` (absolute); OSError when it cannot be read."""
        with open(path, "rb") as fh:
            return fh.read()

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def wrote(self, paths: Iterable[str]) -> None:
        """--fix rewrote these files (absolute paths) on the disk; the run after it reads them there."""

    def held(self, path: str) -> bytes | None:
        """A file found by name (the config file): its bytes, or None when the run does not
        count it."""
        try:
            return self.read(path)
        except OSError:
            return None


class Overlay(Disk):
    """The disk, with some files' bytes replaced (an editor's open buffers, by absolute path).

    A buffer of a file not on disk yet (a new, unsaved file) is a candidate like any other."""

    name = "overlay"

    def __init__(self, buffers: Mapping[str, bytes]) -> None:
        self.buffers = {os.path.abspath(p): data for p, data in buffers.items()}

    def walk(self, root: str, targets: list[str], exclude: list[str], exclude_base: str) -> discover.Walk:
        walk = discover.walk(root, targets, exclude, exclude_base)
        files = [self._with_buffer(e) for e in walk.files]
        listed = {e.abs for e in files}
        for path, data in sorted(self.buffers.items()):
            new = path not in listed and not os.path.exists(path) and kind_of(path) is not None
            if new and _under(path, targets):
                files.append(discover.Entry(_rel(path, root), path, len(data), 0, data))
        return discover.Walk(files, walk.skipped)

    def _with_buffer(self, e: discover.Entry) -> discover.Entry:
        data = self.buffers.get(e.abs)
        return e if data is None else discover.Entry(e.rel, e.abs, len(data), 0, data)

    def read(self, path: str) -> bytes:
        data = self.buffers.get(os.path.abspath(path))
        return data if data is not None else super().read(path)

    def exists(self, path: str) -> bool:
        return os.path.abspath(path) in self.buffers or super().exists(path)


class GitIndex(Disk):
    """The files in git's index, with the bytes the next commit will hold.

    Untracked files are never listed. A file whose working copy matches the index is read
    from the disk as usual (and answered by the cache as usual); one that differs, or is
    gone from the disk, carries the index's blob, read with one `git cat-file --batch`."""

    name = "git-index"

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}  # absolute path -> the index's bytes, where they differ
        # Files --fix rewrote: read from the disk, as the commit will hold them once staged.
        self.fixed: set[str] = set()

    def wrote(self, paths: Iterable[str]) -> None:
        self.fixed.update(os.path.abspath(p) for p in paths)

    def walk(self, root: str, targets: list[str], exclude: list[str], exclude_base: str) -> discover.Walk:
        top = _git_top(root)
        specs = [_sub(os.path.abspath(t), top) for t in targets]
        out = discover.Walk([], [])
        rows = self._listing(top, specs, root, out)
        ignored = set(_git(top, "ls-files", "-z", "-c", "-i", "--exclude-standard", "--", *specs))
        differ = set(_git(top, "diff-files", "--name-only", "-z", "--", *specs))
        excl = discover.exclude_spec(exclude)
        # A folder holding pyvenv.cfg is a virtualenv, skipped as the disk walk skips it.
        venvs = {p.rpartition("/")[0] or "." for p, _, _ in rows if p.rpartition("/")[2] == "pyvenv.cfg"}
        venvs -= {s.rstrip("/") for s in specs}
        wanted: list[tuple[str, str]] = []  # (absolute path, blob) to read from the index
        names = discover.OneName(out.files)  # a tracked symlink to a tracked file: read once
        for path, mode, blob in rows:
            absolute = os.path.join(top, *path.split("/"))
            if (
                path in ignored
                or mode == "160000"  # a submodule: another repository
                or kind_of(path) is None
                or any(part in discover.NEVER_ENTER for part in path.split("/")[:-1])
                or any(v == "." or path.startswith(v + "/") for v in venvs)
                or (excl is not None and _excluded(excl, absolute, exclude_base))
            ):
                continue
            st = _stat(absolute) if path not in differ or absolute in self.fixed else None
            if st is not None:
                entry = discover.Entry(_rel(absolute, root), absolute, st.st_size, discover.stamp(st))
                names.add(entry, st, mode == "120000")
            elif mode != "120000":  # a changed symlink: the index holds only its target's name
                wanted.append((absolute, blob))
        self.blobs = dict(zip([a for a, _ in wanted], _cat_blobs(top, [b for _, b in wanted]), strict=True))
        for absolute, data in self.blobs.items():
            out.files.append(discover.Entry(_rel(absolute, root), absolute, len(data), 0, data))
        out.files.sort(key=lambda e: e.rel)
        return out

    @staticmethod
    def _listing(top: str, specs: list[str], root: str, out: discover.Walk) -> list[tuple[str, str, str]]:
        """(path in the repository, mode, blob) of each merged file in the index; an unmerged
        one (a conflict being resolved) is noted and not read."""
        rows = []
        stages: dict[str, set[str]] = {}
        for record in _git(top, "ls-files", "--stage", "-z", "--", *specs):
            meta, _, path = record.partition("\t")
            mode, blob, stage = meta.split(" ")
            stages.setdefault(path, set()).add(stage)
            if stage == "0":
                rows.append((path, mode, blob))
        for path, found in sorted(stages.items()):
            if "0" not in found:
                where = _rel(os.path.join(top, path), root)
                out.skipped.append(f"{where}: unmerged in git's index, not read")
        return rows

    def read(self, path: str) -> bytes:
        data = self.blobs.get(os.path.abspath(path))
        return data if data is not None else super().read(path)

    def exists(self, path: str) -> bool:
        """On the disk, or in the index only (deleted from the work tree, not yet staged:
        the commit still holds it)."""
        if super().exists(path):
            return True
        listed = _run_git(_folder(path), "ls-files", "-z", "--", os.path.abspath(path))
        return bool(listed)

    def held(self, path: str) -> bytes | None:
        """The index's bytes of a file found by name; None when git does not track it (the
        commit will not hold it). Outside any git work tree, the disk's."""
        folder, name = os.path.split(os.path.abspath(path))
        staged = _run_git(folder, "cat-file", "blob", f":./{name}")
        if staged is not None:
            return staged
        if _run_git(folder, "rev-parse", "--is-inside-work-tree") is None:
            return super().held(path)
        return None


DISK = Disk()
Source = Disk  # every source is a Disk or refines one


def _folder(path: str) -> str:
    path = os.path.abspath(path)
    while not os.path.isdir(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


def _process(cwd: str, args: list[str], request: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """`git ARGS` in `cwd`, its output captured (subprocess imported here: only --git-index
    and a named file's staged copy pay for it, not every run's start-up)."""
    import subprocess

    return subprocess.run(["git", *args], cwd=cwd, input=request, capture_output=True, check=False)


def _git(cwd: str, *args: str) -> list[str]:
    """A git command's NUL-separated output, one item a record."""
    try:
        done = _process(cwd, ["--literal-pathspecs", "-c", "core.quotePath=false", *args])
    except OSError as exc:
        raise UsageError(f"--git-index: cannot run git ({exc.strerror or exc})") from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(f"--git-index: git {args[0]} failed in {cwd}: {why[-1] if why else done.returncode}")
    return [r for r in done.stdout.decode("utf-8", "surrogateescape").split("\0") if r]


def _run_git(cwd: str, *args: str) -> bytes | None:
    """A git command's output; None when it fails or git cannot run."""
    try:
        done = _process(cwd, list(args))
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def _git_top(folder: str) -> str:
    try:
        done = _process(_folder(folder), ["rev-parse", "--show-toplevel"])
    except OSError as exc:
        raise UsageError(f"--git-index: cannot run git ({exc.strerror or exc})") from None
    if done.returncode != 0:
        raise UsageError(f"--git-index: {folder} is not inside a git work tree")
    return os.path.abspath(done.stdout.decode("utf-8", "surrogateescape").strip())


def _cat_blobs(top: str, blobs: list[str]) -> list[bytes]:
    """The bytes of each blob, in order, from one `git cat-file --batch` process."""
    if not blobs:
        return []
    request = "".join(b + "\n" for b in blobs).encode()
    done = _process(top, ["cat-file", "--batch"], request)
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip()
        raise UsageError(f"--git-index: git cat-file failed: {why}")
    out, raw, pos = [], done.stdout, 0
    for blob in blobs:
        end = raw.index(b"\n", pos)
        header = raw[pos:end].split(b" ")
        if len(header) != 3:  # "<blob> missing"
            raise UsageError(f"--git-index: blob {blob} is missing from the repository")
        size = int(header[2])
        out.append(raw[end + 1 : end + 1 + size])
        pos = end + 1 + size + 1  # the content is followed by a newline
    return out


def _sub(path: str, top: str) -> str:
    rel = os.path.relpath(path, top).replace(os.sep, "/")
    if rel == ".." or rel.startswith("../"):
        raise UsageError(f"--git-index: {path} is outside the git work tree {top}")
    return "." if rel == "." else rel


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _rel(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def _under(path: str, targets: Iterable[str]) -> bool:
    for t in targets:
        t = os.path.abspath(t)
        if path == t or path.startswith(t.rstrip(os.sep) + os.sep):
            return True
    return False


def _excluded(spec: pathspec.GitIgnoreSpec, path: str, base: str) -> bool:
    sub = _rel(path, base)
    return not sub.startswith("../") and spec.match_file(sub)


def read_bytes(
    rel: str, path: str, size: int, given: bytes | None, max_size: int, configured: bool
) -> tuple[bytes | None, str | None]:
    """A file's bytes (`given`: git's index or an editor's buffer, not the disk), or the
    note saying why not; the one reader of the main process and of the workers."""
    if size > max_size and not configured:
        return None, f"{rel}: skipped, {size} bytes is over max-file-size ({max_size})"
    python = kind_of(rel) == FileKind.PYTHON
    if given is not None:
        return sourcetext.as_utf8(given, python), None
    try:
        with open(path, "rb") as fh:
            return sourcetext.as_utf8(fh.read(), python), None
    except OSError as exc:
        return None, f"{rel}: cannot read ({exc.strerror or exc})"


_PIECE = 1 << 22


@lru_cache(maxsize=64)
def too_large_matters(entry: discover.Entry, matters: Callable[[str, Iterable[bytes]], bool]) -> bool:
    """`matters(rel, pieces)` of a file too large to read whole (gate/prefilter.py's), its
    bytes searched once however many stages ask (the scan, the scan again once a Python
    card's ids are known, the prompt stage); an entry changed is another key."""
    return matters(entry.rel, pieces(entry.abs, entry.data))


def pieces(path: str, given: bytes | None) -> Iterator[bytes]:
    """A file too large to read whole, piece by piece, each starting 64 bytes before the last
    one ended (a word across a boundary is whole in one); nothing where it cannot be read."""
    if given is not None:
        yield from (given[max(0, at - 64) : at + _PIECE] for at in range(0, len(given), _PIECE))
        return
    try:
        with open(path, "rb") as fh:
            tail = b""
            while piece := fh.read(_PIECE):
                yield tail + piece
                tail = piece[-64:]
    except OSError:
        return
