"""Words that make a Python name a guard, a prompt or an error carrier (DESIGN §2)."""

from __future__ import annotations

import ast
import builtins
import functools
import re
from collections.abc import Container

from refusal_lint.core import spec

GUARD_WORDS = frozenset({"refuse", "refusal", "refusals"})
# Keyword arguments an LLM framework reads a system prompt from (DESIGN §2, the prompt table).
PROMPT_KWARGS = frozenset(
    {
        "instruction",
        "instructions",
        "global_instruction",
        "static_instruction",
        "system_instruction",
        "system_prompt",
        "system_message",
        "system",
        "prompt",
        "backstory",
        "goal",
        "preamble",  # Cohere
        "sys_prompt",  # AgentScope
        "memory_blocks",  # Letta: `[{"label": "persona", "value": ...}]`, prepended to the prompt
    }
)
# Words that make an assigned name a prompt (SYSTEM_PROMPT, self._system_prompt_template,
# FORMAT_INSTRUCTION, backstory), once split at `_` and case changes.
PROMPT_NAME_WORDS = frozenset({"prompt", "prompts", "instruction", "instructions", "backstory"})
# Decorators whose function returns prompt text: pydantic-ai `@agent.system_prompt`.
PROMPT_DECORATORS = frozenset({"system_prompt", "instructions"})
CHAT_SYSTEM_ROLES = frozenset({"system", "developer"})
# A message built by a call with its role named (`ChatMessage(role="system", content=X)`,
# llama-index's `role=MessageRole.SYSTEM`): its text, as a system call's.
ROLE_KWARG = "role"
# A call whose own name says *system* takes the system prompt: `ChatMessage.from_system(X)`,
# `add_system_message(X)`, `SystemMessage(X)` (`system(...)` alone is `os.system`).
SYSTEM_CALL_WORD = "system"
# So does one that sets it, a verb then a prompt word: DSPy's `sig.with_instructions(X)`.
PROMPT_SETTERS = frozenset({"with", "set", "add", "update"})
SYSTEM_CALL_TEXT_KWARGS = ("content", "text", "prompt", "message")
# LangChain's system template, made by a class method: `SystemMessagePromptTemplate.from_template(X)`.
SYSTEM_TEMPLATE_CLASS = "SystemMessagePromptTemplate"
SYSTEM_TEMPLATE_METHODS = frozenset({"from_template", "from_messages"})
# Semantic Kernel's, a config's template: `prompt_template_config=PromptTemplateConfig(template=X)`.
PROMPT_CONFIG_CLASS = "PromptTemplateConfig"
TEXT_BLOCK_KEYS = frozenset({"text", "value"})  # `{"type": "text", "text": ...}`, a memory block's value
DEDENTS = frozenset({"dedent", "cleandoc"})
STRIPS = frozenset({"strip", "lstrip", "rstrip"})
WRAPPERS = frozenset({"MappingProxyType", "dict", "Final", "frozendict", "str"})
# The synthetic attribute under which an Enum class keeps its members' values, in order (a
# loop over the class takes each: resolve.py's `elements`).
ENUM_MEMBERS = "__members__"
CLASS_BASES = "__bases__"  # a class's bases as written, its own `__init__` or not (guards/ids.class_rule)
# A text buffer written piece by piece (`out.write(...)`, then `out.getvalue()`): its text.
TEXT_BUFFERS = frozenset({"StringIO"})
# A class field's default made by a call (`field(default=X)`, attrs' `field(default=X)`,
# pydantic's `Field(X)` or `Field(default=X)`): the default is the field's value.
FIELD_CALLS = frozenset({"field", "Field"})
ATTRS_FIELDS = frozenset({"ib", "attrib", "field"})  # `rule = attr.ib()`: a field unannotated
STRUCT_FROM_DICT = frozenset({"ParseDict", "dict_to_struct", "to_struct"})
ITERATION_VIEWS = frozenset({"items", "keys", "values"})
ORDER_WRAPPERS = frozenset({"sorted", "list", "tuple", "set", "frozenset", "reversed"})
# How a statement grows a name's value (extract/python/scopes.grown; the gate's
# composed/grown.changing): `lines.append(x)`, `lines.extend(xs)`, `text += x`, and a text
# buffer's `out.write(x)` as its `+=`.
GROWERS = {"append": "append", "extend": "extend", "write": "+=", "update": "update"}
MEDIA_KEYS = frozenset({"mediaType", "media_type"})
# A v0.3 Part's `metadata` may name it as the SDK names a file's type (`FileWithBytes.mimeType`).
METADATA_MEDIA_KEYS = MEDIA_KEYS | {"mimeType"}
# The a2a-sdk classes a card is built of, also where a module imports one under another
# name (`from a2a.types import AgentExtension as Ext`): the text gate, the ast gate and the
# extractor read `Ext(...)` as the class.
EXTENSION_CLASS = "AgentExtension"
CARD_CLASSES = frozenset({EXTENSION_CLASS, "AgentCard", "AgentCapabilities"})
RULE_KWARGS = ("rule", "rule_id")
_BUILTIN_EXC = frozenset(
    n
    for n in dir(builtins)
    if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException)
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


