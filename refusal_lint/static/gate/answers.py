"""A file's answers to the prompt stage's text questions (ondemand.relevant): pure
functions of its bytes and the cards' ids, so they can be asked where the bytes are at
hand (a scan worker, in parallel with the others) and kept under one context."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from refusal_lint.core.filekinds import kind_of, no_prompt_by_content, prompt_by_name
from refusal_lint.core.kinds import FileKind
from refusal_lint.static import cache
from refusal_lint.static.extract import vocab
from refusal_lint.static.extract.data import prompts as dataprompts
from refusal_lint.static.gate.imports import imported
from refusal_lint.static.gate.relevance import Relevance, of
from refusal_lint.static.gate.text import shapes
from refusal_lint.static.gate.text.listing import lists_rules, may_refuse, python_lists_rules, refusing_spans
from refusal_lint.static.gate.text.lowered import lowered, seamless

# Escapes a YAML key may spell a prompt word with (`"\\u0070rompt"`).
_ESCAPES = (b"\\u", b"\\x", b"\\U")


def weak(rel: str, data: bytes, relevance: Relevance | None = None) -> bool:
    """May this file's prompt shapes count without naming a card id: list rules under words
    of refusing, or (a template, a YAML or JSON string) be derived from the rules by a
    placeholder (`{% for rule_id, reason in rules.items() %}`)? Asked of a file that names
    no card id, which is read without the ids: so a text file can hold a prompt only by its
    name or a derived rule list, and a JSON or YAML file (not one by its name) only under a
    prompt key, which holds a prompt word (extract/data/prompts.py). A Python file's shapes
    count too where their values glue a literal to what a run puts beside it, a piece of a
    card id (`relevance`'s) or of a near miss of one (passed.glued)."""
    kind = kind_of(rel)
    if kind == FileKind.PYTHON:
        from refusal_lint.static.gate.composed.gluing import glued

        # Or compose a token no piece of them holds (`FAMILY + "-mixx"`), as only reading it shows.
        return _python_weak(data) or glued(data, shapes.shapes_of(data), relevance)
    if kind == FileKind.TEXT:
        if prompt_by_name(rel):
            return lists_rules(data) or _derivable(data, escaped=False)
        # By its content (dataprompts.derived_listing): a rule list derived under a lead-in.
        content = not no_prompt_by_content(rel)
        return content and lists_rules(data) and _derivable(data, escaped=False)
    if kind == FileKind.JSON:
        return _json_candidates_list_rules(data)
    keyed = shapes.prompt_words(data) or any(e in data for e in _ESCAPES)
    return (prompt_by_name(rel) or keyed) and (lists_rules(data) or _derivable(data))


def _python_weak(data: bytes) -> bool:
    # The most selective tests first: most code has no word of refusing before a rule line,
    # nor a template naming the rules, nor a loaded card's keys (derived).
    loaded = len(dataprompts.card_keys(data)) == len(dataprompts.CARD_KEYS)
    derived = dataprompts.may_derive(data, lowered(data)) or loaded
    if not (lists_rules(data) or derived):
        # A lead-in written across literals (`"you must " "not"`) reads whole only with
        # their seams out, a pass over every quote: asked of a prompt candidate only.
        if not shapes.shapes_of(data) or not lists_rules(seamless(data)):
            return False
    elif not shapes.shapes_of(data):
        return False
    return derived or python_lists_rules(data)


def _derivable(data: bytes, escaped: bool = True) -> bool:
    """Can a string of the file be derived (dataprompts.derived)? Its placeholder stands in
    the text as written, unless an escape of a JSON or YAML string spells it (`\\u007b`):
    then, in doubt, yes."""
    if escaped and any(e in data for e in _ESCAPES):
        return True
    return b"{" in data and dataprompts.derived(data.decode("utf-8", "replace"))


# A JSON object is decoded as the tuple of its (key, value) members in order, duplicates
# kept, as the position-aware reader keeps them (extract/data/jsonpos.py): each is read. A
# tuple, not a subclass of list: the C decoder builds it without a Python call (the decode
# takes 40% less), and an array stays a list.
_CONTAINERS = frozenset({tuple, list})


def _json_candidates_list_rules(data: bytes) -> bool:
    """May a string under a prompt key (extract/data/prompts.py: each its own candidate)
    list rules or be derived from them? Asked of each such string as the reader decodes it,
    alone, as the check reads it; not of the file's text, where a log's or an API schema's
    refusal wording and an unrelated hyphenated line kilobytes away would meet. A document
    the C parser rejects (JSON with comments) is asked as text. Unparsed where no string
    can: the bytes hold neither a word of refusing (a rule list's lead-in) nor `rule` (a
    placeholder's), nor an escape that could spell one."""
    if b"\\u" not in data and not may_refuse(data) and b"rule" not in lowered(data):
        return False
    return strings_list_rules(data)


def strings_list_rules(data: bytes) -> bool:
    """`_json_candidates_list_rules`, every document parsed."""
    try:
        doc = json.loads(data, object_pairs_hook=tuple)
    except (ValueError, RecursionError):
        return lists_rules(data) or _derivable(data)
    # Only objects and arrays are stacked (most nodes are scalars); a key's answer is
    # worked out once (a log repeats its few keys thousands of times).
    prompt_key: dict[str, bool] = {}
    stack: list[Any] = [doc] if type(doc) in _CONTAINERS else []
    while stack:
        node = stack.pop()
        if type(node) is tuple:
            system = False  # a chat message for the system prompt (`{"role": "system", ...}`)
            for key, value in node:
                is_prompt = prompt_key.get(key)
                if is_prompt is None:
                    is_prompt = prompt_key[key] = vocab.is_prompt_key(key)
                if is_prompt and (any(_lists_or_derived(s) for s in _in_order(value)) or _items_list(value)):
                    return True
                if key == "role" and type(value) is str:
                    system = system or value.lower() in vocab.CHAT_SYSTEM_ROLES
                elif type(value) in _CONTAINERS:
                    stack.append(value)
            if system and _system_content(node):
                return True
        else:
            stack.extend(v for v in node if type(v) in _CONTAINERS)
    return False


def _items_list(value: Any) -> bool:
    """A list under a prompt key, read as a framework joins it (each string led in by those
    before it: extract/data/prompts._items): may its strings together list rules?"""
    return type(value) is list and _lists_or_derived("\n".join(_in_order(value)))


def _in_order(node: object) -> Iterator[str]:
    """The strings of a decoded JSON value, in the document's order."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, str):
            yield n
        elif type(n) is tuple:
            stack.extend(v for _, v in reversed(n))
        elif isinstance(n, list):
            stack.extend(reversed(n))


def _system_content(members: tuple[tuple[str, Any], ...]) -> bool:
    """A chat message for the system prompt (`{"role": "system", "content": X}`, as
    extract/data/prompts.py reads one): may X list rules or be derived from them?"""
    return any(_lists_or_derived(s) for k, v in members if k == "content" for s in _in_order(v))


def _lists_or_derived(text: str) -> bool:
    return lists_rules(text.encode("utf-8", "surrogatepass")) or ("{" in text and dataprompts.derived(text))


def answers(
    rel: str, data: bytes, relevance: Relevance, prompt: bool, stems: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Can the file name a card id or a near miss ("ids"); what a Python file imports of
    the tree's modules (`stems`, "imports"); and, where it may hold prompt candidates
    (`prompt`) and names none, may they list rules ("lists"), or a Python one leave a
    lead-in open for a name to fill ("leads")?"""
    out: dict[str, Any] = {"ids": relevance.file_names_ids(rel, data)}
    python = kind_of(rel) == FileKind.PYTHON
    if python:
        out["imports"] = imported(data, stems)  # for ondemand's walk to the importers, if it takes one
    if prompt and not out["ids"]:
        out["lists"] = weak(rel, data, relevance)
        if not out["lists"] and python:
            out["leads"] = leads(data)
    return out


def leads(data: bytes) -> dict[str, list[str]]:
    """Where this Python file is a prompt candidate, the names through which its prompts
    may be composed into a rule list (gate/composed/), by what their bindings must hold
    (reach.py's `need`, its words joined by a blank): those read after a string that leaves
    a refusing lead-in open (a rule line), and those read in a prompt's value (what the
    value's own text lacks)."""
    from refusal_lint.static.gate.composed.leadins import leads as names_after
    from refusal_lint.static.gate.composed.passed import passed
    from refusal_lint.static.gate.composed.reach import LISTED
    from refusal_lint.static.gate.composed.statements import KEYWORDS

    found = shapes.shapes_of(data)  # found by weak() already, most often
    if not found:
        return {}
    out = passed(data, found)
    spans = refusing_spans(data)
    after = set(names_after(data, spans)) - KEYWORDS if spans else set()
    if after:
        out[LISTED] = sorted({*out.get(LISTED, ()), *after})
    return out


def stepwise(
    rels: list[str],
    text: Callable[[str], bytes | None],
    ids: tuple[str, ...],
    into: dict[str, dict[str, Any]],
) -> Callable[[], bool]:
    """A step that answers one of `rels` a call, into `into`, and says whether any is left:
    for a caller that asks them between other work (workers.Pool.finish's `meanwhile`)."""
    relevance = of(ids)
    todo = list(rels)

    def step() -> bool:
        if todo:
            rel = todo.pop()
            data = text(rel)
            if data is not None:
                into[rel] = answers(rel, data, relevance, True)
        return bool(todo)

    return step


def context(ids: Iterable[str], rels: Iterable[str], prefix: str) -> str:
    """What the answers depend on besides the bytes: the cards' ids, and the tree's Python
    modules (one a prompt imports from) and where they stand (`ModuleIndex.prefix`); the
    key they are kept under."""
    modules = sorted(rel for rel in rels if kind_of(rel) == FileKind.PYTHON)
    return cache.context("relevance", sorted(set(ids)), modules, prefix)
