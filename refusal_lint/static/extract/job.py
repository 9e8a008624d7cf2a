"""What one extraction needs: a file's bytes and what the run wants from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from refusal_lint.core.kinds import FileKind


class Callee(NamedTuple):
    """A call's callee as binding looks it up: `dotted` in the file, its head `local` bound
    by the file's one `from module import name` (gate/deferred.py)."""

    dotted: str
    local: str
    module: str
    name: str
    level: int


@dataclass(frozen=True)
class Job:
    path: str  # relative, '/'-separated
    kind: FileKind
    data: bytes
    want_card: bool = False
    want_prompt: bool = False  # discovered prompt file (by name or YAML shape)
    prompt_key: tuple[str, ...] | None = None  # configured YAML key paths ('' = whole file)
    read_whole: bool = False  # configured, or a module resolution needs: read even where no fact can be
    prompts: bool = False  # Python: a prompt candidate (second stage): parse it whatever the pre-check says
    guard_callables: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()  # the cards' rule ids: a call passing one is worth parsing
    exhaustive: bool = False  # every shortcut off: parsed and read whatever the pre-checks say
    content: bool = False  # the text can matter (relevance.py): parsed whatever the prompt shapes say
    defer: bool = False  # the scan: a file only binding can tell may wait for it (gate/deferred.py)
    # Set by the pre-check: it ran; and the callees binding must judge before the file is
    # read whole, where it waits.
    checked: bool = False
    deferred: tuple[Callee, ...] = ()


@dataclass(frozen=True)
class ScanJob:
    """A batch of Python files for a worker to read, prefilter and, where needed, parse.

    The prefilter runs in the workers too, so reading and searching the tree is shared
    between them instead of holding up the parent."""

    # (relative path, absolute path, size, the bytes where they are not the disk's)
    files: tuple[tuple[str, str, int, bytes | None], ...]
    needles: tuple[bytes, ...]
    guard_callables: tuple[str, ...]
    max_file_size: int
    configured: frozenset[str] = frozenset()  # always read whole and parsed
    known: frozenset[str] = frozenset()  # content keys the cache already holds
    ids: tuple[str, ...] = ()  # the cards' rule ids
    exhaustive: bool = False  # every shortcut off (tests): every file is parsed
    relevance: tuple[str, ...] = ()  # ids to answer the prompt stage's text questions for (gate/answers.py)
    stems: frozenset[str] = frozenset()  # the names importing the tree's modules, for those questions
