"""Where a file's project is: the tree a run checks for it (DESIGN §1), found upward from
the file (the config file's folder, else the git work tree's top, else the agent around it,
else where its package imports from), and what the folder tests read of a folder (its card
at the A2A place, a module building one).
"""

from __future__ import annotations

import os

from refusal_lint.config import Config
from refusal_lint.core.filekinds import CARD_NAMES


def project_root(path: str, cfg: Config) -> str:
    """The project a file belongs to: the folder of the run's config file when the file is
    under it, else the top of the git work tree holding it, else the folder of the agent
    around it (its card at the A2A place), else the folder its package imports from (its
    own folder where it is in no package; the one holding `src/` in a src layout)."""
    folder = os.path.dirname(os.path.abspath(path))
    if cfg.source and under(folder, os.path.abspath(cfg.base)):
        return os.path.abspath(cfg.base)
    here = folder
    while True:
        if os.path.exists(os.path.join(here, ".git")):  # a folder, or a file in a worktree
            return here
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    # For a card under .well-known/, the agent's folder above it (as scoping.agent_root reads
    # a card's place); else the folder of the agent around the file (its card at the A2A
    # place above it: no partial agent), else the file's own folder. Not a module building
    # a card above it: a stray script in a folder above the project would claim the run.
    parts = folder.split(os.sep)
    if ".well-known" in parts:
        return os.sep.join(parts[: parts.index(".well-known")]) or os.sep
    here = folder
    while card_in(here) is None:
        parent = os.path.dirname(here)
        if parent == here:
            top = _import_root(folder)  # in a src layout, the folder holding src/
            return os.path.dirname(top) if os.path.basename(top) == "src" else top
        here = parent
    return here


def _import_root(folder: str) -> str:
    """The folder a module of `folder` imports from: above its top package (`app/tools/`
    of `app/`, whose modules import `from app.policy import ...`); a folder that is no
    package, itself."""
    here = folder
    while os.path.isfile(os.path.join(here, "__init__.py")) and os.path.dirname(here) != here:
        here = os.path.dirname(here)
    return here


def card_in(place: str) -> str | None:
    """The card at the A2A place of a folder (`.well-known/agent-card.json`, `agent.json`, ...)."""
    for sub in (".well-known", ""):
        for name in sorted(CARD_NAMES):
            if os.path.isfile(candidate := os.path.join(place, sub, name)):
                return candidate
    return None


def module_prefix(root: str) -> str:
    """Where a tree checked on its own stands (`home/u/repo/py/agents/foo`): imports are
    matched under it (bind/modules.py), so an import spelled from any folder above finds
    the file it names, as Python run from there would: from the project's top (a folder
    run inside a git work tree, `from agents.foo.agent import URI`), from above a project
    that is a package (`from shop.rules import RULES` in `shop/__main__.py`), or from above
    namespace packages with no `__init__.py` (`from agents.chat.policy import URI` where
    `agents/chat/` is the folder checked)."""
    return os.path.abspath(root).replace(os.sep, "/").strip("/")


def project_of(path: str, cfg: Config) -> str:
    """`project_root` of a file, or of a folder (as of a file in it)."""
    return project_root(os.path.join(path, "_") if os.path.isdir(path) else path, cfg)


def own_name(path: str, cfg: Config) -> str:
    """A file given through a symlink (a linked folder, a link to a file of the tree) by the
    name the walk reads it under, its target's, where that is in the same project."""
    top = project_of(path, cfg)
    real, real_top = os.path.realpath(path), os.path.realpath(top)
    if real == os.path.abspath(path) or not under(real, real_top):
        return path
    return os.path.join(top, os.path.relpath(real, real_top))


# How much of a module the folder tests read: past 1 MiB, a module is no one's hand-written code.
HEAD = 1 << 20


def python_card_in(place: str) -> bool:
    """May a module of the folder build a card?"""
    try:
        names = sorted(n for n in os.listdir(place) if n.endswith(".py"))
    except OSError:
        return False
    return any(builds_card(head(os.path.join(place, name))) for name in names)


def builds_card(text: bytes) -> bool:
    """May a module's text build a card: it names the extension class or URI?"""
    from refusal_lint.static.extract import vocab

    return vocab.EXTENSION_CLASS.encode() in text or b"/ext/refusals/" in text


def head(path: str) -> bytes:
    """A module's first `HEAD` bytes (none where it cannot be read)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(HEAD)
    except OSError:
        return b""


def under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
