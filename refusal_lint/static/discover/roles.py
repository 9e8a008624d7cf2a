"""What the config says files are: configured cards, prompts and guard globs, by path."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple

from refusal_lint.config import AgentConfig, Config
from refusal_lint.core.filekinds import is_kind
from refusal_lint.core.kinds import FileKind


@dataclass(frozen=True)
class Roles:
    """What the config says files are: configured cards, prompts and guard globs (root-relative)."""

    cards: dict[str, AgentConfig]
    # path -> the YAML or JSON key paths agents give it ('' the whole file), or None (text)
    prompt_files: dict[str, tuple[str, ...] | None]
    prompt_modules: dict[str, str]  # module path -> constant name
    prompts: dict[str, PromptSource]  # each configured `prompt:`, parsed once


class PromptSource(NamedTuple):
    """A configured `prompt:`: a file (with a YAML key path, or None for text) or a module's constant."""

    path: str  # root-relative
    key: str | None  # the YAML key path ('' = the whole file), the constant's NAME, or None
    module: bool


def rel(root: str, base: str, path: str) -> str:
    """A path the config names (relative to its folder `base`) as a path under `root`."""
    return os.path.relpath(os.path.join(base, path), root).replace(os.sep, "/")


def config_relative(root: str, cfg: Config, path: str) -> str:
    """A root-relative path as config globs see it: relative to the config's folder (to the
    root when no config file was found)."""
    base = cfg.base if cfg.source else root
    return os.path.relpath(os.path.join(root, path), base).replace(os.sep, "/")


def _prompt_source(spec: str, cfg: Config, root: str) -> PromptSource:
    """`file`, `file.yaml#key.path` or `module.py:NAME`."""
    if "#" in spec:
        f, key = spec.split("#", 1)
        return PromptSource(rel(root, cfg.base, f), key, module=False)
    if ".py:" in spec:
        f, name = spec.rsplit(":", 1)
        return PromptSource(rel(root, cfg.base, f), name, module=True)
    return PromptSource(rel(root, cfg.base, spec), "" if is_kind(spec, FileKind.YAML) else None, module=False)


def roles_of(cfg: Config, root: str) -> Roles:
    cards: dict[str, AgentConfig] = {}
    prompt_files: dict[str, tuple[str, ...] | None] = {}
    modules: dict[str, str] = {}
    prompts: dict[str, PromptSource] = {}
    for a in cfg.agents:
        if a.card:
            cards[rel(root, cfg.base, a.card)] = a
        if a.prompt:
            source = prompts[a.prompt] = _prompt_source(a.prompt, cfg, root)
            if source.module:
                modules[source.path] = source.key or ""
            else:
                if source.key is None:
                    prompt_files[source.path] = None  # a text file: read whole
                else:  # one file may hold several agents' prompts (`prompts.yaml#billing.system`)
                    held = prompt_files.get(source.path) or ()
                    prompt_files[source.path] = tuple(dict.fromkeys((*held, source.key)))
    return Roles(cards, prompt_files, modules, prompts)
