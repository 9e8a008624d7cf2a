"""Content cache of extraction results in `.refusal_lint_cache/`.

Keyed by everything extraction reads: the tool version, the file's path and bytes, and
the job's settings. Stored as JSON (never pickle: a cache folder in a repo someone else
wrote must not be able to run code).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from refusal_lint import __version__
from refusal_lint.static.extract.job import Callee, Job

if TYPE_CHECKING:
    from refusal_lint.core.facts import FileFacts

DIR = ".refusal_lint_cache"
FILE = "facts-v1.json"
SKIP = ""  # a stat verdict: the prefilter passed this file over
NOTE = "\0"  # a stats row's key prefix: the prompt stage's notes on a file, apart from its verdict
PROMPT_ONLY = "prompt"  # a stat verdict: it may hold prompt candidates, and nothing else
DEFERRED = "defer:"  # a stat verdict's prefix: its parse waits for binding (gate/deferred.py)


def deferred_verdict(callees: tuple[Callee, ...], prompt: bool) -> str:
    return DEFERRED + json.dumps([[list(c) for c in callees], prompt])


def read_deferred(verdict: str) -> tuple[tuple[Callee, ...], bool]:
    """The callees binding must judge, and whether the file may hold prompt candidates."""
    callees, prompt = json.loads(verdict[len(DEFERRED) :])
    return tuple(Callee(*c) for c in callees), bool(prompt)


_code: str | None = None


def code_fingerprint() -> str:
    """A hash of this package's own source: facts and verdicts made by other code (a
    checkout with a changed extractor, prefilter or model) never answer for this one."""
    global _code
    if _code is None:
        h = hashlib.sha256(__version__.encode())
        package = os.path.dirname(os.path.abspath(__file__))
        for folder, dirs, files in sorted(os.walk(package)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    h.update(os.path.relpath(path, package).encode() + b"\0")
                    with open(path, "rb") as fh:
                        h.update(fh.read())
        _code = h.hexdigest()[:20]
    return _code


def context(*parts: object) -> str:
    """What, besides a file's bytes, decided whether it is read (config roles, needles)
    or what its notes answer (the cards' ids): the key a verdict or a note is kept under."""
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def key(job: Job) -> str:
    h = hashlib.sha256()
    meta = [
        code_fingerprint(),
        job.path,
        job.kind,
        job.want_card,
        job.want_prompt,
        job.prompt_key,
        job.read_whole,
        job.prompts,
        list(job.guard_callables),
        list(job.ids),
        job.exhaustive,
        job.content,
    ]
    h.update(json.dumps(meta).encode())
    h.update(b"\0")
    h.update(job.data)
    return h.hexdigest()


@dataclass
class Memory:
    """A cache kept in memory from one run to the next instead of in a folder (the language
    server, which writes no file): what the last run used."""

    entries: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, list[Any]] = field(default_factory=dict)


MEMORY = "<memory>"  # the folder of a cache kept in memory


