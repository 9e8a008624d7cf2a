"""The pygls server: it keeps the open documents, runs the linter over each one's project
(debounced on change, at once on open and save), publishes every open file's findings
from the newest run, and answers hover and code actions from it.

One run at a time, in a thread, so that requests are answered meanwhile; a run whose
project changed while it ran is not published (the change scheduled a newer one), so the
editor never shows findings older than what it already showed."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import ServerTextPosition

from refusal_lint import __version__
from refusal_lint.config import CONFIG_FILES
from refusal_lint.core.filekinds import SUFFIXES
from refusal_lint.server import actions, hover, lint, projects
from refusal_lint.server.diagnostics import diagnostics
from refusal_lint.server.positions import from_client, lines_of
from refusal_lint.server.projects import uri_key
from refusal_lint.static.cache import Memory

DEBOUNCE = 0.3  # seconds of quiet after a keystroke before a run (initializationOptions.debounce)


@dataclass
class Project:
    """One project's state: its newest published run, the run waiting to start, a
    counter of the edits that touched it (a run is current while it holds)."""

    root: str
    snapshot: lint.Snapshot | None = None
    waiting: asyncio.Task[None] | None = None
    edits: int = 0
    error_shown: str | None = None
    memory: Memory = field(default_factory=Memory)  # the cache, from one run to the next
    versions: dict[str, int | None] = field(default_factory=dict)  # uri_key -> the version `snapshot` saw


class RefusalLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "refusal-lint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental
        )
        self.debounce = DEBOUNCE
        self.projects: dict[str, Project] = {}
        self.roots: dict[str, str] = {}  # uri_key(document URI) -> its project's root
        self.running = asyncio.Lock()

    # ---- documents and projects ------------------------------------------------------------

    def folders(self) -> list[str]:
        out = [p for f in self.workspace.folders.values() if (p := to_fs_path(f.uri))]
        root = self.workspace.root_path
        return [*out, root] if root else out

    def project_of(self, uri: str) -> Project | None:
        """The project of a file URI (None for other schemes: an unsaved buffer has no agent)."""
        key = uri_key(uri)
        root = self.roots.get(key)
        if root is None:
            path = to_fs_path(uri) if uri.startswith("file:") else None
            if path is None:
                return None
            root = self.roots[key] = projects.root_of(path, self.folders())
        return self.projects.setdefault(root, Project(root))

    def document(self, uri: str) -> TextDocument | None:
        """The open document a URI names, however the client spelled it."""
        key = uri_key(uri)
        return next((d for d in self.workspace.text_documents.values() if uri_key(d.uri) == key), None)

    def open_documents(self, project: Project) -> list[TextDocument]:
        """The project's open documents; each keeps the URI its client opened it by."""
        docs = self.workspace.text_documents.values()
        return [d for d in docs if self.roots.get(uri_key(d.uri)) == project.root]

    def buffers(self, root: str) -> dict[str, str]:
        """The open files under `root`, by absolute path: these are read instead of the disk."""
        out = {}
        for d in self.workspace.text_documents.values():
            path = d.path and os.path.abspath(d.path)
            if path and projects.inside(path, root):
                out[path] = d.source
        return out

    # ---- runs ------------------------------------------------------------------------------

    def schedule(self, uri: str, delay: float) -> None:
        """A run of the document's project after `delay` seconds."""
        project = self.project_of(uri)
        if project is not None:
            self.schedule_project(project, delay)

    def reproject(self) -> None:
        """Workspace folders or config files came or went: each open file's project is found
        again, and every one runs."""
        self.roots.clear()
        for doc in list(self.workspace.text_documents.values()):
            self.schedule(doc.uri, 0)

    def files_changed(self, uris: list[str]) -> None:
        """Files changed on disk (a checkout, `--fix` in a terminal): every project holding
        one and showing findings runs again."""
        paths = [p for u in uris if u.startswith("file:") and (p := to_fs_path(u))]
        if any(os.path.basename(p) in CONFIG_FILES for p in paths):
            self.reproject()
            return
        for project in list(self.projects.values()):
            if self.open_documents(project) and any(projects.inside(p, project.root) for p in paths):
                self.schedule_project(project, 0)

    def schedule_project(self, project: Project, delay: float) -> None:
        """A later call before the run starts replaces it (the debounce); a run already
        going finishes, unpublished."""
        project.edits += 1
        if project.waiting is not None:
            project.waiting.cancel()
        project.waiting = asyncio.get_running_loop().create_task(self._run_after(project, delay))

    async def _run_after(self, project: Project, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        project.waiting = None  # from here on this run goes ahead
        async with self.running:
            edits = project.edits
            buffers = self.buffers(project.root)
            versions = {uri_key(d.uri): d.version for d in self.open_documents(project)}
            try:
                snap = await asyncio.to_thread(lint.lint, project.root, buffers, project.memory)
            except (
                Exception
            ) as exc:  # an internal fault: said once (the trace in the log), the server stays up
                import traceback

                self.window_log_message(
                    types.LogMessageParams(types.MessageType.Error, traceback.format_exc())
                )
                snap = lint.Snapshot(project.root, error=f"internal error: {type(exc).__name__}: {exc}")
        if edits == project.edits:  # else stale: a newer run is on its way
            self.publish(project, snap, versions)

    def publish(self, project: Project, snap: lint.Snapshot, versions: dict[str, int | None]) -> None:
        if snap.error is not None:
            if snap.error != project.error_shown:
                project.error_shown = snap.error
                self.window_show_message(
                    types.ShowMessageParams(types.MessageType.Error, f"refusal-lint: {snap.error}")
                )
            return  # the findings shown stay until a run succeeds
        project.error_shown = None
        project.snapshot, project.versions = snap, versions
        codec = self.workspace.position_codec
        for doc in self.open_documents(project):
            found = snap.findings_in(doc.path) if doc.path else ()
            self.text_document_publish_diagnostics(  # under the URI the client sent: it matches by it
                types.PublishDiagnosticsParams(
                    uri=doc.uri,
                    version=doc.version,
                    diagnostics=diagnostics(found, lines_of(doc.source), codec),
                )
            )

    def clear(self, uri: str) -> None:
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # ---- requests --------------------------------------------------------------------------

    def snapshot_for(self, uri: str, current: bool = False) -> tuple[lint.Snapshot, TextDocument] | None:
        """The newest run of the document's project, and the document; with `current`, only
        a run made on the text the document holds now (positions that still hold)."""
        project = self.project_of(uri)
        if project is None or project.snapshot is None:
            return None
        doc = self.document(uri)
        if doc is None or not doc.path or (current and project.versions.get(uri_key(uri), -1) != doc.version):
            return None
        return project.snapshot, doc

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        got = self.snapshot_for(params.text_document.uri)
        if got is None:
            return None
        snap, doc = got
        lines = lines_of(doc.source)
        line, col = from_client(lines, params.position, self.workspace.position_codec)
        if not 1 <= line <= len(lines):
            return None
        word = hover.word_at(lines[line - 1], col)
        if word is None:
            return None
        text = hover.hover_text(snap, doc.path, word[0])
        if text is None:
            return None
        codec = self.workspace.position_codec
        span = types.Range(
            codec.position_to_client_units(lines, _server_pos(line, word[1])),
            codec.position_to_client_units(lines, _server_pos(line, word[2])),
        )
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text), span)

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        # Edits are made at the findings' positions: none from a run on an older text (the
        # editor asks again once the newer run is published).
        got = self.snapshot_for(params.text_document.uri, current=True)
        if got is None:
            return None
        snap, doc = got
        rel = os.path.relpath(os.path.abspath(doc.path), snap.root).replace(os.sep, "/")
        selected = range(params.range.start.line + 1, params.range.end.line + 2)
        only = [str(k) for k in params.context.only] if params.context.only else None
        return actions.actions(
            params.text_document.uri,  # the edits' URI as this request spelled it
            rel,
            doc.source,
            snap.findings_in(doc.path),
            selected,
            only,
            self.workspace.position_codec,
        )


