"""Content cache of extraction results in `.refusal_lint_cache/`.

Keyed by everything extraction reads: the tool version, the file's path and bytes, and
the job's settings. Stored as JSON (never pickle: a cache folder in a repo someone else
wrote must not be able to run code).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Any

from refusal_lint import __version__
from refusal_lint.extract.run import Job
from refusal_lint.facts import FileFacts, decode, encode

DIR = ".refusal_lint_cache"
FILE = "facts-v1.json"


def key(job: Job) -> str:
    h = hashlib.sha256()
    meta = [
        __version__,
        job.path,
        job.kind,
        job.want_card,
        job.want_prompt,
        job.prompt_key,
        job.complete,
        list(job.guard_callables),
    ]
    h.update(json.dumps(meta).encode())
    h.update(b"\0")
    h.update(job.data)
    return h.hexdigest()


class Cache:
    def __init__(self, folder: str | None) -> None:
        self.folder = folder
        self.entries: dict[str, Any] = {}
        self.used: dict[str, Any] = {}
        self.dirty = False
        if folder is None:
            return
        try:
            with open(os.path.join(folder, DIR, FILE), encoding="utf-8") as fh:
                data = json.load(fh)
            if isinstance(data, dict) and data.get("version") == __version__:
                self.entries = data.get("entries", {})
        except (OSError, ValueError):
            self.entries = {}

    def get(self, job: Job) -> FileFacts | None:
        if self.folder is None:
            return None
        k = key(job)
        raw = self.entries.get(k)
        if raw is None:
            return None
        try:
            facts = decode(raw)
        except (KeyError, TypeError, ValueError):
            return None
        if not isinstance(facts, FileFacts):
            return None
        self.used[k] = raw
        return facts

    def put(self, job: Job, facts: FileFacts) -> None:
        if self.folder is None or (facts.problem is not None and "parser" in facts.problem.message):
            return  # a crash or a timeout may be passing: try again next run
        self.used[key(job)] = encode(facts)
        self.dirty = True

    def save(self) -> None:
        if self.folder is None or (not self.dirty and len(self.used) == len(self.entries)):
            return
        root = os.path.join(self.folder, DIR)
        try:
            os.makedirs(root, exist_ok=True)
            for name, text in (
                (
                    "CACHEDIR.TAG",
                    "Signature: 8a477f597d28d172789f06886806bc55\n"
                    "# This folder is a cache made by refusal-lint.\n",
                ),
                (".gitignore", "*\n"),
            ):
                if not os.path.exists(os.path.join(root, name)):
                    with open(os.path.join(root, name), "w", encoding="utf-8") as fh:
                        fh.write(text)
            fd, tmp = tempfile.mkstemp(dir=root, prefix=".facts-")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": __version__, "entries": self.used}, fh, separators=(",", ":"))
            os.replace(tmp, os.path.join(root, FILE))
        except OSError:
            pass  # a read-only tree simply runs uncached