class Cache:
    def __init__(self, folder: str | None, memory: Memory | None = None) -> None:
        self.folder = MEMORY if memory is not None else folder
        self.memory = memory
        self.entries: dict[str, Any] = {}
        self.used: dict[str, Any] = {}
        # Like git's index: path -> [size, stamp_ns, context, verdict], so an unchanged file
        # is not even read; the verdict is SKIP or the key of its facts.
        self.stats: dict[str, list[Any]] = {}
        self.used_stats: dict[str, list[Any]] = {}
        self.run_notes: dict[str, list[Any]] = {}  # notes this run keeps, and no cache saves
        self.dirty = False
        if memory is not None:
            self.entries, self.stats = memory.entries, memory.stats
            return
        if folder is None:
            return
        try:
            with open(os.path.join(folder, DIR, FILE), encoding="utf-8") as fh:
                data = json.load(fh)
            if isinstance(data, dict) and data.get("version") == code_fingerprint():
                self.entries = data.get("entries", {})
                self.stats = data.get("stats", {})
        except (OSError, ValueError):
            self.entries = {}

    def get(self, job: Job) -> FileFacts | None:
        if self.folder is None:
            return None
        return self.facts_for(key(job))

    def verdict(self, rel: str, size: int, stamp_ns: int, context: str) -> str | None:
        """What the last run decided for this file, if it has not changed since (None: read it)."""
        if self.folder is None or not stamp_ns:
            return None
        row = self.stats.get(rel)
        if not isinstance(row, list) or row[:3] != [size, stamp_ns, context]:
            return None
        verdict = row[3]
        settled = verdict in (SKIP, PROMPT_ONLY) or str(verdict).startswith(DEFERRED)
        if not settled and verdict not in self.entries:
            return None
        self.used_stats[rel] = row
        return str(verdict)

    def remember(self, rel: str, size: int, stamp_ns: int, context: str, verdict: str) -> None:
        if self.folder is not None and stamp_ns:
            self.used_stats[rel] = [size, stamp_ns, context, verdict]
            self.dirty = True

    def note(self, rel: str, size: int, stamp_ns: int, context: str, kind: str = "") -> dict[str, Any]:
        """What the prompt stage learnt of this file's text (a dict to add to, then `touch`),
        kept while the file and `context` stay the same; a fresh one otherwise. Each `kind`
        of note is kept apart."""
        key = NOTE + kind + "\0" + rel if kind else NOTE + rel
        found = self._kept(key, size, stamp_ns, context)
        fresh = found is None
        row: list[Any] = [size, stamp_ns, context, {}] if found is None else found
        if self.folder is not None and stamp_ns:
            self.used_stats[key] = row
            self.dirty = self.dirty or fresh  # an answer added to the dict: `touch`
        else:
            self.run_notes[key] = row  # no cache, or bytes not the disk's: kept for this run only
        return row[3]  # type: ignore[no-any-return]

    def kept_note(self, rel: str, size: int, stamp_ns: int, context: str) -> dict[str, Any] | None:
        """The note `note` would give, if one is kept; unlike `note`, it keeps nothing."""
        found = self._kept(NOTE + rel, size, stamp_ns, context)
        return None if found is None else found[3]

    def _kept(self, key: str, size: int, stamp_ns: int, context: str) -> list[Any] | None:
        found = self.used_stats.get(key) or self.stats.get(key) or self.run_notes.get(key)
        if isinstance(found, list) and found[:3] == [size, stamp_ns, context] and isinstance(found[3], dict):
            return found
        return None

    def touch(self) -> None:
        """Something kept (a note's answer) changed in place: save this run's cache."""
        self.dirty = True

    def facts_for(self, verdict: str) -> FileFacts | None:
        raw = self.entries.get(verdict)
        if raw is None:
            return None
        from refusal_lint.core.codec import decode  # only a cache that holds facts pays for it
        from refusal_lint.core.facts import FileFacts
        from refusal_lint.core.nogc import no_gc

        try:
            with no_gc():
                facts = decode(raw)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            facts = None
        if not isinstance(facts, FileFacts):
            # A cache damaged or written by hand: forgotten, so the file is read again (the
            # scan's workers are told only of the facts the cache can give back).
            del self.entries[verdict]
            return None
        self.used[verdict] = raw
        return facts

    def put(self, job: Job, facts: FileFacts) -> None:
        self.put_key(key(job), facts)

    def put_key(self, k: str, facts: FileFacts) -> None:
        if self.folder is None or facts.unchecked():
            return  # tried again next run
        from refusal_lint.core.codec import encode

        self.used[k] = encode(facts)
        self.dirty = True

    def save(self) -> None:
        if self.memory is not None:
            self.memory.entries, self.memory.stats = self.used, self.used_stats
            return
        if self.folder is None or (
            not self.dirty and len(self.used) == len(self.entries) and len(self.used_stats) == len(self.stats)
        ):
            return
        # dumps, not dump: json.dump always takes the pure-Python encoder, 6x slower
        # (200 ms against 32 ms for the 3 MB cache of a 1,800-file tree).
        body = json.dumps(
            {"version": code_fingerprint(), "entries": self.used, "stats": self.used_stats},
            separators=(",", ":"),
        )
        write(self.folder, FILE, body)


_TAGS = (
    (
        "CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55\n# This folder is a cache made by refusal-lint.\n",
    ),
    (".gitignore", "*\n"),
)


def write(folder: str, name: str, body: str) -> bool:
    """`body` as the cache's file `name` (a path in DIR), whole or not at all, the cache
    folder made with its tags where it is missing. False where it cannot be written (a
    read-only tree simply runs uncached)."""
    root = os.path.join(folder, DIR)
    path = os.path.join(root, name)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        for tag, text in _TAGS:
            if not os.path.exists(os.path.join(root, tag)):
                with open(os.path.join(root, tag), "w", encoding="utf-8") as fh:
                    fh.write(text)
        import tempfile  # only a run that changed something writes

        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".write-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(body)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return False
    return True
