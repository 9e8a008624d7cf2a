"""Refusals extension entries in a JSON or YAML document tree."""

from __future__ import annotations

import dataclasses
import json
import re
from urllib.parse import urlsplit

from refusal_lint.core import spec
from refusal_lint.core.facts import ExtDecl, ParamItem
from refusal_lint.core.kinds import ParamsKind, ValueKind
from refusal_lint.core.sourcetext import scrubbed
from refusal_lint.static.extract.data.tree import TNode, plain_nodes
from refusal_lint.static.gate.text.lowered import word_matches


def may_hold_extension(doc: object) -> bool:
    """Could a plain document hold a refusals extension entry: a string that is our URI (or
    almost), or an entry whose `uri` is not a string (RL101) that `_entry` takes for ours?
    Asked anywhere in the document, a superset of `find_extensions` (which reads a card's
    `capabilities.extensions` only): this gate and the text ones only skip a file that
    cannot hold one."""
    for node in plain_nodes(doc):
        if isinstance(node, dict):
            uri = node.get("uri", "")
            if not isinstance(uri, str) and _looks_ours(node):
                return True
        elif isinstance(node, str) and "efusal" in node.lower() and spec.uri_kind(node):
            return True
    return False


# Our URI, or a near miss of it, names this host (case aside); an entry object has a `uri` key.
_HOST = (urlsplit(spec.URI).hostname or "").lower()
_URI_AFTER = re.compile(r"uri(?![A-Za-z0-9_])")  # a word: at a word's start (word_matches)


def _names_entry(text: str) -> bool:
    """Can this text name an entry: our host (case aside), or `uri` as a word?"""
    return _HOST in text.lower() or next(word_matches(_URI_AFTER, text), None) is not None


# A `\\u` escape that can change `_names_entry`'s answer from no to yes: one that spells a
# letter or a dot (of `uri` or our host, in any case), or any one just before `uri` (what it
# spells may be no word character, so `uri` starts a word there; the escape's last digit
# held that back in the text). One after `uri`, or spelling `&` or `<` (HTML-escaped web
# text), cannot: the text already says yes, or the decoded document says no.
_SPELLING = re.compile(r"\\u(?:00(?:2[Ee]|4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa])|[0-9A-Fa-f]{4}uri)")


def json_text_may_hold_extension(text: str, doc: object) -> bool:
    """`may_hold_extension` asked of a JSON document's text, so that a large one (a log, an
    API schema that says "refusal") is not walked: an entry's `uri` key and our host are
    letters and dots, which no JSON escape but `\\u` spells, so the decoded document holds
    one only where the text does. Where a `\\u` escape can change that (`_SPELLING`: an
    emoji's cannot), the text asked is the document written back by the C encoder
    unescaped (it escapes no letter or dot)."""
    if "\\u" in text and _SPELLING.search(text) is not None:
        text = json.dumps(doc, ensure_ascii=False)
    return _names_entry(text)


def text_may_hold_extension(text: str) -> bool:
    """`may_hold_extension` asked of a YAML document's text, before it is turned into a
    tree: a `uri` key, our host, or an escape (which may spell either)."""
    return "\\" in text or _names_entry(text)


def _looks_ours(entry: dict[object, object]) -> bool:
    """`_entry`'s test for an entry whose uri is not a string, on a plain document (a
    description that is not a string is taken as one that may speak of refusing)."""
    desc = entry.get("description")
    hint = "description" in entry and (not isinstance(desc, str) or "refus" in desc.lower())
    return hint or isinstance(entry.get("params"), dict)


