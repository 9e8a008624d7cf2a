"""Which file of the tree a Python import names (no module of the user's is imported)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable


class ModuleIndex:
    """Finds the file an import names, within the scanned tree.

    `prefix` is where the tree stands on disk (roots.module_prefix: `home/u/repo/py/agents/foo`):
    the tree's files are matched under it, so an import spelled from a folder above (the
    project's top: `from agents.foo.agent import URI`) finds the file a run of the whole
    project finds (DESIGN §1: findings never depend on the folder the run starts from)."""

    def __init__(self, py_paths: Iterable[str], prefix: str = "") -> None:
        self.prefix = prefix.strip("/")
        self.by_tail: dict[str, list[str]] = {}
        self._real: dict[str, str] = {}  # a file's path under the prefix -> its path in the tree
        # Each import asked, answered once: binding asks the same ones of every agent, and a
        # monorepo's `tools.py` has as many files to choose from as it has agents.
        self._memo: dict[tuple[str, str, int], str | None] = {}
        for real in py_paths:
            p = self._under(real)
            self._real[p] = real
            parts = p.split("/")
            tail = parts[-2] + "/__init__.py" if parts[-1] == "__init__.py" and len(parts) > 1 else parts[-1]
            self.by_tail.setdefault(tail, []).append(p)

    def _under(self, rel: str) -> str:
        return f"{self.prefix}/{rel}" if self.prefix else rel

    def _find(self, rel: str, near: str) -> str | None:
        parts = rel.split("/")
        tail = "/".join(parts[-2:]) if parts[-1] == "__init__.py" else parts[-1]
        hits = [p for p in self.by_tail.get(tail, []) if p == rel or p.endswith("/" + rel)]
        if not hits:
            return None
        return max(hits, key=lambda p: (len(posixpath.commonprefix([p, near])), -len(p)))

    def module(self, importer: str, dotted: str, level: int) -> str | None:
        """The file of module `dotted` imported from `importer` (relative when level > 0)."""
        key = (importer, dotted, level)
        if key not in self._memo:
            self._memo[key] = self._module(importer, dotted, level)
        return self._memo[key]

    def _module(self, importer: str, dotted: str, level: int) -> str | None:
        importer = self._under(importer)
        tail = dotted.replace(".", "/")
        if level:
            folder = posixpath.dirname(importer)
            for _ in range(level - 1):
                folder = posixpath.dirname(folder)
            base = posixpath.join(folder, tail) if tail else folder
            for candidate in (base + ".py", posixpath.join(base, "__init__.py")):
                if self._find(candidate, importer) == candidate:
                    return self._real[candidate]
            return None
        if not tail:
            return None
        found = self._find(tail + ".py", importer) or self._find(tail + "/__init__.py", importer)
        return self._real[found] if found is not None else None
