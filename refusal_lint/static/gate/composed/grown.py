"""Where a module's code grows a name's value or binds it other than by assigning it
(`lines.append(...)`, `(text := ...)`): statements binding composes the name's value from,
which the gate's readers of names (reach.py, gluing.py) follow as they follow assignments."""

from __future__ import annotations

import re
from functools import lru_cache

from refusal_lint.static.extract import vocab
from refusal_lint.static.gate.composed.statements import Code

# After a name, what grows or binds it other than its assignment: a method binding reads as
# growing it (`lines.append(...)`: vocab.GROWERS), a walrus in brackets. Searched for from
# its own bytes, the name read back from there.
_CHANGED = re.compile(
    rb"\.[ \t]*(?:" + b"|".join(g.encode() for g in sorted(vocab.GROWERS)) + rb")[ \t]*\(|:="
)
_NAME_BACK = re.compile(rb"[ \t]*([A-Za-z0-9_]*[A-Za-z_])(?![A-Za-z0-9_.])")  # on reversed bytes


@lru_cache(maxsize=16)
def _changed(data: bytes) -> dict[str, list[int]]:
    """Where each name is grown or bound by a walrus (`_CHANGED`), found in one pass a file."""
    out: dict[str, list[int]] = {}
    for m in _CHANGED.finditer(data):
        head = data[max(0, m.start() - 80) : m.start()][::-1]
        back = _NAME_BACK.match(head)
        if back is not None:
            out.setdefault(back[1][::-1].decode(), []).append(m.start() - back.end())
    return out


def changing(code: Code, name: str, scope: tuple[int, int] | None) -> list[tuple[int, int]]:
    """The statements of `scope` (else the module) that grow or bind `name` other than by
    assigning it, from the name on."""
    start, end = scope or (0, len(code.data))
    return [
        (at, code.statement(at)[1])
        for at in _changed(code.data).get(name, ())
        if start <= at < end and code.token_at(at) < 0
    ]
