"""The language server end to end (DESIGN §11): a real LSP client (pytest-lsp) drives
`refusal-lint server` over stdio on a copy of an agent. Every wait is for a publish
notification whose content says it comes from the run expected, bounded in time; never
a sleep that hopes the server was quick enough."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from conftest import SURVEY_RULES, TESTDATA, Repo, snapshot
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from refusal_lint.codes import CODES
from refusal_lint.core.model import Finding, Loc
from refusal_lint.server.actions import text_edit
from refusal_lint.server.hover import word_at
from refusal_lint.server.positions import from_client, loc_range, position
from refusal_lint.server.suppress import insertion

WAIT = 30.0  # seconds any one wait may take before the test fails (a run takes well under 1)
PROMPT = "system_prompt.md"
CARD = "agent-card.json"
DRIFTED = "Segments can't be mixed in one table."
REASON = SURVEY_RULES["seg-mix"]
ODD_NAME = "my agent é"  # a folder name a file URI percent-encodes: `my%20agent%20%C3%A9`
Diagnostics = Sequence[types.Diagnostic]


class Client(LanguageClient):
    """pytest-lsp's client, woken on every publishDiagnostics."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published = asyncio.Event()
        self.versions: dict[str, int | None] = {}
        self.docs: dict[str, tuple[int, str]] = {}  # uri -> (version, text), as the editor holds them
        self.registrations: list[types.Registration] = []


def _on_publish(client: Client, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.versions[params.uri] = params.version
    client.published.set()


def _on_register(client: Client, params: types.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)


def _make_client() -> Client:
    client = Client(converter_factory=default_converter)
    features = {
        **DEFAULT_CLIENT_FEATURES,
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _on_publish,
        types.CLIENT_REGISTER_CAPABILITY: _on_register,
    }
    register_lsp_features(client, features)
    return client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "refusal_lint", "server"], client_factory=_make_client
)


@pytest.fixture
def agent(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A copy of testdata/prompt-rl203: its markdown prompt gives `seg-mix` another reason.
    Without a config or git, the project is the workspace folder, checked whole; in a git
    work tree the open files are the run's PATH arguments, as `check FILE...` takes them.
    "odd name": the workspace way, in a folder named ODD_NAME."""
    mode = getattr(request, "param", "workspace")
    root = tmp_path / (ODD_NAME if mode == "odd name" else "agent")
    shutil.copytree(TESTDATA / "prompt-rl203", root, ignore=shutil.ignore_patterns("expected.txt"))
    if mode == "git":
        (root / ".git").mkdir()  # what marks a work tree's top (DESIGN §1)
    return root


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: Client, agent: Path) -> AsyncIterator[None]:
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=agent.as_uri(),
            workspace_folders=[types.WorkspaceFolder(agent.as_uri(), "agent")],
        )
    )
    yield
    await lsp_client.shutdown_session()


# ---- the client's side of an editor ------------------------------------------------------


def open_doc(client: Client, path: Path, language: str = "markdown") -> str:
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8")
    client.docs[uri] = (1, text)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, text))
    )
    return uri


def _offset(text: str, pos: types.Position) -> int:
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[: pos.line]) + pos.character  # ASCII text: units = chars


def apply(text: str, edits: Sequence[types.TextEdit]) -> str:
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: _offset(text, e.range.start)] + e.new_text + text[_offset(text, e.range.end) :]
    return text


def edit_doc(client: Client, uri: str, edits: Sequence[types.TextEdit]) -> int:
    """Make the edits in the client's buffer and tell the server, as an editor does."""
    version, text = client.docs[uri]
    version += 1
    client.docs[uri] = (version, apply(text, edits))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version, uri),
            [types.TextDocumentContentChangePartial(range=e.range, text=e.new_text) for e in edits],
        )
    )
    return version


def replace(client: Client, uri: str, old: str, new: str) -> int:
    """Replace the one occurrence of `old` in the buffer."""
    text = client.docs[uri][1]
    assert text.count(old) == 1
    start = text.index(old)
    line = text.count("\n", 0, start)
    col = start - (text.rfind("\n", 0, start) + 1)
    rng = types.Range(types.Position(line, col), types.Position(line, col + len(old)))
    return edit_doc(client, uri, [types.TextEdit(rng, new)])


