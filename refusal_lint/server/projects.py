"""Which project a file belongs to: the tree one run checks (DESIGN §1's project root),
with the editor's workspace folder where no config file or git work tree says more."""

from __future__ import annotations

import os
from urllib.parse import unquote

from pygls.uris import to_fs_path

from refusal_lint import config
from refusal_lint.static.discover.roots import project_root


def uri_key(uri: str) -> str:
    """The one form the server knows a document URI by, whatever percent-encoding the
    client chose (`sp%20ace`, `%C3%A9`, VS Code on Windows's `file:///c%3A/...`, which pygls
    keeps its documents by unquoted): a file URI's path as pygls gives it (drive letter
    lower-cased, case-folded where the file system ignores case), another scheme's URI
    unquoted. Every lookup of a document, its project or its version goes through it;
    what is sent back to the client keeps the URI the client sent."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return os.path.normcase(path) if path else unquote(uri)


def inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def root_of(path: str, workspace_folders: list[str]) -> str:
    """The folder holding the config file, else the git work tree's top, else the
    innermost workspace folder holding the file (a prompt's own folder seldom holds its
    card), else what `check FILE` takes."""
    folder = os.path.dirname(os.path.abspath(path))
    hit = config.find(folder)
    found = hit[0] if hit else None
    cfg = (
        config.Config(source=found, base=os.path.dirname(os.path.abspath(found)))
        if found
        else config.Config()
    )
    root = project_root(path, cfg)
    if found is not None or os.path.exists(os.path.join(root, ".git")):
        return root  # the config file or the git work tree decided
    # Neither: every file of the workspace is one project (a card under .well-known/ and
    # its prompt beside it must not be two).
    holding = [f for f in workspace_folders if inside(folder, os.path.abspath(f))]
    return max(holding, key=len) if holding else root
