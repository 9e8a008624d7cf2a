"""The last runs' results, answered whole where nothing they read has changed.

A run's result is a function of the tool's code, the config, the settings that choose
findings, and the bytes of the files it walked; the cache already trusts a file's size and
stamp (discover/walk.py `stamp`) to stand for its bytes. So a run over a tree whose walk
gives the same files with the same sizes and stamps, under the same code, config and
settings, gives the same result: it is read back instead of worked out again (a warm run
decodes no fact and parses nothing). One file changed, added or removed, and the key is
another: the run goes through the per-file cache as before.

Not kept: a run whose facts depend on limits or luck (an UNCHECKED problem: a parse past
its CPU limit; a worker that died or overran, whatever it held), which the next run tries
again; bytes that are not the disk's (git's index, an editor's buffers); a run for some
files only (the owners of those files are worked out from the whole tree's agents).
Stored as JSON, like the cache: the reader makes only refusal_lint's own dataclasses and
enums, never runs code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import importlib
import json
import os
from typing import TYPE_CHECKING, Any

from refusal_lint.static.cache import DIR, code_fingerprint, write

if TYPE_CHECKING:
    from refusal_lint.config import Config
    from refusal_lint.static.discover.walk import Walk
    from refusal_lint.static.settings import Settings

FOLDER = "runs-v1"  # in the cache's folder: a file a run kept, named by its key
KEPT = 4  # runs kept: a tree checked with two configs or modes in turn keeps both
_PACKAGE = "refusal_lint."


def key(
    root: str, targets: list[str], exclude_base: str, cfg: Config, settings: Settings, walk: Walk
) -> str | None:
    """What the result is a function of, hashed; None where it cannot be kept."""
    if not settings.use_cache or settings.memory is not None or any(e.data is not None for e in walk.files):
        return None
    parts = [
        code_fingerprint(),
        root,
        targets,
        exclude_base,
        _canonical(cfg),
        sorted(settings.select),
        sorted(settings.ignore),
        settings.exhaustive,
        settings.parse_timeout,
        settings.contents.name,
        walk.skipped,
        [[e.rel, e.size, e.stamp_ns] for e in walk.files],
    ]
    return hashlib.sha256(json.dumps(parts, default=repr).encode()).hexdigest()


def _canonical(obj: Any) -> Any:
    """`obj` as JSON data that is the same for equal values in every process (a set's
    order is not)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [
            type(obj).__name__,
            {f.name: _canonical(getattr(obj, f.name)) for f in dataclasses.fields(obj)},
        ]
    if isinstance(obj, (set, frozenset)):
        return sorted((_canonical(x) for x in obj), key=json.dumps)
    if isinstance(obj, (list, tuple)):
        return [_canonical(x) for x in obj]
    if isinstance(obj, dict):
        return sorted(([_canonical(k), _canonical(v)] for k, v in obj.items()), key=json.dumps)
    if isinstance(obj, enum.Enum):
        return obj.value
    return obj


def load(folder: str, run_key: str) -> Any:
    """The result kept under `run_key`, or None (none kept, or a file damaged: the run is
    worked out). Kept as used last, for `save` to keep the runs used most recently."""
    path = os.path.join(folder, DIR, FOLDER, run_key + ".json")
    try:
        with open(path, encoding="utf-8") as fh:
            result = _decode(json.load(fh))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ImportError, RecursionError):
        return None
    with contextlib.suppress(OSError):  # a read-only cache is read all the same
        os.utime(path)
    return result


def save(folder: str, run_key: str, result: Any) -> None:
    """Keep `result` under `run_key` (its own file: a run answered reads only its own), and
    only the last KEPT runs used (a read-only tree keeps none)."""
    body = json.dumps(_encode(result), separators=(",", ":"))
    if not write(folder, os.path.join(FOLDER, run_key + ".json"), body):
        return
    runs = os.path.join(folder, DIR, FOLDER)
    with contextlib.suppress(OSError):
        kept = [e for e in os.scandir(runs) if e.name.endswith(".json")]
        kept.sort(key=lambda e: e.stat().st_mtime_ns, reverse=True)
        for old in kept[KEPT:]:
            os.unlink(old.path)


def _encode(obj: Any) -> Any:
    """JSON data that `_decode` makes `obj` again: a dataclass or enum by its class's place
    in this package, each container by its kind."""
    if obj is None or (isinstance(obj, (bool, int, float, str)) and not isinstance(obj, enum.Enum)):
        return obj
    if isinstance(obj, enum.Enum):
        return {"e": _place(type(obj)), "v": obj.value}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = {f.name: _encode(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
        return {"c": _place(type(obj)), "f": fields}
    if isinstance(obj, list):
        return [_encode(x) for x in obj]
    if isinstance(obj, (tuple, set, frozenset)):
        kind = "t" if isinstance(obj, tuple) else "s" if isinstance(obj, set) else "z"
        return {kind: [_encode(x) for x in obj]}
    if isinstance(obj, dict):
        return {"d": [[_encode(k), _encode(v)] for k, v in obj.items()]}
    raise TypeError(f"cannot keep {type(obj).__name__}")


def _place(cls: type) -> str:
    if not cls.__module__.startswith(_PACKAGE):
        raise TypeError(f"cannot keep {cls.__name__}")
    return f"{cls.__module__}:{cls.__qualname__}"


def _class(place: str, base: type | None) -> Any:
    module, _, name = place.partition(":")
    if not module.startswith(_PACKAGE):
        raise TypeError(place)
    cls = getattr(importlib.import_module(module), name)
    if not isinstance(cls, type) or not (
        issubclass(cls, base) if base is not None else dataclasses.is_dataclass(cls)
    ):
        raise TypeError(place)
    return cls


def _decode(data: Any) -> Any:
    if isinstance(data, list):
        return [_decode(x) for x in data]
    if not isinstance(data, dict):
        return data
    if "c" in data:
        cls = _class(data["c"], None)
        obj = object.__new__(cls)
        for f in dataclasses.fields(cls):
            object.__setattr__(obj, f.name, _decode(data["f"][f.name]))
        return obj
    if "e" in data:
        return _class(data["e"], enum.Enum)(data["v"])
    if "d" in data:
        return {_decode(k): _decode(v) for k, v in data["d"]}
    kind, items = next(iter(data.items()))
    made = [_decode(x) for x in items]
    return {"t": tuple, "s": set, "z": frozenset}[kind](made)
