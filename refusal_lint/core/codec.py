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


_FIELDS: dict[type, tuple[str, ...]] = {}  # each fact class's field names, once
_SCALARS = frozenset({str, int, float, bool, type(None)})


def encode(obj: Any) -> Any:
    """A fact as JSON-ready data: `{"_": class, field: value, ...}`, tuples as lists. A
    `Loc` is `{"L": [line, col, end_line, end_col]}`, its path added only where it is not
    the file's own: a file's facts hold thousands (every call binding may follow has one),
    and their keys and repeated paths were most of a cache's bytes, and of a warm run's
    time reading it."""
    return _encode(obj, obj.path if isinstance(obj, FileFacts) else None)


def _encode(obj: Any, path: str | None) -> Any:
    kind = type(obj)
    if kind in _SCALARS:
        return obj
    if kind is Loc:
        nums = [obj.line, obj.col, obj.end_line, obj.end_col]
        return {"L": nums if obj.path == path else [*nums, obj.path]}
    names = _FIELDS.get(kind)
    if names is None:
        if isinstance(obj, (tuple, list)):
            return [_encode(x, path) for x in obj]
        if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
            return obj
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(obj))
    out: dict[str, Any] = {"_": kind.__name__}
    for name in names:
        out[name] = _encode(getattr(obj, name), path)
    return out


def decode(data: Any) -> Any:
    """`encode`'s inverse. A warm run decodes every cached fact: scalars are passed over
    without a call, and each object is made without its frozen `__init__` (one
    `object.__setattr__` a field); `encode` wrote every field, so nothing is left unset."""
    path = data.get("path") if type(data) is dict and data.get("_") == "FileFacts" else None
    return _decode(data, path)


def _decode(data: Any, path: str | None) -> Any:
    kind = type(data)
    if kind is dict:
        nums = data.get("L")
        if nums is not None:
            loc: Any = object.__new__(Loc)
            loc.__dict__.update(
                path=nums[4] if len(nums) > 4 else path,
                line=nums[0],
                col=nums[1],
                end_line=nums[2],
                end_col=nums[3],
            )
            return loc
        fields = {k: v if type(v) in _SCALARS else _decode(v, path) for k, v in data.items()}
        cls = _TYPES[fields.pop("_")]
        obj: Any = object.__new__(cls)
        obj.__dict__.update(fields)
        return obj
    if kind is list:
        return tuple([x if type(x) in _SCALARS else _decode(x, path) for x in data])
    return data
