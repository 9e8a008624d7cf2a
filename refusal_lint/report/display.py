"""Paths as reports show them (DESIGN §4): relative to the current folder, as ruff prints
them (absolute when outside it), '/'-separated. Inside a run every path is relative to the
run's root; this is the one place they are converted, just before a report is rendered."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from refusal_lint.core.model import PATH_MARK, Edit, Finding, Loc, PromptLine

T = TypeVar("T")


def from_cwd(root: str, cwd: str | None = None) -> Callable[[str], str]:
    """A root-relative path as seen from `cwd` (default: the current folder)."""
    here = os.path.abspath(cwd if cwd is not None else os.getcwd())
    base = os.path.abspath(root)
    memo: dict[str, str] = {}

    def show(path: str) -> str:
        out = memo.get(path)
        if out is None:
            absolute = os.path.normpath(os.path.join(base, path))
            try:
                rel = os.path.relpath(absolute, here)
            except ValueError:  # another drive (Windows)
                rel = os.pardir
            out = absolute if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel
            out = memo[path] = out.replace(os.sep, "/")
        return out

    return show


def note(text: str, root: str, show: Callable[[str], str]) -> str:
    """A note that starts with a root-relative path (`path: ...`, `path:line: ...`), with
    that path shown as the reports show it."""
    head, sep, rest = text.partition(":")
    if sep and head and os.path.lexists(os.path.join(root, head)):
        return show(head) + sep + rest
    return text


def findings(found: Iterable[Finding], show: Callable[[str], str]) -> tuple[Finding, ...]:
    """The findings with their paths as shown, sorted by those (DESIGN §4: path, line,
    column, code): from a subfolder, `../prompt.md` as shown, not as the root names it."""
    return tuple(sorted(relocate(list(found), show), key=Finding.sort_key))


def relocate(obj: T, show: Callable[[str], str]) -> T:
    """`obj` with every Loc's and Edit's path passed through `show` (findings, agents and
    what they hold); nothing else changes."""
    return _relocate(obj, show, {})  # type: ignore[no-any-return]


def _relocate(obj: Any, show: Callable[[str], str], seen: dict[int, Any]) -> Any:
    if isinstance(obj, Loc | Edit):
        return dataclasses.replace(obj, path=show(obj.path))
    if isinstance(obj, PromptLine) and obj.path:
        # A prompt line of another module than its prompt's (`BASE + POLICY`, POLICY imported)
        return dataclasses.replace(obj, path=show(obj.path))
    if isinstance(obj, str | int | float | bool | bytes) or obj is None:
        return obj
    if id(obj) in seen:  # the same object twice (a rule set shared by an agent and its findings)
        return seen[id(obj)]
    out: Any
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {
            f.name: _relocate(getattr(obj, f.name), show, seen) for f in dataclasses.fields(obj) if f.init
        }
        if isinstance(obj, Finding):
            changes["message"] = _message(obj.message, show)
        out = dataclasses.replace(obj, **changes)
    elif isinstance(obj, list):
        out = [_relocate(x, show, seen) for x in obj]
    elif isinstance(obj, tuple):
        items = [_relocate(x, show, seen) for x in obj]
        out = type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
    else:
        out = obj  # sets of root-relative paths (an agent's files) are bookkeeping, not shown
    seen[id(obj)] = out
    return out


def _message(text: str, show: Callable[[str], str]) -> str:
    """A message with each path it names (model.message_path) shown, unmarked."""
    parts = text.split(PATH_MARK)
    parts[1::2] = [show(p) for p in parts[1::2]]
    return "".join(parts)
