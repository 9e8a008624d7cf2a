"""JSON with positions and duplicate keys kept (the `json` module hides both).

The standard parser validates first, so this reader may assume well-formed input and
reports errors exactly where `json` stops, as DESIGN §3 asks.
"""

from __future__ import annotations

import json
import re
import sys

from refusal_lint.core import sourcetext
from refusal_lint.core.kinds import ValueKind
from refusal_lint.core.model import Loc
from refusal_lint.static.extract.data.tree import ParseError, TNode, TooDeep

_TOKEN = re.compile(
    # NaN, Infinity and -Infinity: Python's json reads them, so they are valid here too.
    r'[ \t\n\r]*(?:([{}\[\]:,])|("(?:[^"\\]|\\.)*")|(-?[0-9][0-9.eE+-]*|NaN|-?Infinity)|(true|false|null))',
    re.S,
)
MAX_DEPTH = 10_000


class JsonError(ParseError):
    pass


# Levels of nesting the standard parser is let recurse to (it recurses in C, counted as
# Python frames: by default it stops near 1,000): its frames fit a 1 MiB thread stack.
LOADS_DEPTH = 5_000


def validate(text: str) -> object:
    """The document as the standard parser reads it; JsonError where it stops."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, LOADS_DEPTH))
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonError(exc.msg, exc.lineno, exc.colno) from None
    except RecursionError:
        # Past LOADS_DEPTH: a legal document, but no card (RL005: its facts unknown).
        raise TooDeep("nesting too deep to read") from None
    finally:
        sys.setrecursionlimit(limit)


def parse(text: str, path: str) -> TNode:
    """Parse JSON text into a TNode tree; JsonError where the standard parser stops."""
    validate(text)
    starts = sourcetext.line_starts(text)

    def loc(a: int, b: int) -> Loc:
        (la, ca), (lb, cb) = sourcetext.line_col(starts, a), sourcetext.line_col(starts, b)
        return Loc(path, la, ca + 1, lb, cb + 1)

    # Iterative descent: deep documents must not exhaust the Python stack.
    stack: list[tuple[ValueKind, int, list[object]]] = []  # (kind, start offset, members)
    pending_key: list[TNode | None] = []
    root: TNode | None = None
    pos = 0
    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            break
        pos = m.end()
        punct, string, number, word = m.groups()
        start = m.start(m.lastindex or 0)
        node: TNode | None = None
        if punct in ("{", "["):
            if len(stack) >= MAX_DEPTH:
                raise TooDeep("nesting too deep to read")
            stack.append((ValueKind.OBJECT if punct == "{" else ValueKind.ARRAY, start, []))
            pending_key.append(None)
            continue
        if punct in ("}", "]"):
            kind, begin, members = stack.pop()
            pending_key.pop()
            if kind == ValueKind.OBJECT:
                pairs = tuple(members[i : i + 2] for i in range(0, len(members), 2))
                node = TNode(kind, loc(begin, pos), items=tuple((p[0], p[1]) for p in pairs))  # type: ignore[misc]
            else:
                node = TNode(kind, loc(begin, pos), elems=tuple(members))  # type: ignore[arg-type]
        elif punct in (":", ","):
            continue
        elif string is not None:
            node = TNode(ValueKind.STRING, loc(start, pos), json.loads(string))
        elif number is not None:
            node = TNode(ValueKind.NUMBER, loc(start, pos), json.loads(number))
        else:
            node = TNode(
                ValueKind.NULL if word == "null" else ValueKind.BOOL, loc(start, pos), json.loads(word)
            )
        if not stack:
            root = node
            continue
        stack[-1][2].append(node)
    if root is None:
        raise JsonError("Expecting value", 1, 1)
    return root