@functools.lru_cache(maxsize=8192)
def words(name: str) -> tuple[str, ...]:
    """`build_refusal_parts` -> build, refusal, parts; `RefusalError` -> refusal, error."""
    return tuple(w.lower() for part in name.split("_") for w in _WORD.findall(part))


def base_name(base: ast.expr) -> str:
    return base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")


FUNCTION_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


# A class declaring an extension by its attributes (CrewAI's `ServerExtension` subclass:
# `uri = ...`, `params` an attribute or a property): the ast gate and the extractor ask that
# it is an `...Extension`'s subclass binding both (a client's class reading a peer's
# refusals is none), the extractor (python/classes.py) what they hold. A bare `Extension`
# base is a document tool's (Markdown's, Jinja's), whose `uri` may link to the spec.
EXTENSION_ATTRS = frozenset({"uri", "params"})


def declares_extension(node: ast.ClassDef) -> bool:
    if not any((n := base_name(b)).endswith("Extension") and n != "Extension" for b in node.bases):
        return False
    bound = {s.name for s in node.body if isinstance(s, FUNCTION_DEFS)}
    for s in node.body:
        targets = (
            s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) else []
        )
        bound.update(t.id for t in targets if isinstance(t, ast.Name))
    return bound >= EXTENSION_ATTRS


def is_extension_call(name: str, func: ast.expr) -> bool:
    """`AgentExtension(...)`, or A2A v1.0's `card.capabilities.extensions.add(uri=...)` (a
    repeated protobuf field's `add` builds the message in place)."""
    return name == EXTENSION_CLASS or (
        name == "add" and isinstance(func, ast.Attribute) and base_name(func.value) == "extensions"
    )


def is_guard_name(name: str, extra: frozenset[str] = frozenset()) -> bool:
    """A refusal word in the name (`refuse`, `build_refusal_parts`), not an assertion that a
    refusal happened (`assert_refusal(answer, card, rule="x-y")`, an eval's: it fires none)."""
    if name in _BUILTIN_EXC:
        return False
    found = words(name)
    return name in extra or (any(w in GUARD_WORDS for w in found) and found[:1] != ("assert",))


def catches_refusal(node: ast.ExceptHandler | ast.If, extra: frozenset[str] = frozenset()) -> bool:
    """`except Refusal:`, `except (ValueError, RefusalError) as exc:`: a handler of a class
    named as guards are (Python's own `ConnectionRefusedError` is none); or an `if` that
    tells one apart (`if isinstance(exc, Refusal):`, `if "rule" in result:`, or one term of
    an `and`), whose body holds a refusal as a handler's does (DESIGN §3 RL305)."""
    if isinstance(node, ast.If):
        return bool(_refusal_checks(node.test, extra))
    return node.type is not None and _names_refusal(node.type, extra)


