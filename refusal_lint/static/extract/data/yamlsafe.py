"""YAML read safely: composed (no object construction), aliases followed within a budget.

PyYAML's composer keeps an alias as a shared node, so a billion-laughs document composes
in linear space; the danger is in expanding it, which `to_tree` bounds.
"""

from __future__ import annotations

from typing import Any

import yaml

from refusal_lint.core.kinds import ValueKind
from refusal_lint.core.model import Loc
from refusal_lint.static.extract.data.tree import ParseError, TNode, TooDeep

NODE_BUDGET = 200_000


class YamlError(ParseError):
    pass


# libyaml's composer, where PyYAML was built with it: the same nodes and marks, 10x faster.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def compose_all(text: str) -> list[yaml.Node]:
    try:
        loader = _LOADER(text)
        try:
            docs: list[yaml.Node] = []
            while loader.check_node():
                node = loader.get_node()
                if node is not None:
                    docs.append(node)
            return docs
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise YamlError(f"{exc.problem or exc.context or 'invalid YAML'}", line, col) from None
    except yaml.YAMLError as exc:
        raise YamlError(str(exc).splitlines()[0] if str(exc) else "invalid YAML") from None
    except RecursionError:
        raise YamlError("nesting too deep to read") from None


_SCALAR = {
    "tag:yaml.org,2002:str": ValueKind.STRING,
    "tag:yaml.org,2002:int": ValueKind.NUMBER,
    "tag:yaml.org,2002:float": ValueKind.NUMBER,
    "tag:yaml.org,2002:bool": ValueKind.BOOL,
    "tag:yaml.org,2002:null": ValueKind.NULL,
}


def _scalar_value(node: yaml.ScalarNode, kind: str) -> object:
    if kind == ValueKind.STRING:
        return node.value
    if kind == ValueKind.NULL:
        return None
    if kind == ValueKind.BOOL:
        return node.value.lower() in ("true", "yes", "on", "y")
    try:
        return float(node.value) if "." in node.value or "e" in node.value.lower() else int(node.value, 0)
    except ValueError:
        return node.value


def _loc(node: yaml.Node, path: str) -> Loc:
    s, e = node.start_mark, node.end_mark
    return Loc(path, s.line + 1, s.column + 1, e.line + 1, e.column + 1)


def _as_written(node: yaml.ScalarNode, lines: list[str]) -> str:
    """A block scalar's lines as the file holds them, without the block's indentation."""
    end = node.end_mark.line + (1 if node.end_mark.column else 0)
    block = lines[node.start_mark.line + 1 : end]
    while block and not block[-1].strip():
        block.pop()
    first = next((ln for ln in block if ln.strip()), "")
    indent = len(first) - len(first.lstrip(" "))
    return "\n".join(ln[indent:] if ln.strip() else "" for ln in block)


def to_tree(root: yaml.Node, path: str, budget: int = NODE_BUDGET, lines: list[str] | None = None) -> TNode:
    """Convert a composed node graph to TNode, visiting at most `budget` nodes (aliases
    included); with the file's `lines`, folded scalars keep their text as written too."""
    count = 0

    def conv(node: yaml.Node, depth: int) -> TNode:
        nonlocal count
        count += 1
        if count > budget or depth > 500:
            raise TooDeep("alias expansion or nesting past the reading limit")
        # Loops, not generator expressions: one frame a level, so the deepest tree read
        # (500 levels) stays within Python's default recursion limit.
        if isinstance(node, yaml.MappingNode):
            items = []
            for k, v in pairs(node):
                items.append((conv(k, depth + 1), conv(v, depth + 1)))
            return TNode(ValueKind.OBJECT, _loc(node, path), items=tuple(items))
        if isinstance(node, yaml.SequenceNode):
            elems = []
            for v in node.value:
                elems.append(conv(v, depth + 1))
            return TNode(ValueKind.ARRAY, _loc(node, path), elems=tuple(elems))
        assert isinstance(node, yaml.ScalarNode)
        kind = _SCALAR.get(node.tag, ValueKind.STRING)
        loc = _loc(node, path)
        written = None
        if node.style in ("|", ">"):
            # A block scalar's text starts on the line after its indicator.
            loc = Loc(path, loc.line + 1, 1, loc.end_line, loc.end_col)
            if node.style == ">" and kind == ValueKind.STRING and lines is not None:
                written = _as_written(node, lines)
        return TNode(kind, loc, _scalar_value(node, kind), written=written)

    return conv(root, 0)


