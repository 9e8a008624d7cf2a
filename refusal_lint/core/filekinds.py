"""The one table of the files refusal-lint reads: each suffix and the kind of file it is;
which files are cards or prompts by their name, and which never prompts by their content.

Discovery, extraction, fixing and the pre-commit hook's `files:` pattern (a test keeps it
equal) all read this table; every stage asks a file's role by name here.
"""

from __future__ import annotations

import re

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

# The names an AgentCard file is known by (its discovery and the projects of file arguments).
CARD_NAMES = frozenset(
    {
        "agent-card.json",
        "agent.json",
        "agent-card.yaml",
        "agent-card.yml",
        "agent_card.json",
        "agentcard.json",
    }
)

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


# CrewAI's agent and task configs: prompts by their name.
CREWAI_CONFIGS = frozenset({"agents.yaml", "agents.yml", "tasks.yaml", "tasks.yml"})


def named_for_prompt(rel: str) -> bool:
    """The file's name holds `prompt` or `instruction`, or a folder it is in is named for
    what it holds by its last word (`prompts/`, `system_prompts/`, `agent-instructions/`,
    `prompt_templates/`). A folder that only starts with the word (`prompt-demo/`,
    `promptflow/`) holds an app, not prompts."""
    lower = rel.lower()
    if "prompt" not in lower and "instruction" not in lower:
        return False  # most paths: no word to split folders for
    *folders, name = rel.split("/")
    name = name.lower()
    return "prompt" in name or "instruction" in name or any(_prompt_folder(f) for f in folders)


_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")  # at `_`, `-`, `.` and case changes
_PROMPT_WORDS = frozenset({"prompt", "prompts", "instruction", "instructions"})
_FOLDER_LAST = _PROMPT_WORDS | {"template", "templates"}


def _prompt_folder(folder: str) -> bool:
    words = [w.lower() for w in _WORD.findall(folder)]
    return bool(words) and words[-1] in _FOLDER_LAST and not _PROMPT_WORDS.isdisjoint(words)


def prompt_by_name(rel: str) -> bool:
    """A text or YAML file that is a prompt by its name alone: named for a prompt (the file
    or a folder it is in), starting with `system`, a `.prompty`, or a CrewAI agent config."""
    kind = kind_of(rel)
    lower = rel.lower()
    name = lower.rsplit("/", 1)[-1]
    if _for_assistants(lower.split("/")):
        return False  # `.github/copilot-instructions.md`, `.github/prompts/*.prompt.md`: not the agent's
    named = named_for_prompt(rel) or name.startswith("system") or name.endswith(".prompty")
    if kind == FileKind.TEXT:
        return named
    return kind == FileKind.YAML and (named or name in CREWAI_CONFIGS)


_DOC_NAMES = ("readme", "changelog", "changes", "history", "contributing", "license", "code_of_conduct")
_NO_PROMPT_FOLDERS = frozenset({"docs", "doc", "tests", "test", "evals", "eval"})
_EXPECTED_NAMES = ("expected", "golden", "snapshot")  # a test's recorded output
_TOOL_CONFIGS = frozenset({"pyproject.toml", "setup.cfg", "tox.ini"})
# What a coding assistant reads about the repository (AGENTS.md, Copilot's and Cursor's rules)
# and an API's documentation (an OpenAPI `description`): written for people and their tools,
# never the agent's prompt, whatever they say of its rules.
_ASSISTANT_NAMES = frozenset(
    {
        "agents.md",
        "claude.md",
        "gemini.md",
        "copilot-instructions.md",
        ".cursorrules",
        ".windsurfrules",
        ".clinerules",
    }
)
_ASSISTANT_FOLDERS = frozenset({".github", ".cursor", ".claude", ".windsurf", ".clinerules"})
_API_DOCS = ("openapi", "swagger", "asyncapi")


def _for_assistants(parts: list[str]) -> bool:
    return parts[-1] in _ASSISTANT_NAMES or not _ASSISTANT_FOLDERS.isdisjoint(parts[:-1])


def no_prompt_by_content(rel: str) -> bool:
    """Documentation (`README*`, `CHANGELOG*`, `*.rst`, a `docs/` folder, an OpenAPI spec,
    what a coding assistant reads: `AGENTS.md`, `.github/`, `.cursor/`), a test's
    recorded output (`expected.txt`), tests (`tests/`, `test_*.py`, `conftest.py`),
    evaluation data (`evals/`) and Python tools' configuration (`pyproject.toml`, never in
    an agent's scope: DESIGN §2 "Agents"): their rule lines describe the agent, its findings
    or what it should refuse (a test docstring `seg-mix: crossing families is refused.`),
    they never instruct a model, so nothing in them is a prompt by its content."""
    lower = rel.lower()
    parts = lower.split("/")
    name = parts[-1]
    return (
        name in _TOOL_CONFIGS
        or name.startswith(_DOC_NAMES + _EXPECTED_NAMES + _API_DOCS)
        or _for_assistants(parts)
        or lower.endswith(".rst")
        or not _NO_PROMPT_FOLDERS.isdisjoint(parts[:-1])
        or (
            name.endswith(".py")
            and (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")
        )
    )
