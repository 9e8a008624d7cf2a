"""Words that make a Python name a guard, a prompt or an error carrier (DESIGN §2)."""

from __future__ import annotations

import builtins
import re

GUARD_WORDS = frozenset({"refuse", "refusal", "refusals"})
PROMPT_KWARGS = frozenset({"instruction", "instructions", "system_prompt", "system_message", "prompt"})
# SYSTEM_PROMPT, SYSTEM_INSTRUCTION, *_INSTRUCTIONS (DESIGN), and likewise any module or class
# name ending in prompt or instructions, any case (ANALYST_PROMPT, system_prompt). Not a lone
# `Instruction`: that is a CPU instruction as often as a prompt.
PROMPT_CONST = re.compile(
    r"[A-Za-z0-9_]*(?:prompt|PROMPT|Prompt|instructions|INSTRUCTIONS|Instructions)\Z"
    r"|[A-Za-z0-9_]*(?:system_instruction|SYSTEM_INSTRUCTION)\Z"
)
DEDENTS = frozenset({"dedent", "cleandoc"})
STRIPS = frozenset({"strip", "lstrip", "rstrip"})
WRAPPERS = frozenset({"MappingProxyType", "dict", "Final", "frozendict", "str"})
STRUCT_FROM_DICT = frozenset({"ParseDict", "dict_to_struct", "to_struct"})
MEDIA_KEYS = frozenset({"mediaType", "media_type"})
RULE_KWARGS = ("rule", "rule_id")
_BUILTIN_EXC = frozenset(
    n
    for n in dir(builtins)
    if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException)
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def words(name: str) -> list[str]:
    """`build_refusal_parts` -> build, refusal, parts; `RefusalError` -> refusal, error."""
    return [w.lower() for part in name.split("_") for w in _WORD.findall(part)]


def is_guard_name(name: str, extra: frozenset[str] = frozenset()) -> bool:
    if name in _BUILTIN_EXC:
        return False
    return name in extra or any(w in GUARD_WORDS for w in words(name))


def is_prompt_const(name: str) -> bool:
    return bool(PROMPT_CONST.match(name))
