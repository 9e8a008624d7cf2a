"""Facts to JSON-ready data and back, for the cache (the facts are in core/facts.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

from refusal_lint.core.facts import (
    Attr,
    CallV,
    Const,
    CtorCall,
    DictV,
    Dyn,
    Each,
    ErrorUse,
    ExtDecl,
    FileFacts,
    Fmt,
    Fn,
    Guard,
    ImportRef,
    Item,
    Join,
    Op,
    Param,
    ParamItem,
    Problem,
    PyExt,
    PyPrompt,
    Ref,
    Seq,
    Str,
    Sub,
    Suppression,
)
from refusal_lint.core.model import Loc, Prompt, PromptLine

_TYPES: dict[str, type] = {
    t.__name__: t
    for t in (
        Loc,
        Prompt,
        PromptLine,
        Str,
        Const,
        Ref,
        Param,
        Dyn,
        Join,
        Sub,
        Item,
        DictV,
        Op,
        Seq,
        CallV,
        Each,
        Attr,
        Fmt,
        Fn,
        ParamItem,
        ExtDecl,
        PyExt,
        CtorCall,
        Guard,
        ErrorUse,
        Suppression,
        ImportRef,
        PyPrompt,
        Problem,
        FileFacts,
    )
}


def encode(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {"_": type(obj).__name__}
        for f in dataclasses.fields(obj):
            out[f.name] = encode(getattr(obj, f.name))
        return out
    if isinstance(obj, (tuple, list)):
        return [encode(x) for x in obj]
    return obj


_SCALARS = frozenset({str, int, float, bool, type(None)})


def decode(data: Any) -> Any:
    """`encode`'s inverse. A warm run decodes every cached fact: scalars are passed over
    without a call, and each object is made without its frozen `__init__` (one
    `object.__setattr__` a field); `encode` wrote every field, so nothing is left unset."""
    kind = type(data)
    if kind is dict:
        fields = {k: v if type(v) in _SCALARS else decode(v) for k, v in data.items()}
        cls = _TYPES[fields.pop("_")]
        obj: Any = object.__new__(cls)
        obj.__dict__.update(fields)
        return obj
    if kind is list:
        return tuple([x if type(x) in _SCALARS else decode(x) for x in data])
    return data
