"""What one extraction needs: a file's bytes and what the run wants from it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Job:
    path: str  # relative, '/'-separated
    kind: str  # python | json | yaml | text
    data: bytes
    want_card: bool = False
    want_prompt: bool = False  # discovered prompt file (by name or YAML shape)
    prompt_key: str | None = None  # configured YAML key path ('' = whole file)
    complete: bool = False  # Python: read definitions even where no fact can be
    guard_callables: tuple[str, ...] = ()
    # Set by the pre-check: it ran, and where CPython's parser stopped (message, line, column).
    checked: bool = False
    ast_error: tuple[str, int, int] | None = None