def _server_pos(line: int, col: int) -> ServerTextPosition:
    return ServerTextPosition(line - 1, col - 1)


def _watch_files() -> types.Registration:
    """Every file kind refusal-lint reads, and the config files."""
    suffixes = ",".join(s.lstrip(".") for s in SUFFIXES)
    globs = [f"**/*.{{{suffixes}}}", *(f"**/{name}" for name in CONFIG_FILES)]
    return types.Registration(
        id="refusal-lint-files",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(
            [types.FileSystemWatcher(glob_pattern=g) for g in globs]
        ),
    )


def make_server() -> RefusalLintServer:
    server = RefusalLintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: RefusalLintServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict) and isinstance(options.get("debounce"), int | float):
            ls.debounce = max(0.0, float(options["debounce"]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RefusalLintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RefusalLintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: RefusalLintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RefusalLintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.clear(params.text_document.uri)
        ls.schedule(params.text_document.uri, 0)  # its file on disk now counts for the others

    @server.feature(types.INITIALIZED)
    def initialized(ls: RefusalLintServer, params: types.InitializedParams) -> None:
        watched = (
            ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        )
        if watched and watched.dynamic_registration:
            ls.client_register_capability(types.RegistrationParams([_watch_files()]))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: RefusalLintServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.files_changed([c.uri for c in params.changes])

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: RefusalLintServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        ls.reproject()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: RefusalLintServer, params: types.HoverParams) -> types.Hover | None:
        return ls.hover(params)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL]),
    )
    def on_code_action(
        ls: RefusalLintServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        return ls.code_actions(params)

    return server


def serve() -> None:
    """LSP on stdin/stdout until the client says exit. The protocol gets copies of both;
    fd 0 then reads /dev/null and fd 1 writes to stderr. So a forked parser worker, which
    closes sys.stdin first thing, never waits on the lock the protocol's reader thread
    holds on it, and nothing printed by anyone else can corrupt the message stream."""
    protocol_in = os.fdopen(os.dup(0), "rb")
    protocol_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    # Parser workers are forked afresh for each run: with the extractor imported here once,
    # each inherits it instead of importing it again.
    import refusal_lint.static.extract.python.visitor  # noqa: F401

    make_server().start_io(protocol_in, protocol_out)