async def published(
    client: Client, uri: str, ok: Callable[[Diagnostics], bool], version: int | None = None
) -> Diagnostics:
    """The diagnostics of `uri` once a publish for it (for `version`, if given) satisfies `ok`."""
    async with asyncio.timeout(WAIT):
        while True:
            client.published.clear()
            got = client.diagnostics.get(uri)
            if got is not None and (version is None or client.versions.get(uri) == version) and ok(got):
                return got
            await client.published.wait()


def codes(diags: Diagnostics) -> list[str]:
    return sorted(str(d.code) for d in diags)


def has_rl203(diags: Diagnostics) -> bool:
    return codes(diags) == ["RL203"]


def clean(diags: Diagnostics) -> bool:
    return not diags


# ---- the tests ---------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("agent", ["workspace", "git"], indirect=True)
async def test_drifted_prompt_published_then_cleared_by_an_edit(client: Client, agent: Path) -> None:
    before = snapshot(agent)
    uri = open_doc(client, agent / PROMPT)
    (d,) = await published(client, uri, has_rl203, version=1)
    assert d.range.start == types.Position(3, 2)  # the `seg-mix` line, 0-based
    assert d.source == "refusal-lint"
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.code_description is not None and d.code_description.href == CODES["RL203"].url
    assert "Segmentation families cannot be crossed" in d.message
    version = replace(client, uri, DRIFTED, REASON)
    await published(client, uri, clean, version=version)
    assert snapshot(agent) == before  # the buffer changed, never a file
    assert not (agent / ".refusal_lint_cache").exists()  # nor the cache


@pytest.mark.asyncio
@pytest.mark.parametrize("agent", ["workspace", "git"], indirect=True)
async def test_a_card_edit_republishes_the_unchanged_prompt(client: Client, agent: Path) -> None:
    prompt = agent / PROMPT
    prompt.write_text(prompt.read_text(encoding="utf-8").replace(DRIFTED, REASON), encoding="utf-8")
    prompt_uri = open_doc(client, prompt)
    await published(client, prompt_uri, clean, version=1)
    card_uri = open_doc(client, agent / CARD, "json")
    await published(client, card_uri, clean, version=1)
    replace(client, card_uri, REASON, "Segment families never mix.")
    (d,) = await published(client, prompt_uri, has_rl203, version=1)  # the prompt was not touched
    assert "Segment families never mix." in d.message
    assert client.docs[prompt_uri][0] == 1


@pytest.mark.asyncio
async def test_a_burst_of_edits_ends_on_the_last_text(client: Client, agent: Path) -> None:
    """Keystrokes in a row: whatever the debounce merges, the diagnostics shown last are the
    last text's, never an older run's."""
    uri = open_doc(client, agent / PROMPT)
    await published(client, uri, has_rl203, version=1)
    replace(client, uri, DRIFTED, "Mixing is out.")
    replace(client, uri, "Mixing is out.", "Mixing is out!")
    last = replace(client, uri, "Mixing is out!", REASON)
    await published(client, uri, clean, version=last)
    version = replace(client, uri, REASON, "Never mixed.")
    (d,) = await published(client, uri, has_rl203, version=version)
    assert "Never mixed." in d.message


@pytest.mark.asyncio
async def test_hover_on_a_rule_id(client: Client, agent: Path) -> None:
    uri = open_doc(client, agent / PROMPT)
    await published(client, uri, has_rl203, version=1)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(3, 4))  # inside `seg-mix`
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert REASON in text
    assert "agent-card.json:10" in text  # the card's key
    assert "system_prompt.md:4" in text and "survey/prompt.py" in text  # the prompts that name it
    assert "survey/tools.py:6" in text  # the guard that fires it
    assert "RL203" in text
    assert hover.range == types.Range(types.Position(3, 2), types.Position(3, 9))
    nothing = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 2))  # "You"
    )
    assert nothing is None


