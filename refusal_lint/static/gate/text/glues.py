"""Literals glued to what a run puts beside them (`FAMILY + "-mixx"`, `f"{FAMILY}-mixx"`):
a token no piece of the source holds whole, which only the reading that composes the value
sees (gate/composed/gluing.py, reach.py). A question of bytes, asked of a span."""

from __future__ import annotations

import re
from collections.abc import Iterator

# A literal glued to what a run puts beside it, no blank between (each pattern starts at a
# byte of its own, which the search skips to): its piece ends before (`L`) or starts after
# (`R`; `+`: after a name's or a call's `+`) the match, or is unknown (`J`, a join whose
# separator is none or no blank).
_GLUES = (
    (re.compile(rb"[\"']\s*\+\s*[A-Za-z_(\[]"), "L"),  # "seg-" + X
    (re.compile(rb"\+\s*[rRbBuUfF]{0,2}[\"']"), "+"),  # X + "-mixx"
    (re.compile(rb"\}"), "R"),  # f"{X}-mixx", "{}-mixx".format(X)
    (re.compile(rb"\{"), "L"),  # f"seg-{X}"
    (re.compile(rb"%(?:\([^)\n]*\))?[-#0 +]*[0-9]*[sr]"), "LR"),  # "seg-%s-mixx" % X
    (re.compile(rb"[\"'][^\"'\s\\]*[\"']\s*\.\s*join\b"), "J"),  # "-".join(PARTS)
)
_TOKEN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_OPERAND_END = _TOKEN_BYTES | frozenset(b")]")


def glue(data: bytes, start: int = 0, end: int = -1) -> Iterator[bytes | None]:
    """The pieces of literals glued to what a run puts beside them in `data[start:end]`, to
    their far ends (None: a join's, unknown); none after an escape (`"\\n" + X`)."""
    for pattern, sides in _GLUES:
        for m in pattern.finditer(data, start, len(data) if end < 0 else end):
            if sides == "J":
                yield None
                continue
            at = m.start() - 1
            if "L" in sides and at >= 0 and data[at] in _TOKEN_BYTES and data[at - 1 : at] != b"\\":
                first = at
                while first > 0 and data[first - 1] in _TOKEN_BYTES:
                    first -= 1
                yield data[first : at + 1]
            if sides == "+" and _before(data, m.start()) not in _OPERAND_END:
                continue  # `"a" + "b"`: both literals, read whole already
            last = m.end()
            while sides in ("R", "LR", "+") and last < len(data) and data[last] in _TOKEN_BYTES:
                last += 1
            if last > m.end():
                yield data[m.end() : last]


def _before(data: bytes, at: int) -> int:
    """The last byte before `at` that is no blank (-1: none)."""
    while at > 0 and data[at - 1] in b" \t\r\n":
        at -= 1
    return data[at - 1] if at > 0 else -1
