"""Which file of the tree a Python import names (no module of the user's is imported)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable


class ModuleIndex:
    """Finds the file an import names, within the scanned tree."""

    def __init__(self, py_paths: Iterable[str]) -> None:
        self.by_tail: dict[str, list[str]] = {}
        for p in py_paths:
            parts = p.split("/")
            tail = parts[-2] + "/__init__.py" if parts[-1] == "__init__.py" and len(parts) > 1 else parts[-1]
            self.by_tail.setdefault(tail, []).append(p)

    def _find(self, rel: str, near: str) -> str | None:
        parts = rel.split("/")
        tail = "/".join(parts[-2:]) if parts[-1] == "__init__.py" else parts[-1]
        hits = [p for p in self.by_tail.get(tail, []) if p == rel or p.endswith("/" + rel)]
        if not hits:
            return None
        return max(hits, key=lambda p: (len(posixpath.commonprefix([p, near])), -len(p)))

    def module(self, importer: str, dotted: str, level: int) -> str | None:
        """The file of module `dotted` imported from `importer` (relative when level > 0)."""
        tail = dotted.replace(".", "/")
        if level:
            folder = posixpath.dirname(importer)
            for _ in range(level - 1):
                folder = posixpath.dirname(folder)
            base = posixpath.join(folder, tail) if tail else folder
            for candidate in (base + ".py", posixpath.join(base, "__init__.py")):
                if self._find(candidate, importer) == candidate:
                    return candidate
            return None
        if not tail:
            return None
        return self._find(tail + ".py", importer) or self._find(tail + "/__init__.py", importer)
