"""The vocabulary of kinds: every enumeration of the package, one StrEnum each (their values
are what the cache, the config and the JSON contract hold)."""

from __future__ import annotations

from enum import StrEnum


class ValueKind(StrEnum):
    """What a value is, in JSON's words: card tree nodes (JSON, YAML) and Python constants."""

    STRING = "string"
    OBJECT = "object"
    ARRAY = "array"
    NUMBER = "number"
    BOOL = "bool"
    NULL = "null"
    BYTES = "bytes"  # Python only
    SPREAD = "spread"  # Python only: the `**mapping` entry of a dict literal
    UNKNOWN = "unknown"  # computed: nothing to say


class ParamsKind(StrEnum):
    """What an extension entry's `params` is."""

    OBJECT = "object"
    ABSENT = "absent"
    NULL = "null"
    OTHER = "other"  # a list or a scalar (RL104)
    UNRESOLVED = "unresolved"  # a name the resolver could not follow: nothing to check


class EditKind(StrEnum):
    """What --fix rewrites: a Python string literal in place, or text on a line."""

    LITERAL = "literal"
    TEXT = "text"


class FnKind(StrEnum):
    FUNCTION = "function"
    METHOD = "method"
    CLASS = "class"


class GuardKind(StrEnum):
    CALL = "call"  # a call that fires a refusal
    PAYLOAD = "payload"  # a {rule, reason/detail} dict
    PART = "part"  # a Part whose media type is (almost) the refusal's


class GuardStatus(StrEnum):
    """What binding made of a guard's id."""

    ID = "id"  # a rule id, resolved
    UNRESOLVED = "unresolved"  # computed at run time (RL304)
    PASSTHROUGH = "passthrough"  # a helper's parameter no call site feeds: no id finding
    NONE = "none"  # a payload with no rule at all (RL306)


class PromptForm(StrEnum):
    """How a prompt candidate was found (DESIGN §2's table; JSON `agents[].prompts[].form`)."""

    FILE = "file"
    DATA_KEY = "data-key"
    KEYWORD = "keyword"
    ASSIGNMENT = "assignment"
    DICT_ENTRY = "dict-entry"
    CHAT_MESSAGE = "chat-message"
    PROMPT_FUNCTION = "prompt-function"
    CONTENT = "content"  # any prose string that mentions a card id


class ProblemKind(StrEnum):
    """Why a file's facts are unknown (the file check says which code that is)."""

    UNPARSABLE = "unparsable"  # the standard parser rejects it, or it is not UTF-8
    UNCHECKED = "unchecked"  # valid, but a limit (CPU time, memory, depth, a crash) stopped us


class FileKind(StrEnum):
    """What a file is to refusal-lint, by its suffix (filekinds.py holds the table)."""

    PYTHON = "python"
    JSON = "json"
    YAML = "yaml"
    TEXT = "text"  # prompts: Markdown, plain text, Jinja, .prompt, .prompty


class Severity(StrEnum):
    """A code's severity (DESIGN §3): errors fail the run, warnings too unless demoted."""

    ERROR = "error"
    WARNING = "warning"