async def _actions(client: Client, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    got = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), diag.range, types.CodeActionContext(diagnostics=[diag])
        )
    )
    return [a for a in got or [] if isinstance(a, types.CodeAction)]


@pytest.mark.asyncio
async def test_code_action_applies_the_rl203_fix(client: Client, agent: Path) -> None:
    before = (agent / PROMPT).read_bytes()
    uri = open_doc(client, agent / PROMPT)
    (d,) = await published(client, uri, has_rl203, version=1)
    (fix,) = [a for a in await _actions(client, uri, d) if a.title.startswith("Fix RL203")]
    assert fix.kind == types.CodeActionKind.QuickFix and fix.edit is not None and fix.edit.changes
    edits = fix.edit.changes[uri]
    fixed = apply(client.docs[uri][1], edits)
    assert f"- seg-mix: {REASON}\n" in fixed and DRIFTED not in fixed
    assert (agent / PROMPT).read_bytes() == before  # an edit for the editor, nothing written
    version = edit_doc(client, uri, edits)
    await published(client, uri, clean, version=version)


@pytest.mark.asyncio
async def test_fix_all_on_save_makes_every_fix_of_the_file(client: Client, agent: Path) -> None:
    prompt = agent / PROMPT
    text = prompt.read_text(encoding="utf-8").replace(
        "That demographic cut is not defined\n  for this study.", "No such cut."
    )
    prompt.write_text(text, encoding="utf-8")
    uri = open_doc(client, prompt)
    await published(client, uri, lambda ds: codes(ds) == ["RL203", "RL203"], version=1)
    got = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(0, 0), types.Position(0, 0)),  # what an editor sends on save
            types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll]),
        )
    )
    (fix_all,) = [a for a in got or [] if isinstance(a, types.CodeAction)]
    assert fix_all.kind == "source.fixAll.refusal-lint" and fix_all.edit and fix_all.edit.changes
    version = edit_doc(client, uri, fix_all.edit.changes[uri])
    await published(client, uri, clean, version=version)


@pytest.mark.asyncio
async def test_code_action_inserts_a_suppression(client: Client, agent: Path) -> None:
    uri = open_doc(client, agent / PROMPT)
    (d,) = await published(client, uri, has_rl203, version=1)
    (sup,) = [a for a in await _actions(client, uri, d) if a.title.startswith("Suppress RL203")]
    assert sup.edit is not None and sup.edit.changes
    edits = sup.edit.changes[uri]
    assert [e.new_text for e in edits] == [" <!-- refusal-lint: ignore[RL203] -->"]
    version = edit_doc(client, uri, edits)
    await published(client, uri, clean, version=version)  # silenced, and the comment is used (no RL003)


@pytest.mark.asyncio
async def test_guard_fix_in_python(client: Client, agent: Path) -> None:
    """RL303 in a Python buffer: the literal rewritten by the same planning as --fix."""
    tools = agent / "survey/tools.py"
    tools.write_text(
        tools.read_text(encoding="utf-8").replace(
            'refuse("seg-mix", detail="families crossed")', 'refuse("seg-mix", reason="No mixing.")'
        ),
        encoding="utf-8",
    )
    uri = open_doc(client, tools, "python")
    (d,) = await published(client, uri, lambda ds: codes(ds) == ["RL303"], version=1)
    (fix,) = [a for a in await _actions(client, uri, d) if a.title.startswith("Fix RL303")]
    assert fix.edit is not None and fix.edit.changes
    (edit,) = fix.edit.changes[uri]
    assert edit.range.start.line == edit.range.end.line == 5  # only the span that differs
    assert f'refuse("seg-mix", reason="{REASON}")' in apply(client.docs[uri][1], [edit])
    version = edit_doc(client, uri, fix.edit.changes[uri])
    await published(client, uri, clean, version=version)


@pytest.mark.asyncio
async def test_closing_clears_and_disk_counts_again(client: Client, agent: Path) -> None:
    uri = open_doc(client, agent / PROMPT)
    await published(client, uri, has_rl203, version=1)
    version = replace(client, uri, DRIFTED, REASON)
    await published(client, uri, clean, version=version)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    await published(client, uri, clean, version=None)
    # Reopened from disk (still drifted there): the finding is back.
    client.docs.pop(uri)
    open_doc(client, agent / PROMPT)
    await published(client, uri, has_rl203, version=1)


