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

# Other text a prompt may be kept in (a `prompts.toml` read with tomllib, an XML prompt, a
# Handlebars or Liquid template, a config or a translation file), read as text like the
# above: named for a prompt, or naming a card rule (DESIGN §2 "Prompts by their content").
HASH_COMMENTED = frozenset({".toml", ".ini", ".cfg", ".conf", ".po"})  # where `#` starts a comment
_MARKUP = (".xml", ".tmpl", ".tpl", ".mustache", ".hbs", ".handlebars", ".liquid")
SUFFIXES.update(dict.fromkeys((*_MARKUP, *sorted(HASH_COMMENTED)), FileKind.TEXT))


def kind_of(name: str) -> FileKind | None:
    """The kind of a file by its name (None: refusal-lint does not read it)."""
    dot = name.rfind(".")
    return SUFFIXES.get(name[dot:].lower()) if dot >= 0 else None


def hash_commented(name: str) -> bool:
    """Text whose comments start with `#` (`HASH_COMMENTED`): no suppression comment of
    ours (DESIGN §4: `{# #}`, `<!-- -->` in text) fits there."""
    dot = name.rfind(".")
    return dot >= 0 and name[dot:].lower() in HASH_COMMENTED


def is_kind(path: str, kind: FileKind) -> bool:
    return kind_of(path) == kind
