"""The one table of the files refusal-lint reads: each suffix and the kind of file it is.

Discovery, extraction, fixing and the pre-commit hook's `files:` pattern (a test keeps it
equal) all read this table.
"""

from __future__ import annotations

from refusal_lint.core.kinds import FileKind

SUFFIXES: dict[str, FileKind] = {
    ".py": FileKind.PYTHON,
    ".pyi": FileKind.PYTHON,
    ".json": FileKind.JSON,
    ".yaml": FileKind.YAML,
    ".yml": FileKind.YAML,
    ".md": FileKind.TEXT,
    ".markdown": FileKind.TEXT,
    ".txt": FileKind.TEXT,
    ".j2": FileKind.TEXT,
    ".jinja": FileKind.TEXT,
    ".jinja2": FileKind.TEXT,
    ".prompt": FileKind.TEXT,
    ".prompty": FileKind.TEXT,
}


def kind_of(name: str) -> FileKind | None:
    """The kind of a file by its name (None: refusal-lint does not read it)."""
    dot = name.rfind(".")
    return SUFFIXES.get(name[dot:].lower()) if dot >= 0 else None


def is_kind(path: str, kind: FileKind) -> bool:
    return kind_of(path) == kind