@pytest.mark.asyncio
@pytest.mark.parametrize("agent", ["odd name"], indirect=True)
async def test_a_folder_name_the_uri_percent_encodes(client: Client, agent: Path) -> None:
    """The client sends the URI percent-encoded, pygls keeps the document by it unquoted:
    the findings are still published, under the URI the client sent, and hover and the
    code actions answer for it."""
    uri = open_doc(client, agent / PROMPT)
    assert "/my%20agent%20%C3%A9/" in uri
    (d,) = await published(client, uri, has_rl203, version=1)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(3, 4))  # inside `seg-mix`
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert REASON in hover.contents.value
    (fix,) = [a for a in await _actions(client, uri, d) if a.title.startswith("Fix RL203")]
    assert fix.edit is not None and fix.edit.changes and list(fix.edit.changes) == [uri]
    version = edit_doc(client, uri, fix.edit.changes[uri])
    await published(client, uri, clean, version=version)


def test_without_pygls_the_server_command_says_what_to_install() -> None:
    code = "import sys; sys.modules['pygls'] = None; from refusal_lint.cli import main; main(['server'])"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.startswith("refusal-lint: error: server needs pygls (the `lsp` extra): pip install")
    assert len(done.stderr.splitlines()) == 1 and not done.stdout


def test_cli_start_does_not_import_pygls() -> None:
    code = "import sys, refusal_lint.cli; sys.exit('pygls' in sys.modules or 'lsprotocol' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False, timeout=60).returncode == 0


@pytest.mark.asyncio
@pytest.mark.parametrize("agent", ["workspace", "git"], indirect=True)
async def test_a_file_changed_on_disk_republishes(client: Client, agent: Path) -> None:
    """The card changed outside the editor (a checkout): the watched-files notification the
    server registered for brings the open prompt's RL203."""
    prompt = agent / PROMPT
    prompt.write_text(prompt.read_text(encoding="utf-8").replace(DRIFTED, REASON), encoding="utf-8")
    uri = open_doc(client, prompt)
    await published(client, uri, clean, version=1)
    assert [r.method for r in client.registrations] == [types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    card = agent / CARD
    card.write_text(card.read_text(encoding="utf-8").replace(REASON, "Never mix families."), encoding="utf-8")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(card.as_uri(), types.FileChangeType.Changed)])
    )
    (d,) = await published(client, uri, has_rl203, version=1)
    assert "Never mix families." in d.message


@pytest.mark.asyncio
async def test_a_new_config_file_is_taken_up(client: Client, agent: Path) -> None:
    uri = open_doc(client, agent / PROMPT)
    await published(client, uri, has_rl203, version=1)
    config = agent / ".refusal-lint.yaml"
    config.write_text("ignore: [RL203]\n", encoding="utf-8")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(config.as_uri(), types.FileChangeType.Created)])
    )
    await published(client, uri, clean, version=1)


@pytest.mark.asyncio
async def test_a_bad_config_is_one_message_and_the_server_stays_up(client: Client, agent: Path) -> None:
    (agent / ".refusal-lint.yaml").write_text("selekt: [RL2]\n", encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem((agent / PROMPT).as_uri(), "markdown", 1, (agent / PROMPT).read_text())
        )
    )
    async with asyncio.timeout(WAIT):
        shown = await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    assert shown.type == types.MessageType.Error
    assert "unknown key `selekt`" in shown.message and "\n" not in shown.message
    (agent / ".refusal-lint.yaml").write_text("select: [RL2]\n", encoding="utf-8")
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier((agent / PROMPT).as_uri()))
    )
    await published(client, (agent / PROMPT).as_uri(), has_rl203, version=1)


# ---- the parts, without a client ---------------------------------------------------------

CODEC = PositionCodec()  # UTF-16, the LSP default