def within_budget(docs: list[yaml.Node], budget: int = NODE_BUDGET) -> None:
    """Raise TooDeep where `to_tree` would on one of `docs`: past `budget` nodes with its
    aliases expanded, or nested past its depth; counted over the shared nodes once each
    (a billion-laughs document costs its own size), without building the tree."""
    for doc in docs:
        size, height = _extent(doc)
        if size > budget or height > 501:
            raise TooDeep("alias expansion or nesting past the reading limit")


def _extent(root: yaml.Node) -> tuple[int, int]:
    """(nodes, levels) of the tree `root` expands to; a node that holds itself: endless."""
    done: dict[int, tuple[int, int]] = {}
    endless = (NODE_BUDGET * 2 + 1, 1 << 30)
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    busy: set[int] = set()
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in done:
            continue
        kids = _children(node)
        if children_done:
            busy.discard(key)
            parts = [done[id(k)] for k in kids]
            done[key] = (1 + sum(p[0] for p in parts), 1 + max((p[1] for p in parts), default=0))
            continue
        if key in busy:
            return endless
        busy.add(key)
        stack.append((node, True))
        for kid in kids:
            if id(kid) in busy:
                return endless
            if id(kid) not in done:
                stack.append((kid, False))
    return done[id(root)]


_MERGE = "tag:yaml.org,2002:merge"


def pairs(node: yaml.MappingNode) -> list[tuple[yaml.Node, yaml.Node]]:
    """A mapping's (key, value) pairs as PyYAML's loader makes the dict: each merge key
    (`<<: *base`, `<<: [*a, *b]`) replaced by the pairs of the mappings it names (an
    earlier one of a list winning), those a key of the mapping's own overrides left out. A
    merge of no mapping stays a pair, as written."""
    return _flattened(node, set())


def _flattened(node: yaml.MappingNode, seen: set[int]) -> list[tuple[yaml.Node, yaml.Node]]:
    if not any(k.tag == _MERGE for k, _ in node.value) or id(node) in seen:
        return list(node.value)
    seen = seen | {id(node)}
    own: list[tuple[yaml.Node, yaml.Node]] = []
    merged: list[tuple[yaml.Node, yaml.Node]] = []
    for k, v in node.value:
        named = (
            [v] if isinstance(v, yaml.MappingNode) else v.value if isinstance(v, yaml.SequenceNode) else None
        )
        if k.tag != _MERGE or named is None or not all(isinstance(m, yaml.MappingNode) for m in named):
            own.append((k, v))
            continue
        for m in reversed(named):  # PyYAML's order: the list's first mapping last, so it wins
            merged.extend(_flattened(m, seen))
    taken = {_key(k) for k, _ in own}
    kept: list[tuple[yaml.Node, yaml.Node]] = []
    for k, v in reversed(merged):  # the last of a key wins, as in the dict
        if _key(k) not in taken:
            taken.add(_key(k))
            kept.append((k, v))
    return [*reversed(kept), *own]


def _key(node: yaml.Node) -> object:
    return (node.tag, node.value) if isinstance(node, yaml.ScalarNode) else id(node)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in pairs(node) for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def plain(node: TNode) -> Any:
    """A TNode as plain Python data (last duplicate key wins)."""
    if node.kind == ValueKind.OBJECT:
        return {str(plain(k)): plain(v) for k, v in node.items}
    if node.kind == ValueKind.ARRAY:
        return [plain(e) for e in node.elems]
    return node.value


def load_plain(text: str) -> Any:
    docs = compose_all(text)
    if not docs:
        return None
    try:
        return plain(to_tree(docs[0], ""))
    except TooDeep as exc:
        raise YamlError(str(exc)) from None
