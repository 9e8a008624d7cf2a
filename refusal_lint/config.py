"""Configuration: found upward from the first path, validated strictly (DESIGN §2)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from refusal_lint.codes import expand
from refusal_lint.core.errors import UsageError

CONFIG_FILES = (".refusal-lint.yaml", "refusal-lint.yaml", "pyproject.toml")
DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024
DEFAULT_PARSE_TIMEOUT = 20.0  # seconds one Python file may take in the parser


@dataclass(frozen=True)
class AgentConfig:
    name: str
    card: str | None = None
    prompt: str | None = None
    guards: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    source: str | None = None  # the file it came from
    base: str = "."  # folder the config's paths are relative to
    agents: tuple[AgentConfig, ...] = ()
    exclude: tuple[str, ...] = ()
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    guard_callables: tuple[str, ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    parse_timeout: float = DEFAULT_PARSE_TIMEOUT
    probes: dict[str, str] = field(default_factory=dict)
    baseline: str | None = None  # a baseline file, as a path (relative to `base` in the file)


_TOP_KEYS = (
    "agents",
    "exclude",
    "select",
    "ignore",
    "per-file-ignores",
    "guard-callables",
    "max-file-size",
    "parse-timeout",
    "probes",
    "baseline",
)
_AGENT_KEYS = ("name", "card", "prompt", "guards")


def _nearest(key: str, valid: tuple[str, ...]) -> str:
    import difflib  # imported only on a bad key: start-up is part of every run's time

    near = difflib.get_close_matches(key, valid, n=1, cutoff=0.5)
    return f" (did you mean `{near[0]}`?)" if near else f" (valid: {', '.join(valid)})"


def _check_keys(data: dict[str, Any], valid: tuple[str, ...], where: str, src: str) -> None:
    for key in data:
        if key not in valid:
            raise UsageError(f"{src}: unknown key `{where}{key}`{_nearest(str(key), valid)}")


def _str_list(value: Any, key: str, src: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{src}: `{key}` must be a list of strings")
    return tuple(value)


def _codes(value: Any, key: str, src: str) -> frozenset[str]:
    items = _str_list(value, key, src)
    try:
        return frozenset(expand(list(items)))
    except KeyError as exc:
        raise UsageError(f"{src}: `{key}` names unknown code `{exc.args[0]}`") from None


def parse(data: Any, src: str, base: str) -> Config:
    """Validate raw config data; every problem is a UsageError naming the key."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise UsageError(f"{src}: the configuration must be a mapping")
    _check_keys(data, _TOP_KEYS, "", src)
    agents = []
    raw_agents = data.get("agents", [])
    if not isinstance(raw_agents, list):
        raise UsageError(f"{src}: `agents` must be a list of mappings")
    for i, raw in enumerate(raw_agents):
        if not isinstance(raw, dict):
            raise UsageError(f"{src}: `agents[{i}]` must be a mapping")
        _check_keys(raw, _AGENT_KEYS, f"agents[{i}].", src)
        for key in ("name", "card", "prompt"):
            if key in raw and not isinstance(raw[key], str):
                raise UsageError(f"{src}: `agents[{i}].{key}` must be a string")
        name = raw.get("name") or f"agent-{i + 1}"
        guards = _str_list(raw.get("guards", []), f"agents[{i}].guards", src)
        agents.append(AgentConfig(name, raw.get("card"), raw.get("prompt"), guards))
    pfi = data.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise UsageError(f"{src}: `per-file-ignores` must map globs to lists of codes")
    per_file = tuple(
        (str(glob), _codes(codes, f"per-file-ignores.{glob}", src)) for glob, codes in pfi.items()
    )
    size = data.get("max-file-size", DEFAULT_MAX_FILE_SIZE)
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise UsageError(f"{src}: `max-file-size` must be a positive number of bytes")
    timeout = data.get("parse-timeout", DEFAULT_PARSE_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise UsageError(f"{src}: `parse-timeout` must be a positive number of seconds")
    probes = data.get("probes", {})
    if not isinstance(probes, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in probes.items()
    ):
        raise UsageError(f"{src}: `probes` must map rule ids to message texts")
    baseline = data.get("baseline")
    if baseline is not None and not isinstance(baseline, str):
        raise UsageError(f"{src}: `baseline` must be the path of a baseline file")
    return Config(
        source=src,
        base=base,
        agents=tuple(agents),
        exclude=_str_list(data.get("exclude", []), "exclude", src),
        select=_codes(data["select"], "select", src) if "select" in data else None,
        ignore=_codes(data.get("ignore", []), "ignore", src),
        per_file_ignores=per_file,
        guard_callables=_str_list(data.get("guard-callables", []), "guard-callables", src),
        max_file_size=size,
        parse_timeout=float(timeout),
        probes=dict(probes),
        baseline=os.path.join(base, baseline) if baseline else None,
    )


def _read(path: str, data: bytes | None = None) -> Any:
    """The refusal-lint table of a config file (its bytes, when given, as the run's contents
    source holds them: git's index under --git-index)."""
    try:
        if data is None:
            with open(path, "rb") as fh:
                data = fh.read()
        text = data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read config: {exc}") from None
    if path.lower().endswith(".toml"):
        import tomllib

        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise UsageError(f"{path}: invalid TOML: {exc}") from None
        # `[tool.refusal-lint]` (a pyproject.toml, or any TOML file `--config` names that
        # holds the table), else the whole file (`--config refusal-lint.toml`, as ruff.toml).
        tool = doc.get("tool")
        table = tool.get("refusal-lint") if isinstance(tool, dict) else None
        return table if table is not None or os.path.basename(path) == "pyproject.toml" else doc
    from refusal_lint.static.extract.data.yamlsafe import YamlError, load_plain

    try:
        return load_plain(text)
    except YamlError as exc:
        raise UsageError(f"{path}: invalid YAML: {exc}") from None


Reader = Callable[[str], "bytes | None"]  # a file's bytes as the run reads it; None: not there


def _raw(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _has_table(pyproject: bytes) -> bool:
    """Does a pyproject.toml hold our table: `[tool.refusal-lint]` as usually written, or in
    any other spelling TOML allows (`[tool."refusal-lint"]`, `[tool]` with `refusal-lint = {...}`)?"""
    if b"[tool.refusal-lint" in pyproject:
        return True
    if b"refusal-lint" not in pyproject:
        return False
    import tomllib

    try:
        tool = tomllib.loads(pyproject.decode("utf-8")).get("tool")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False  # not ours to report: it names no table of ours plainly
    return isinstance(tool, dict) and "refusal-lint" in tool


def find(start: str, read: Reader = _raw) -> tuple[str, bytes] | None:
    """The nearest config file at or above `start` and its bytes (a pyproject.toml counts
    only with our table; a file `read` does not give, such as one git does not track under
    --git-index, does not count)."""
    folder = start if os.path.isdir(start) else os.path.dirname(start)
    while True:
        for name in CONFIG_FILES:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                data = read(candidate)
                if data is None or (name == "pyproject.toml" and not _has_table(data)):
                    continue
                return candidate, data
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load(explicit: str | None, first_path: str, read: Reader = _raw) -> Config:
    """The config named on the command line, else the nearest one above `first_path`, read
    through `read` (the run's contents source: git's index under --git-index).
    (os.path, not pathlib: this runs on every start, and pathlib costs milliseconds to import.)"""
    data = None
    if explicit is not None:
        path = os.path.normpath(explicit)
        if not os.path.isfile(path):
            raise UsageError(f"{explicit}: config file not found")
    else:
        found = find(os.path.realpath(first_path), read)
        if found is None:
            return Config()
        path, data = found
    return parse(_read(path, data), path, os.path.dirname(os.path.abspath(path)))