def _params(decl: ExtDecl, entry: TNode) -> ExtDecl:
    """The declaration with what its `params` member holds."""
    member = entry.get("params")
    if member is None:
        return dataclasses.replace(decl, params_kind=ParamsKind.ABSENT)
    key, value = member
    decl = dataclasses.replace(decl, params_loc=key.loc, params_id=value.loc.ident)
    if value.kind == ValueKind.NULL:
        return dataclasses.replace(decl, params_kind=ParamsKind.NULL)
    if value.kind != ValueKind.OBJECT:
        return dataclasses.replace(decl, params_kind=ParamsKind.OTHER)
    items = tuple(
        ParamItem(
            key=scrubbed(str(k.value)),
            loc=k.loc,
            reason=v.value if v.kind == ValueKind.STRING and isinstance(v.value, str) else None,
            kind=v.kind,
        )
        for k, v in value.items
    )
    return dataclasses.replace(decl, items=items)


def _entry(entry: TNode, card: str, name: str | None) -> ExtDecl | None:
    if entry.kind == ValueKind.STRING:
        # `"extensions": ["https://.../refusals/v1"]`: ours, but not an object.
        if isinstance(entry.value, str) and spec.uri_kind(entry.value):
            return ExtDecl(
                loc=entry.loc,
                card=card,
                uri=entry.value,
                problems=(spec.NOT_AN_OBJECT,),
                params_kind=ParamsKind.UNRESOLVED,  # RL101 says it all: no params to speak of
                agent_name=name,
            )
        return None
    if entry.kind != ValueKind.OBJECT:
        return None
    member = entry.get("uri")
    if member is None:
        return None
    key, uri = member
    problems = []
    uri_text = uri.value if uri.kind == ValueKind.STRING else None
    if uri_text is None:
        # A non-string uri is ours only when the entry otherwise looks like a refusals entry.
        desc = entry.get("description")
        params = entry.get("params")
        hint = desc is not None and "refus" in str(desc[1].value).lower()
        if not hint and (params is None or params[1].kind != ValueKind.OBJECT):
            return None
        problems.append(f"`uri` is {uri.kind}, not a string")
    elif spec.uri_kind(str(uri_text)) is None:
        return None
    req = entry.get("required")
    if req is not None and req[1].kind != ValueKind.BOOL:
        problems.append(f"`required` is {req[1].kind}, not a boolean")
    uri_str = uri_text if isinstance(uri_text, str) else None
    return _params(
        ExtDecl(loc=key.loc, card=card, uri=uri_str, problems=tuple(problems), agent_name=name), entry
    )


def card_entries(node: TNode) -> tuple[TNode, ...]:
    """The entries of an AgentCard's extension list, where a document's object is a card
    (DESIGN §2 "Card"): its `capabilities.extensions[]` (the members a parser keeps). An
    object with a `uri` elsewhere (a settings file's `refusals:`, a client's `activate:`
    list) is no card: the only place an extension entry counts."""
    caps = node.get("capabilities")
    exts = caps[1].get("extensions") if caps is not None and caps[1].kind == ValueKind.OBJECT else None
    return exts[1].elems if exts is not None and exts[1].kind == ValueKind.ARRAY else ()


def find_extensions(root: TNode) -> list[ExtDecl]:
    """Every refusals extension entry of the document's cards, in document order."""
    out: list[ExtDecl] = []
    # Explicit stack: documents may nest deeper than Python's recursion limit. A card is an
    # object that holds `capabilities` (a document may list several); its name is the one of
    # the nearest object that holds `capabilities`, or of the outermost object.
    stack: list[tuple[TNode, bool, str | None]] = [(root, False, None)]
    while stack:
        node, inside, name = stack.pop()
        if node.kind == ValueKind.ARRAY:
            stack.extend((e, inside, name) for e in node.elems)
            continue
        if node.kind != ValueKind.OBJECT:
            continue
        if node.get("capabilities") is not None or not inside:
            named = node.get("name")
            if named is not None and named[1].kind == ValueKind.STRING:
                name = str(named[1].value)
        for entry in card_entries(node):
            if (decl := _entry(entry, node.loc.ident, name)) is not None:
                out.append(decl)
        stack.extend((v, True, name) for _, v in node.items if v.kind in (ValueKind.OBJECT, ValueKind.ARRAY))
    out.sort(key=lambda d: (d.loc.line, d.loc.col))
    return out