@given(st.text(alphabet="ab\r\n😀é", max_size=12), st.text(alphabet="ab\r\n😀é", max_size=12))
def test_text_edit_turns_before_into_after(before: str, after: str) -> None:
    edit = text_edit(before, after, CODEC)
    doc = TextDocument("file:///x", before)
    start, end = (doc.offset_at_position(p) for p in (edit.range.start, edit.range.end))
    assert before[:start] + edit.new_text + before[end:] == after
    assert "\r\n" not in (before[start - 1 : start + 1] if start > 0 else "")  # never inside a CRLF


def test_positions_count_utf16_units() -> None:
    lines = ["😀 - seg-mix: x"]
    assert position(lines, 1, 5, CODEC) == types.Position(0, 5)  # the emoji is two UTF-16 units
    assert from_client(lines, types.Position(0, 5), CODEC) == (1, 5)
    whole = loc_range(Loc("p.md", 1, 5), lines, CODEC)
    assert whole.end == types.Position(0, 15)  # no end: to the end of the line's text


def _finding(path: str, line: int, code: str = "RL203", end_line: int = 0) -> Finding:
    return Finding(code, Loc(path, line, 1, end_line, 1 if end_line else 0), "m", "seg-mix")


@pytest.mark.parametrize(
    ("path", "text", "line", "want"),
    [
        ("p.md", "a\n- seg-mix: x\n", 2, (2, 13, " <!-- refusal-lint: ignore[RL203] -->")),
        ("p.j2", "- seg-mix: x\n", 1, (1, 13, " {# refusal-lint: ignore[RL203] #}")),
        ("p.xml", "<r>- seg-mix: x</r>\n", 1, (1, 20, " <!-- refusal-lint: ignore[RL203] -->")),
        ("a.yaml", "k: v\nprompt: |\n  - seg-mix: x\n", 3, (2, 10, "  # refusal-lint: ignore[RL203]")),
        ("a.yaml", "- seg-mix: x  # refusal-lint: ignore[RL202]\n", 1, (1, 43, ",RL203")),
        ("t.py", "x = f(  \n  'seg-mix')\n", 2, (2, 13, "  # refusal-lint: ignore[RL203]")),
        ("t.py", "x = 1  # noqa\n", 1, (1, 14, "  # refusal-lint: ignore[RL203]")),
        # Inside a triple-quoted prompt: where it ends (a comment there covers all its lines).
        ("t.py", 'P = """\n- seg-mix: x\n"""\n', 2, (3, 4, "  # refusal-lint: ignore[RL203]")),
        ("t.py", 'P = f"""{a}\n- seg-mix: x\n{b}"""  # why\n', 2, (3, 14, "  # refusal-lint: ignore[RL203]")),
    ],
)
def test_suppression_goes_where_it_counts(
    path: str, text: str, line: int, want: tuple[int, int, str]
) -> None:
    assert insertion(path, text, _finding(path, line)) == want


def test_no_suppression_where_no_comment_can_stand() -> None:
    prompt = 'P = """\n- seg-mix: x\n""" + """\nmore\n"""\n'
    assert insertion("t.py", prompt, _finding("t.py", 2)) is None  # where it ends, another begins
    assert insertion("card.json", "{}\n", _finding("card.json", 1)) is None  # JSON has no comments
    toml = 'system = """\n- seg-mix: x\n"""\n'
    assert insertion("prompts.toml", toml, _finding("prompts.toml", 2)) is None  # `#` comments, none of ours
    already = "- seg-mix: x <!-- refusal-lint: ignore -->\n"
    assert insertion("p.md", already, _finding("p.md", 1)) is None  # a bare ignore covers it


def test_a_comment_after_the_string_of_a_multiline_finding() -> None:
    text = 'refuse(\n    "seg-mix",\n    reason="x",\n)\n'
    assert insertion("t.py", text, _finding("t.py", 1, "RL303", end_line=4)) == (
        1,
        8,
        "  # refusal-lint: ignore[RL303]",
    )


def test_word_at() -> None:
    assert word_at("- seg-mix: x", 3) == ("seg-mix", 3, 10)
    assert word_at("- seg-mix: x", 10) == ("seg-mix", 3, 10)  # just after it
    assert word_at("- seg-mix: x", 11) is None