def narrowed_refusals(test: ast.expr, extra: frozenset[str] = frozenset()) -> list[str]:
    """The names such a test tells hold a refusal (`final` of `isinstance(final, Refusal)`,
    `item` of `"rule" in item`): built elsewhere, whose construction fired its id, as a
    caught `exc` was (pass-through)."""
    return [s.id for s in _refusal_checks(test, extra) if isinstance(s, ast.Name)]


def _refusal_checks(test: ast.expr, extra: frozenset[str]) -> list[ast.expr]:
    """What the test tells holds a refusal: an instance of a class named as guards are, or
    a mapping with a `rule` key (a payload forwarded from a tool's result)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [c for v in test.values for c in _refusal_checks(v, extra)]
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
        and len(test.args) == 2
        and _names_refusal(test.args[1], extra)
    ):
        return [test.args[0]]
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Constant)
        and test.left.value == "rule"
        and [type(op) for op in test.ops] == [ast.In]
    ):
        return [test.comparators[0]]
    return []


def _names_refusal(type_expr: ast.expr, extra: frozenset[str]) -> bool:
    """A class, or a tuple of classes, one of them named as guards are."""
    types = type_expr.elts if isinstance(type_expr, ast.Tuple) else [type_expr]
    return any(
        is_guard_name(t.id if isinstance(t, ast.Name) else t.attr, extra)
        for t in types
        if isinstance(t, (ast.Name, ast.Attribute))
    )


def _key_read(node: ast.AST) -> tuple[ast.expr, str] | None:
    """`x.get("k")` or `x["k"]`: (x, "k")."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        base, key = node.func.value, node.args[0] if node.args else None
    elif isinstance(node, ast.Subscript):
        base, key = node.value, node.slice
    else:
        return None
    return (base, key.value) if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def reads_refusal(node: ast.expr) -> bool:
    """A value read under a refusal's key (`outcome.get("refusal")`, `result["refusal"]`): a
    refusal a tool or an agent returned, passed on (RL305 where a protocol error sends it
    and reads its payload's keys: `payload_read`; OpenAI's `message.get("refusal")` is a
    model's sentence)."""
    read = _key_read(node)
    return read is not None and is_guard_name(read[1])


def payload_read(node: ast.AST) -> str | None:
    """`refusal["reason"]`, `refusal.get("rule")`: the local a payload's key is read of."""
    read = _key_read(node)
    if read is None or read[1] not in spec.PAYLOAD_KEYS or not isinstance(read[0], ast.Name):
        return None
    return read[0].id


def is_payload(keys: Container[str]) -> bool:
    """The keys of a refusal payload (DESIGN §2 "Guards"): `rule`, and `reason` or `detail`."""
    return "rule" in keys and ("reason" in keys or "detail" in keys)


def part_media(keys: dict[str, ast.expr]) -> ast.expr | None:
    """A dict literal Part's media type, from its string keys in the order written:
    `{"data": ..., "mediaType": ...}` (A2A 1.0), or `{"kind": "data", "data": ...,
    "metadata": {"mediaType": ...}}` (0.3)."""
    media = next((v for k, v in keys.items() if k in MEDIA_KEYS), None)
    meta = keys.get("metadata")
    return metadata_media(meta) if media is None and isinstance(meta, ast.Dict) else media


def metadata_media(meta: ast.Dict) -> ast.expr | None:
    """The media type a Part's `metadata` literal holds (a2a-sdk 0.3), the first written."""
    return next(
        (
            v
            for k, v in zip(meta.keys, meta.values, strict=True)
            if isinstance(k, ast.Constant) and k.value in METADATA_MEDIA_KEYS
        ),
        None,
    )


def is_prompt_name(name: str) -> bool:
    """An assigned name that holds prompt text (DESIGN §2, Python assignments)."""
    return name.lower().strip("_") == "system_message" or any(w in PROMPT_NAME_WORDS for w in words(name))


