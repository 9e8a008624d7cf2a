"""One run of the pipeline over a project, the editor's buffers standing in for the disk."""

from __future__ import annotations

import io
import os
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from refusal_lint.core.errors import UsageError
from refusal_lint.core.filekinds import is_kind, kind_of
from refusal_lint.core.kinds import FileKind

if TYPE_CHECKING:
    from refusal_lint.core.model import Finding
    from refusal_lint.static.bind.agent import Agent
    from refusal_lint.static.cache import Memory


@dataclass(frozen=True)
class Snapshot:
    """What one run found, with paths made absolute (the editor speaks in file URIs)."""

    root: str
    findings: tuple[Finding, ...] = ()
    agents: tuple[Agent, ...] = ()
    error: str | None = None  # the run could not be made (a bad config): the one-line reason
    by_path: dict[str, tuple[Finding, ...]] = field(default_factory=dict)

    def absolute(self, rel: str) -> str:
        return os.path.normpath(os.path.join(self.root, rel))

    def findings_in(self, path: str) -> tuple[Finding, ...]:
        return self.by_path.get(os.path.normpath(path), ())


def encode(path: str, text: str) -> bytes:
    """A buffer's text as the bytes its file would hold: UTF-8, or for Python the encoding
    its coding cookie names (so that the run decodes it as it would the saved file)."""
    data = text.encode("utf-8", "surrogatepass")
    if not is_kind(path, FileKind.PYTHON):
        return data
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return text.encode(encoding)
    except (SyntaxError, LookupError, UnicodeEncodeError):
        return data  # the run reports what it makes of it, as it would on disk


def lint(root: str, buffers: Mapping[str, str], memory: Memory) -> Snapshot:
    """Every finding of the agents of the open files of the project at `root`; `buffers`
    (absolute path -> text) are those files' contents, read in place of the disk. The cache
    is `memory`, kept by the caller from run to run (the server writes no file): a file
    unchanged on disk is answered by its stats, a buffer by its content."""
    import dataclasses

    from refusal_lint.report import display
    from refusal_lint.static import pipeline
    from refusal_lint.static.configure import (
        configure,  # the same config and settings as `check ... --no-cache`
    )
    from refusal_lint.static.discover.contents import Overlay
    from refusal_lint.static.discover.roots import project_root

    try:
        _, cfg, settings = configure((root,), None, None, None, True, None)
        # The open files as PATH arguments: only their agents are checked (in a monorepo, a
        # keystroke costs that agent), when they name this project as the CLI would find it;
        # else the whole project (no config or git work tree: the workspace folder).
        files = sorted(p for p in buffers if kind_of(p) is not None)
        named = bool(files) and all(project_root(p, cfg) == root for p in files)
        targets = files if named else [root]
        overlay = Overlay({path: encode(path, text) for path, text in buffers.items()})
        result = pipeline.run(targets, cfg, dataclasses.replace(settings, contents=overlay, memory=memory))
    except UsageError as exc:
        return Snapshot(root, error=str(exc))
    # Paths stay the workspace's own, as the server sends them; a message's are unmarked.
    findings = display.relocate(result.findings, str)
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        by_path.setdefault(os.path.normpath(os.path.join(result.root, f.loc.path)), []).append(f)
    return Snapshot(
        result.root,
        tuple(findings),
        tuple(result.agents),
        by_path={p: tuple(fs) for p, fs in by_path.items()},
    )
