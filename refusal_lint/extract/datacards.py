"""Refusals extension entries in a JSON or YAML document tree."""

from __future__ import annotations

from refusal_lint import spec
from refusal_lint.extract.tree import TNode
from refusal_lint.facts import ExtDecl, ParamItem
from refusal_lint.model import Loc


def may_hold_extension(doc: object) -> bool:
    """Could a plain document hold a refusals extension entry: a string that is our URI (or
    almost), or an entry whose `uri` is not a string (RL101)?"""
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            uri = node.get("uri", "")
            if not isinstance(uri, str):
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str) and "efusal" in node.lower() and spec.uri_kind(node):
            return True
    return False


def _params(entry: TNode) -> tuple[str, Loc | None, tuple[ParamItem, ...], str]:
    member = entry.get("params")
    if member is None:
        return "absent", None, (), ""
    key, value = member
    ident = f"{value.loc.path}:{value.loc.line}:{value.loc.col}"
    if value.kind == "null":
        return "null", key.loc, (), ident
    if value.kind != "object":
        return "other", key.loc, (), ident
    items = tuple(
        ParamItem(
            str(k.value),
            k.loc,
            v.value if v.kind == "string" else None,  # type: ignore[arg-type]
            v.kind,
        )
        for k, v in value.items
    )
    return "object", key.loc, items, ident


def _entry(entry: TNode, card: str, name: str | None) -> ExtDecl | None:
    if entry.kind == "string":
        # `"extensions": ["https://.../refusals/v1"]`: ours, but not an object.
        if isinstance(entry.value, str) and spec.uri_kind(entry.value):
            return ExtDecl(
                entry.loc,
                card,
                entry.value,
                ("extension entry is not an object",),
                "absent",
                None,
                (),
                "",
                name,
            )
        return None
    if entry.kind != "object":
        return None
    member = entry.get("uri")
    if member is None:
        return None
    key, uri = member
    problems = []
    uri_text = uri.value if uri.kind == "string" else None
    if uri_text is None:
        # A non-string uri is ours only when the entry otherwise looks like a refusals entry.
        desc = entry.get("description")
        params = entry.get("params")
        hint = desc is not None and "refus" in str(desc[1].value).lower()
        if not hint and (params is None or params[1].kind != "object"):
            return None
        problems.append(f"`uri` is {uri.kind}, not a string")
    elif spec.uri_kind(str(uri_text)) is None:
        return None
    req = entry.get("required")
    if req is not None and req[1].kind != "bool":
        problems.append(f"`required` is {req[1].kind}, not a boolean")
    kind, ploc, items, ident = _params(entry)
    return ExtDecl(
        key.loc,
        card,
        uri_text if isinstance(uri_text, str) else None,
        tuple(problems),
        kind,
        ploc,
        items,
        ident,
        name,
    )


def find_extensions(root: TNode) -> list[ExtDecl]:
    """Every refusals extension entry in the document, in document order."""
    out: list[ExtDecl] = []
    # Explicit stack: documents may nest deeper than Python's recursion limit.
    # The card of an entry is the nearest enclosing object that holds `capabilities`.
    stack: list[tuple[TNode, str, str | None]] = [(root, "", None)]
    while stack:
        node, card, name = stack.pop()
        if node.kind == "array":
            stack.extend((e, card, name) for e in node.elems)
            continue
        if node.kind != "object":
            continue
        if node.get("capabilities") is not None or not card:
            card = f"{node.loc.path}:{node.loc.line}:{node.loc.col}"
            named = node.get("name")
            if named is not None and named[1].kind == "string":
                name = str(named[1].value)
        if node.get("uri") is not None:
            decl = _entry(node, card, name)
            if decl is not None:
                out.append(decl)
        for k, v in node.items:
            if k.value == "extensions" and v.kind == "array":
                for e in v.elems:
                    if e.kind == "string" and (decl := _entry(e, card, name)) is not None:
                        out.append(decl)
            if v.kind in ("object", "array"):
                stack.append((v, card, name))
    out.sort(key=lambda d: (d.loc.line, d.loc.col))
    return out
