"""What the config says files are: configured cards, prompts and guard globs, by path."""

from __future__ import annotations

import os
from dataclasses import dataclass

from refusal_lint.config import AgentConfig, Config
from refusal_lint.filekinds import FileKind, is_kind


@dataclass(frozen=True)
class Roles:
    """What the config says files are: configured cards, prompts and guard globs (root-relative)."""

    cards: dict[str, AgentConfig]
    prompt_files: dict[str, str | None]  # path -> YAML key path ('' whole file) or None (text)
    prompt_modules: dict[str, str]  # module path -> constant name


def rel(root: str, base: str, path: str) -> str:
    return os.path.relpath(os.path.join(base, path), root).replace(os.sep, "/")


def prompt_source(spec: str, cfg: Config, root: str) -> tuple[str, str, str | None]:
    """A configured `prompt:`: ("file", path, YAML key path or None) or ("module", path, NAME)."""
    if "#" in spec:
        f, key = spec.split("#", 1)
        return "file", rel(root, cfg.base, f), key
    if ".py:" in spec:
        f, name = spec.rsplit(":", 1)
        return "module", rel(root, cfg.base, f), name
    return "file", rel(root, cfg.base, spec), "" if is_kind(spec, FileKind.YAML) else None


def roles_of(cfg: Config, root: str) -> Roles:
    cards: dict[str, AgentConfig] = {}
    prompt_files: dict[str, str | None] = {}
    modules: dict[str, str] = {}
    for a in cfg.agents:
        if a.card:
            cards[rel(root, cfg.base, a.card)] = a
        if a.prompt:
            kind, path, key = prompt_source(a.prompt, cfg, root)
            if kind == "module":
                modules[path] = key or ""
            else:
                prompt_files[path] = key
    return Roles(cards, prompt_files, modules)
