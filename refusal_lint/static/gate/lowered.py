"""A file's bytes lowered once for every text gate that asks (prompt words, guard words,
ids, words of refusing): one slot, the file being looked at."""

from __future__ import annotations

_last: tuple[bytes, bytes] | None = None


def lowered(data: bytes) -> bytes:
    """`data.lower()`, kept while `data` is the last asked (the slot holds it, so no other
    object can take its identity)."""
    global _last
    if _last is None or _last[0] is not data:
        _last = (data, data.lower())
    return _last[1]