def is_system_template(receiver: str | None, method: str) -> bool:
    """`SystemMessagePromptTemplate.from_template(X)` (`receiver`: the last name before the
    method, None for a plain call), `PromptTemplateConfig(template=X)`."""
    return (
        method in SYSTEM_TEMPLATE_METHODS and receiver == SYSTEM_TEMPLATE_CLASS
    ) or method == PROMPT_CONFIG_CLASS


def renamed_as_itself(name: str) -> bool:
    """A library's class or call a module may import under a name of its own, read as
    itself (`AgentExtension as Ext`, `PromptTemplateConfig as PTC`, `SystemMessage as Sys`):
    a card class or a prompt's callee (guards have their own test: `is_guard_name`)."""
    prompt_classes = (PROMPT_CONFIG_CLASS, SYSTEM_TEMPLATE_CLASS)
    return name in CARD_CLASSES or name in prompt_classes or is_system_call(name)


def is_system_role(node: ast.expr) -> bool:
    """A chat role that takes the system prompt: `"system"`, `"developer"`, or an enum
    member named for one (`MessageRole.SYSTEM`)."""
    if isinstance(node, ast.Constant):
        return node.value in CHAT_SYSTEM_ROLES
    return isinstance(node, ast.Attribute) and node.attr.lower() in CHAT_SYSTEM_ROLES


def is_system_call(name: str) -> bool:
    """A callee whose name says it takes the system prompt: `SystemMessage`, `from_system`,
    Mirascope's `Messages.System` (a class: capitalised), `with_instructions`; not `os.system`,
    nor Python's own `SystemExit(main())` (gate/text/shapes.py passes over it too)."""
    if name in _BUILTIN_EXC:
        return False
    w = words(name)
    if len(w) > 1 and w[0] in PROMPT_SETTERS and not PROMPT_NAME_WORDS.isdisjoint(w[1:]):
        return True
    return SYSTEM_CALL_WORD in w and (len(w) > 1 or name[:1].isupper())


# Calls whose strings are log lines, never prompts: `logger.info(...)`, `logging.warning(...)`.
LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}
)
_EXCEPTION_WORDS = ("Error", "Exception", "Warning")


def is_log_call(name: str, func: object) -> bool:
    """A logging call (`logger.info`, `log.debug`, `logging.warning`), or `print`."""
    return name == "print" or (name in LOG_METHODS and isinstance(func, ast.Attribute))


# A test's block that expects what it runs to fail (`pytest.raises`, unittest's assertRaises):
# a guard called there with an id the card lacks is the failure tested, no guard.
EXPECTS_FAILURE = frozenset({"raises", "assertRaises", "assertRaisesRegex"})


def expects_failure(node: ast.withitem) -> bool:
    """`with pytest.raises(...)`, `with raises(...)` (imported), `with self.assertRaises(...)`."""
    call = node.context_expr
    return isinstance(call, ast.Call) and base_name(call.func) in EXPECTS_FAILURE


def is_exception_name(name: str) -> bool:
    """A class raised with a message (`ValueError`, `ToolException`), not a refusal."""
    return name in _BUILTIN_EXC or (name[:1].isupper() and name.endswith(_EXCEPTION_WORDS))


def is_prompt_key(key: str) -> bool:
    """A dict or data-file key under which a prompt stands: a prompt keyword, or a key
    holding `prompt`/`instruction`."""
    low = key.lower()
    return key in PROMPT_KWARGS or "prompt" in low or "instruction" in low


def prompt_key_assigned(target: ast.expr) -> str | None:
    """The prompt key an assignment's target writes (`agent.prompt_templates["system_prompt"]
    = ...` or `+=`: smolagents' templates, a config dict filled in code), else None."""
    key = target.slice if isinstance(target, ast.Subscript) else None
    if isinstance(key, ast.Constant) and isinstance(key.value, str) and is_prompt_key(key.value):
        return key.value
    return None