def test_the_cache_in_memory_never_answers_for_an_edited_buffer(agent: Path) -> None:
    """The server's runs share a cache in memory (no folder written): files unchanged on disk
    come from it, and a buffer is always read for what it holds now."""
    from refusal_lint.server.lint import lint
    from refusal_lint.static.cache import Memory

    memory, prompt, tools = Memory(), str(agent / PROMPT), str(agent / "survey/tools.py")
    drifted = (agent / PROMPT).read_text(encoding="utf-8")
    first = lint(str(agent), {prompt: drifted}, memory)
    assert [f.code for f in first.findings_in(prompt)] == ["RL203"] and memory.entries
    second = lint(str(agent), {prompt: drifted.replace(DRIFTED, REASON)}, memory)
    assert second.findings_in(prompt) == ()
    guard = (agent / "survey/tools.py").read_text(encoding="utf-8").replace('"seg-mix"', '"seg-mixx"')
    third = lint(str(agent), {prompt: drifted, tools: guard}, memory)  # the Python buffer too
    assert "RL302" in {f.code for f in third.findings_in(tools)}
    assert not (agent / ".refusal_lint_cache").exists()


def test_a_windows_uri_is_one_document_however_it_is_encoded(monkeypatch: pytest.MonkeyPatch) -> None:
    """VS Code on Windows encodes the drive's colon (`file:///c%3A/...`); pygls keeps the
    document by its unquoted URI. Every spelling of it finds the same document, project and
    version, and its findings are published under the URI the client opened it by."""
    from pygls.workspace import Workspace

    from refusal_lint.server import app, lint, projects

    sent = "file:///c%3A/Users/Me/My%20Agent%20%C3%A9/system_prompt.md"
    spellings = [
        sent,
        "file:///C:/Users/Me/My Agent é/system_prompt.md",
        "file:///c:/Users/Me/My%20Agent%20é/system_prompt.md",
    ]
    want = os.path.normcase("c:/Users/Me/My Agent é/system_prompt.md".replace("/", os.sep))
    assert {projects.uri_key(u) for u in spellings} == {want}
    assert projects.uri_key("untitled:Untitled%201") == "untitled:Untitled 1"

    workspace = Workspace(None)
    workspace.put_text_document(types.TextDocumentItem(sent, "markdown", 3, "- seg-mix: x\n"))
    monkeypatch.setattr(app.RefusalLintServer, "workspace", property(lambda _: workspace))
    monkeypatch.setattr(projects, "root_of", lambda path, folders: "c:/Users/Me/My Agent é")
    server = app.RefusalLintServer()
    sent_out: list[types.PublishDiagnosticsParams] = []
    monkeypatch.setattr(server, "text_document_publish_diagnostics", sent_out.append)
    project = server.project_of(spellings[1])
    assert project is not None and all(server.project_of(u) is project for u in spellings)
    assert all((doc := server.document(u)) is not None and doc.uri == sent for u in spellings)
    assert [d.uri for d in server.open_documents(project)] == [sent]
    server.publish(project, lint.Snapshot(project.root), {projects.uri_key(sent): 3})
    assert [(p.uri, p.version) for p in sent_out] == [(sent, 3)]
    assert all(server.snapshot_for(u, current=True) is not None for u in spellings)


def test_one_project_for_the_card_and_its_prompt(repo: Repo) -> None:
    """Without a config or git, the workspace folder is the project of every file in it (the
    card under .well-known/ and the prompt in agent/ are one agent); a git work tree's top
    or a config file's folder decides where there is one."""
    from refusal_lint.server.projects import root_of

    repo.agent()
    root = repo.root
    card, prompt = root / ".well-known/agent-card.json", root / "agent/system_prompt.md"
    assert {root_of(str(card), [str(root)]), root_of(str(prompt), [str(root)])} == {str(root)}
    (root / ".git").mkdir()
    assert root_of(str(prompt), []) == str(root)
    repo.write("agent/.refusal-lint.yaml", "select: [RL2]\n")
    assert root_of(str(prompt), [str(root)]) == str(root / "agent")
