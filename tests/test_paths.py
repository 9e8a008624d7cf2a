"""Paths as users run the tool (DESIGN §1, §4): reported relative to the current folder in
every format, PATH arguments that are files, and findings that do not depend on where the
run starts."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from conftest import TESTDATA, URI, Repo, fixture_repo, run_cli
from hypothesis import given
from hypothesis import strategies as st

Found = list[tuple[str, int, int, str, str | None]]


def _json(cwd: Path, *args: str) -> dict[str, Any]:
    result = run_cli("check", *args, "--no-cache", "--format", "json", cwd=cwd)
    assert result.exit_code in (0, 1), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _found(cwd: Path, *args: str) -> Found:
    """(absolute path, line, column, code, rule id) of each finding, in that order (a report
    sorts by the paths it shows, which depend on `cwd`)."""
    return sorted(
        (str((cwd / f["path"]).resolve()), f["line"], f["column"], f["code"], f["rule_id"])
        for f in _json(cwd, *args)["findings"]
    )


# ---- relative to the current folder, in every format -------------------------------------------


def _paths(fmt: str, out: str) -> list[str]:
    """The file paths a report in `fmt` names."""
    if fmt == "text":
        return [m[1] for m in re.finditer(r"^([^\s:]+):\d+:\d+: RL", out, re.M)]
    if fmt == "json":
        return [f["path"] for f in json.loads(out)["findings"]]
    if fmt == "github":
        return re.findall(r"file=([^,]+),", out)
    if fmt == "azure":
        return re.findall(r"sourcepath=([^;]+);", out)
    if fmt == "gitlab":
        return [i["location"]["path"] for i in json.loads(out)]
    if fmt == "rdjson":
        return [d["location"]["path"] for d in json.loads(out)["diagnostics"]]
    if fmt == "markdown":
        return re.findall(r"^\| `([^`:]+):\d+:\d+` \|", out, re.M)
    if fmt == "junit":
        return re.findall(r'file="([^"]+)"', out)
    assert fmt == "sarif"
    [run] = json.loads(out)["runs"]
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    out_paths = []
    for r in run["results"]:
        art = r["locations"][0]["physicalLocation"]["artifactLocation"]
        assert art["uriBaseId"] == "%SRCROOT%"
        out_paths.append(unquote(urlparse(base + art["uri"]).path))
    return out_paths


@pytest.mark.parametrize(
    "fmt", ["text", "json", "github", "azure", "gitlab", "rdjson", "junit", "sarif", "markdown"]
)
def test_every_format_names_files_that_exist_from_a_parent_folder(tmp_path: Path, fmt: str) -> None:
    shutil.copytree(TESTDATA / "py-rl302", tmp_path / "sub" / "agent", ignore=shutil.ignore_patterns("*.txt"))
    result = run_cli("check", "sub/agent", "--no-cache", "--no-color", "--format", fmt, cwd=tmp_path)
    assert result.exit_code == 1, result.output
    paths = _paths(fmt, result.stdout)
    assert len(paths) >= 3
    for p in paths:
        assert (tmp_path / p).is_file(), (fmt, p)
    if fmt != "sarif":
        assert {p.split("/")[0] for p in paths} == {"sub"}


def test_paths_outside_the_current_folder_are_absolute(tmp_path: Path) -> None:
    shutil.copytree(TESTDATA / "py-rl302", tmp_path / "agent", ignore=shutil.ignore_patterns("*.txt"))
    (tmp_path / "elsewhere").mkdir()
    data = _json(tmp_path / "elsewhere", str(tmp_path / "agent"))
    assert {f["path"] for f in data["findings"]} == {
        (tmp_path / "agent" / "agent-card.json").as_posix(),
        (tmp_path / "agent" / "survey" / "tools.py").as_posix(),
    }
    assert data["agents"][0]["card"]["path"] == (tmp_path / "agent" / "agent-card.json").as_posix()


def test_findings_are_sorted_by_the_paths_shown(tmp_path: Path) -> None:
    """From a subfolder, the findings of a file outside it (shown absolute) sort by that
    path, not by the one the run's root gives it (`z/` after `a/`)."""
    shutil.copytree(TESTDATA / "py-rl302", tmp_path / "agent", ignore=shutil.ignore_patterns("*.txt"))
    (tmp_path / "agent" / "aa").mkdir()
    (tmp_path / "agent" / "survey" / "tools.py").rename(tmp_path / "agent" / "aa" / "tools.py")
    (tmp_path / "agent" / "z.md").write_text("You refuse these:\n- bogus-rule: Something else.\n")
    data = _json(tmp_path / "agent" / "aa")
    paths = [f["path"] for f in data["findings"]]
    assert paths == sorted(paths)
    assert paths[0].startswith("/") and paths[-1] == "tools.py"


def test_matrix_paths_are_relative_to_the_current_folder(tmp_path: Path) -> None:
    shutil.copytree(TESTDATA / "py-rl302", tmp_path / "sub" / "agent", ignore=shutil.ignore_patterns("*.txt"))
    result = run_cli("matrix", "sub/agent", "--no-cache", "--format", "json", cwd=tmp_path)
    [agent] = json.loads(result.stdout)["agents"]
    card = agent["rules"][0]["card"][0]["path"]
    assert (tmp_path / card).is_file() and card.startswith("sub/agent/")


@pytest.mark.parametrize(
    ("cwd", "arg", "folder"),
    [
        ("", ".", "svc/agent/"),
        ("", "svc", "svc/agent/"),
        ("svc", "agent", "agent/"),
        ("svc/agent", ".", "./"),
        ("svc/agent/survey_agent", "..", "{tmp}/svc/agent/"),
    ],
)
def test_a_folder_a_message_names_is_shown_as_the_paths_are(
    tmp_path: Path, cwd: str, arg: str, folder: str
) -> None:
    """RL200 names the agent's folder from the current folder, as the finding's own path is
    shown: not from the folder the run started at (`check svc` said `agent/`)."""
    agent = tmp_path / "svc" / "agent"
    shutil.copytree(TESTDATA / "survey-agent", agent, ignore=shutil.ignore_patterns("*.txt", "*.md"))
    [found] = _json(tmp_path / cwd, arg)["findings"]
    assert found["code"] == "RL200"
    assert (tmp_path / cwd / found["path"]).is_file()
    assert f"under `{folder.format(tmp=tmp_path.as_posix())}`" in found["message"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_applies_with_git_apply_from_a_parent_folder(tmp_path: Path) -> None:
    shutil.copytree(TESTDATA / "py-rl303", tmp_path / "sub" / "agent", ignore=shutil.ignore_patterns("*.txt"))
    diff = run_cli("check", "sub/agent", "--diff", "--no-cache", cwd=tmp_path)
    assert diff.exit_code == 1 and diff.stdout.startswith("--- a/sub/agent/")
    patch = tmp_path / "fix.patch"
    patch.write_text(diff.stdout)
    subprocess.run(["git", "apply", str(patch)], cwd=tmp_path, check=True, capture_output=True)
    after = _json(tmp_path, "sub/agent")
    assert "RL303" not in {f["code"] for f in after["findings"]}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_from_a_subfolder_of_a_file_outside_it_names_paths_from_the_root(tmp_path: Path) -> None:
    """`cd survey_agent && check --diff tools.py` with the drift in `prompts/` above: no tool
    applies `../prompts/...` (git apply and patch refuse it) and an absolute path was no
    patch at all; the paths are the run's root's, and a note says to apply it there."""
    root = tmp_path / "agent"
    shutil.copytree(TESTDATA / "survey-agent", root, ignore=shutil.ignore_patterns("*.txt"))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    prompt = root / "prompts" / "system_prompt.md"
    prompt.write_text(prompt.read_text().replace("ask for one family per cut.", "ask for one family."))
    diff = run_cli("check", "tools.py", "--diff", "--no-cache", cwd=root / "survey_agent")
    assert diff.exit_code == 1 and diff.stdout.startswith("--- a/prompts/system_prompt.md\n")
    assert "apply it there" in diff.stderr and str(root) in diff.stderr
    (tmp_path / "fix.patch").write_text(diff.stdout)
    subprocess.run(["git", "apply", str(tmp_path / "fix.patch")], cwd=root, check=True, capture_output=True)
    assert "ask for one family per cut." in prompt.read_text()


# ---- PATH arguments that are files ----------------------------------------------------------------


# The survey agent's card built in code, as an a2a-sdk agent's server module builds it.
PY_CARD = """
from a2a.types import AgentCapabilities, AgentCard, AgentExtension

RULES = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
}
CARD = AgentCard(
    name="Survey Analyst",
    capabilities=AgentCapabilities(
        extensions=[
            AgentExtension(uri="https://standards.upperhandai.com/ext/refusals/v1", params=RULES)
        ]
    ),
)
"""


def _git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, capture_output=True)


def _drifted_agent(repo: Repo, at: str = "") -> None:
    """The survey agent under `at`, its prompt's seg-mix reason drifted (RL203) and a guard
    firing an id the card lacks (RL302)."""
    prefix = f"{at}/" if at else ""
    repo.card(rel=f"{prefix}.well-known/agent-card.json")
    repo.prompt(rel=f"{prefix}agent/system_prompt.md")
    repo.tools(ids=("seg-mix", "invalid-cuts"), rel=f"{prefix}agent/tools.py")
    prompt = repo.root / prefix / "agent" / "system_prompt.md"
    prompt.write_text(prompt.read_text().replace("ask for one family", "ask for two families"))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_file_names_its_agent_and_gives_the_findings_of_the_folder(repo: Repo) -> None:
    _drifted_agent(repo)
    _git_init(repo.root)
    folder = _found(repo.root, ".")
    assert {code for *_, code, _ in folder} >= {"RL203", "RL302"}
    card = ".well-known/agent-card.json"
    for args in (
        [card],
        ["agent/system_prompt.md"],
        ["agent/tools.py"],
        [card, "agent/tools.py"],
        ["agent/system_prompt.md", "agent/tools.py", card],
    ):
        assert _found(repo.root, *args) == folder, args
    # From inside a sub-folder, and through an absolute path: the same findings.
    assert _found(repo.root / "agent", "system_prompt.md") == folder
    assert _found(repo.root / "agent", str(repo.root / card)) == folder


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_documentation_names_no_agent_even_a_lone_one(repo: Repo) -> None:
    """A docs-only commit (README, docs/, CHANGELOG) checks nothing, though the lone agent's
    scope is the whole tree: no fact can come from documentation. A text file that may hold
    a prompt by its content still names the agent."""
    _drifted_agent(repo)
    repo.write("README.md", "# Survey analyst\n\nRefuses seg-mix and invalid-cut requests.\n")
    repo.write("docs/rules.md", "- seg-mix: Segmentation families cannot be crossed.\n")
    repo.write("CHANGELOG.md", "## 1.1\n\n- renamed invalid-cuts\n")
    repo.write("agent/notes.txt", "Operator notes.\n")
    _git_init(repo.root)
    folder = _found(repo.root, ".")
    assert folder
    for doc in ("README.md", "docs/rules.md", "CHANGELOG.md"):
        assert _found(repo.root, doc) == [], doc
        assert _found(repo.root, doc, "agent/tools.py") == folder, doc
    assert _found(repo.root, "agent/notes.txt") == folder


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_file_the_walk_leaves_out_names_no_agent(repo: Repo) -> None:
    """pre-commit passes every staged file, the ones `exclude` or a `.gitignore` leaves out
    too: like a folder run, such a file gives nothing, under `--git-index` as on the disk.
    A file given beside it still names its agent; so does a hard link's second name."""
    _drifted_agent(repo)
    repo.write("pyproject.toml", '[tool.refusal-lint]\nexclude = ["tests/**"]\n')
    repo.write("tests/test_tools.py", "def test_crosstab():\n    assert True\n")
    repo.write(".gitignore", "build/\n")
    repo.write("build/lib/agent/tools.py", (repo.root / "agent" / "tools.py").read_text())
    _git_init(repo.root)
    subprocess.run(["git", "add", "-A"], cwd=repo.root, check=True, capture_output=True)
    folder = _found(repo.root, ".")
    assert folder
    for excluded in ("tests/test_tools.py", "build/lib/agent/tools.py"):
        assert _found(repo.root, excluded) == [], excluded
        assert _found(repo.root, "--git-index", excluded) == [], excluded
        assert _found(repo.root, excluded, "agent/tools.py") == folder, excluded
    os.link(repo.root / "agent" / "system_prompt.md", repo.root / "agent" / "prompt_copy.md")
    linked = _found(repo.root, ".")
    for name in ("agent/prompt_copy.md", "agent/system_prompt.md"):  # one of them is walked
        assert _found(repo.root, name) == linked, name


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize(
    "broken",
    [
        pytest.param(lambda t: t.replace('"required": false,', '"required": false,,'), id="card-syntax"),
        pytest.param(lambda t: t.replace("ext/refusals/v1", "ext/citations/v1"), id="extension-removed"),
    ],
)
def test_a_commit_that_breaks_the_card_fails_as_the_folder_run_does(
    repo: Repo, broken: Callable[[str], str]
) -> None:
    """The card given alone (a pre-commit hook's one changed file): a finding standing in it
    (RL002), and with no agent left the tree's own (RL001), as the folder run gives them."""
    repo.card()
    repo.prompt(rel="agent/system_prompt.md")
    repo.tools()
    card = repo.root / ".well-known" / "agent-card.json"
    card.write_text(broken(card.read_text()))
    _git_init(repo.root)
    folder = _found(repo.root, ".")
    assert "RL001" in {code for *_, code, _ in folder}
    assert _found(repo.root, ".well-known/agent-card.json") == folder


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_folder_inside_an_agent_names_it_as_its_files_do(repo: Repo) -> None:
    """`check agent/` (its guards and prompt, the card above), `check .well-known`, and a
    run started inside the agent: the agent's findings, never a partial agent's RL001,
    RL200 or RL301."""
    _drifted_agent(repo)
    _git_init(repo.root)
    folder = _found(repo.root, ".")
    assert {code for *_, code, _ in folder} >= {"RL203", "RL302"}
    assert _found(repo.root, "agent") == folder
    assert _found(repo.root, ".well-known") == folder
    assert _found(repo.root / "agent", ".") == folder


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_folder_below_a_card_built_in_python_names_that_agent(repo: Repo) -> None:
    """`cd app/tools && refusal-lint check .` where `app/card.py` builds the card (no config):
    a card module in a folder above counts as a card at the A2A place does, so the folder
    is no partial agent (RL001 on its guards; "nothing to check" from the prompts' folder)."""
    repo.write("app/card.py", PY_CARD)
    repo.put("app/__init__.py", "")
    prompt = repo.prompt(rel="app/prompts/system_prompt.md")
    prompt.write_text(prompt.read_text().replace("ask for one family", "ask for two families"))
    repo.tools(ids=("seg-mix", "invalid-cuts"), rel="app/tools/guards.py")
    _git_init(repo.root)
    top = _found(repo.root, ".")
    assert {code for *_, code, _ in top} == {"RL203", "RL301", "RL302"}
    assert _found(repo.root / "app" / "tools", ".") == top
    assert _found(repo.root / "app" / "prompts", ".") == top


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_folder_holding_its_card_imports_from_the_projects_top(repo: Repo) -> None:
    """`check py/agents/foo` (or a run started there) where `__main__.py` builds the card
    from `agents.foo.agent`, an import spelled from `py/` (the A2A samples' layout): the
    folder's modules are matched under their place in the project, so the card is found as
    a run of the whole project finds it (it was RL001 on every guard)."""
    rules = PY_CARD.split("CARD = ")[0].replace(
        "from a2a.types import AgentCapabilities, AgentCard, AgentExtension\n", ""
    )
    repo.write(
        "py/agents/foo/agent.py", f'URI = "https://standards.upperhandai.com/ext/refusals/v1"\n{rules}'
    )
    repo.write(
        "py/agents/foo/__main__.py",
        "from a2a.types import AgentExtension\nfrom agents.foo.agent import RULES, URI\n\n"
        "EXT = AgentExtension(uri=URI, params=RULES)\n",
    )
    repo.prompt(rel="py/agents/foo/system_prompt.md")
    repo.tools(ids=("seg-mix", "invalid-cuts"), rel="py/agents/foo/tools.py")
    _git_init(repo.root)
    top = _found(repo.root, ".")
    assert {code for *_, code, _ in top} == {"RL301", "RL302"}
    assert _found(repo.root, "py/agents/foo") == top
    assert _found(repo.root / "py" / "agents" / "foo", ".") == top
    assert _found(repo.root, "py/agents/foo/tools.py") == top


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_folder_inside_an_agent_names_an_agent_nested_in_it_too(repo: Repo) -> None:
    """`check sub/` under the root agent, `sub/kb/` holding an agent of its own: the files
    under the folder name their agents, the nested one included, not only the card above."""
    _drifted_agent(repo)
    _drifted_agent(repo, "sub/kb")
    kb_card = repo.root / "sub/kb/.well-known/agent-card.json"
    # Another agent, not a second card of the same one: its own name and rules.
    kb_card.write_text(
        kb_card.read_text()
        .replace('"Survey Analyst"', '"Knowledge Base"')
        .replace("Segmentation families", "Segment families")
    )
    _git_init(repo.root)
    nested = _found(repo.root, "sub/kb")
    assert {code for *_, code, _ in nested} >= {"RL203", "RL302"}
    assert all("/sub/kb/" in path for path, *_ in nested)
    assert _found(repo.root, "sub") == nested


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize(
    "card",
    [
        pytest.param("public/.well-known/agent-card.json", id="card-beside-the-folder"),
        pytest.param("server/__main__.py", id="card-built-in-another-folder"),
    ],
)
def test_a_folder_inside_the_config_files_project_names_the_agents_of_its_files(
    repo: Repo, card: str
) -> None:
    """`check src/` (a CI step's path) where the card stands outside the folder, in the
    project the config file marks: the files under it name their agent as each would given
    alone, so the run is no partial agent (RL001 on every guard) and gives the project's
    findings for that agent, from wherever the run starts."""
    if card.endswith(".py"):
        repo.write(card, PY_CARD)
    else:
        repo.card(rel=card)
    repo.prompt(rel="src/agent/system_prompt.md")
    repo.tools(ids=("seg-mix", "invalid-cuts"), rel="src/agent/tools.py")
    repo.write("refusal-lint.yaml", "exclude: []\n")
    project = _found(repo.root, ".")
    assert {(code, rule) for *_, code, rule in project} == {
        ("RL301", "invalid-cut"),
        ("RL302", "invalid-cuts"),
    }
    assert _found(repo.root, "src") == project
    assert _found(repo.root, "src/agent") == project
    assert _found(repo.root / "src", ".") == project


def _scanned(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The Python files the runs from now on hand to the workers to scan, by path."""
    from refusal_lint.static.schedule import Extraction

    scanned: list[str] = []
    real = Extraction.scan

    def spy(self: Extraction, entries: list[Any], context: str, needles: tuple[bytes, ...]) -> None:
        scanned.extend(e.rel for e in entries)
        real(self, entries, context, needles)

    monkeypatch.setattr(Extraction, "scan", spy)
    return scanned


def _monorepo(repo: Repo) -> None:
    _drifted_agent(repo, "agents/survey")
    _drifted_agent(repo, "agents/media")
    repo.write("docs/notes.md", "Nothing here belongs to an agent.\n")
    _git_init(repo.root)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_a_monorepo_a_file_reports_its_own_agent_only(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    _monorepo(repo)
    folder = _found(repo.root, "agents/survey")
    assert {code for *_, code, _ in folder} >= {"RL203", "RL302"}
    # A changed card reports the drift that stands in the unchanged prompt.
    card = "agents/survey/.well-known/agent-card.json"
    assert _found(repo.root, card) == folder
    assert _found(repo.root, card, "agents/survey/agent/tools.py") == folder  # once, not twice
    both = _found(repo.root, card, "agents/media/agent/tools.py")
    assert both == sorted(folder + _found(repo.root, "agents/media"), key=lambda f: (f[0], f[1], f[2], f[3]))
    assert _found(repo.root, "docs/notes.md") == []  # a file in no agent gives nothing
    assert _found(repo.root, "docs") == []  # and so does a folder
    repo.write("shared/cuts.py", 'from agent.tools import Refusal\n\nraise Refusal("seg-mix")\n')
    assert {code for *_, code, _ in _found(repo.root, ".")} >= {"RL004"}
    # A finding standing in the given file is its own: RL004 on a file no agent claims.
    assert [(code, path) for path, _, _, code, _ in _found(repo.root, "shared/cuts.py")] == [
        ("RL004", str((repo.root / "shared/cuts.py").resolve()))
    ]
    agents = _json(repo.root, card)["agents"]
    assert [a["card"]["path"] for a in agents] == [card]

    # Only the owning agent's Python files are scanned, and those no agent's root holds (a
    # shared helper there may serve it); never the other agent's.
    scanned = _scanned(monkeypatch)
    _found(repo.root, "agents/survey/agent/tools.py")
    assert scanned == ["agents/survey/agent/tools.py", "shared/cuts.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_shared_helper_given_alone_names_every_agent_it_serves(tmp_path: Path) -> None:
    """A commit of only `shared/refusals.py` (pre-commit passes that one name), the helper
    sending the refusal as a JSON-RPC error: the findings of every agent whose files call
    it, as the whole repository's run gives them (it gave nothing: the helper is no agent's
    own file)."""
    root = tmp_path / "repo"
    shutil.copytree(fixture_repo("monorepo-shared-helper-rl305"), root)
    _git_init(root)
    top = _found(root, ".")
    assert sorted(code for *_, code, _ in top) == ["RL305"] * 3
    assert _found(root, "shared/refusals.py") == top
    assert _found(root, "agents/survey/survey_agent/weights.py") == [f for f in top if "survey" in f[0]]


def _agents_with_guards(root: Path, guards: dict[str, str]) -> None:
    """An agent folder for each name: its card (rule `NAME-rule`) at `agent.json`, a prompt
    stating that rule, and `tools.py` holding the guard source given."""
    for name, source in guards.items():
        card = {
            "name": name,
            "capabilities": {"extensions": [{"uri": URI, "params": {f"{name}-rule": "No."}}]},
        }
        (root / name).mkdir()
        (root / name / "agent.json").write_text(json.dumps(card))
        (root / name / "prompt.md").write_text(f"Refuse these:\n- {name}-rule: No.\n")
        (root / name / "tools.py").write_text(source)


_HELPER = """def refuse_turn(ctx, rule: str, *, reason: str) -> dict[str, str]:
    return {"rule": rule, "reason": reason, "detail": str(ctx)}
"""


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_folder_whose_code_imports_a_module_beside_it_is_checked_in_its_project(tmp_path: Path) -> None:
    """`check a` (or a run started in `a/`), each agent with its card in its folder, their
    guards calling `common/refusals.py` beside them with the id second: the helper is read
    as a run of the project reads it (the folder alone took `ctx` for the id: a false
    RL301 and a lost RL302)."""
    _agents_with_guards(
        tmp_path,
        {
            name: "from common.refusals import refuse_turn\n\n\ndef tool(ctx):\n"
            f"    return refuse_turn(ctx, {fired!r}, reason='No.')\n"
            for name, fired in (("a", "a-rule"), ("b", "b-rulle"))
        },
    )
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "refusals.py").write_text(_HELPER)
    _git_init(tmp_path)
    top = _found(tmp_path, ".")
    assert sorted((code, rule) for *_, code, rule in top) == [("RL301", "b-rule"), ("RL302", "b-rulle")]
    assert _found(tmp_path, "a") == []
    assert _found(tmp_path / "a", ".") == []
    assert _found(tmp_path, "b") == top
    assert _found(tmp_path / "b", ".") == top


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_module_defining_a_guard_callable_names_the_agents_calling_it(tmp_path: Path) -> None:
    """A commit of only `common/refusals.py` (which defines `refuse`) or `common/errors.py`
    (which defines `Refusal`): the findings of the agents whose guards call them, as the
    whole repository's run gives them (it gave nothing: neither file holds a fact)."""
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "refusals.py").write_text(
        "def refuse(rule, reason=None):\n    raise RuntimeError(rule)\n"
    )
    (tmp_path / "common" / "errors.py").write_text(
        "class Refusal(Exception):\n"
        "    def __init__(self, rule, reason=None):\n"
        "        super().__init__(rule)\n"
    )
    guards = {
        "a": "from common.refusals import refuse\n\n\ndef tool():\n    refuse('a-rulle')\n",
        "b": "from common.errors import Refusal\n\n\ndef tool():\n"
        "    raise Refusal('b-rule', reason='Nope.')\n",
    }
    _agents_with_guards(tmp_path, guards)
    _git_init(tmp_path)
    top = _found(tmp_path, ".")
    assert sorted((code, rule) for *_, code, rule in top) == [
        ("RL301", "a-rule"),
        ("RL302", "a-rulle"),
        ("RL303", "b-rule"),
    ]
    assert _found(tmp_path, "common/refusals.py") == [f for f in top if f[4] != "b-rule"]
    assert _found(tmp_path, "common/errors.py") == [f for f in top if f[4] == "b-rule"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_folder_of_shared_helpers_names_the_agents_calling_them(tmp_path: Path) -> None:
    """`check common` (or a run started there), `common/` holding the helper every agent's
    guards call and no card: the findings of those agents, as a file run of the helper and
    the whole repository give them (alone, the folder passed: its helper fires nothing)."""
    shutil.copytree(fixture_repo("monorepo-shared-helper-rl305"), tmp_path / "repo")
    root = tmp_path / "repo"
    _git_init(root)
    top = _found(root, ".")
    assert len(top) == 3
    assert _found(root, "shared") == top
    assert _found(root / "shared", ".") == top


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_folder_of_a_repository_with_no_card_reports_its_own_files(tmp_path: Path) -> None:
    """No card anywhere: `check src` gives the RL001 of the guards under `src/`, not those of
    the rest of the repository, which a run of the project reads."""
    for folder, rule in (("src", "x-rule"), ("other", "y-rule")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "tools.py").write_text(
            f"from x import refuse\n\n\ndef t():\n    return refuse({rule!r})\n"
        )
    _git_init(tmp_path)
    assert len(_found(tmp_path, ".")) == 2
    only = [(Path(p).parent.name, code, rule) for p, _, _, code, rule in _found(tmp_path, "src")]
    assert only == [("src", "RL001", "x-rule")]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_file_given_through_a_symlink_names_its_targets_agent(repo: Repo) -> None:
    """A linked folder (`current -> agents/survey`) or a link to a file of the tree (which a
    pre-commit hook passes when the link changes): the walk reads the file under its own
    name, and so the file names that one's agent, as its own name does."""
    _monorepo(repo)
    (repo.root / "current").symlink_to("agents/survey")
    (repo.root / "docs" / "prompt.md").symlink_to("../agents/survey/agent/system_prompt.md")
    own = _found(repo.root, "agents/survey/agent/tools.py")
    assert {code for *_, code, _ in own} >= {"RL203", "RL302"}
    assert _found(repo.root, "current/agent/tools.py") == own
    assert _found(repo.root, "docs/prompt.md") == own


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_config_file_marks_the_project(repo: Repo) -> None:
    _drifted_agent(repo, "team/agent")
    (repo.root / "team" / "refusal-lint.yaml").write_text("exclude: []\n")
    folder = _found(repo.root, "team")
    assert _found(repo.root, "team/agent/agent/tools.py") == folder
    assert folder


# ---- findings do not depend on the starting folder ---------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_findings_do_not_depend_on_where_the_run_starts(tmp_path: Path) -> None:
    """An agent kept under a folder named `prompts/`: names are matched on the path inside the
    project, so a notes file there is no prompt, from wherever the run starts. (Its near miss
    `seg_mix` would be RL202 in a prompt; it names no card rule, so it is no prompt by content.)"""
    parent = tmp_path / "prompts"
    root = parent / "agent"
    repo = Repo(root)
    _drifted_agent(repo)
    repo.write("notes.md", "- seg_mix: a draft reason nobody reads as a prompt\n")
    _git_init(root)
    inside = _found(root, ".")
    assert {code for *_, code, _ in inside} >= {"RL203", "RL302"}
    assert not any(p.endswith("notes.md") for p, *_ in inside)
    assert _found(parent, "agent") == inside
    assert _found(parent, ".") == inside
    assert _found(parent, "agent/.well-known/agent-card.json") == inside
    assert _found(tmp_path, "prompts/agent/agent/tools.py") == inside
    assert _found(root / "agent", "system_prompt.md") == inside


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_guard_file_that_lost_its_last_guard_still_names_its_agent(repo: Repo) -> None:
    """The change being committed removed the guard: the file holds no fact any more, and
    the agent's RL301 must still be reported for it."""
    unguarded = "def crosstab(cuts, families):\n    return {'cuts': cuts}\n"
    # A lone agent whose guards live outside its card's folder.
    _drifted_agent(repo, "svc")
    repo.write("lib/tools.py", unguarded)
    _git_init(repo.root)
    lone = _found(repo.root, "lib/tools.py")
    assert ("RL203", "seg-mix") in {(c, r) for *_, c, r in lone}
    assert lone == _found(repo.root, ".")
    # Agents given in the config: a file their `guards:` glob names.
    (repo.root / "svc" / "agent" / "tools.py").write_text(unguarded)
    repo.write(
        ".refusal-lint.yaml",
        "agents:\n  - name: survey\n    card: svc/.well-known/agent-card.json\n"
        "    prompt: svc/agent/system_prompt.md\n    guards: ['svc/agent/*.py']\n",
    )
    found = _found(repo.root, "svc/agent/tools.py")
    assert {(c, r) for *_, c, r in found} >= {
        ("RL301", "seg-mix"),
        ("RL301", "invalid-cut"),
        ("RL203", "seg-mix"),
    }
    assert found == _found(repo.root, ".")


def test_notes_name_files_as_the_reports_do(tmp_path: Path) -> None:
    import stat

    shutil.copytree(TESTDATA / "py-rl303", tmp_path / "sub" / "agent", ignore=shutil.ignore_patterns("*.txt"))
    tools = tmp_path / "sub" / "agent" / "survey" / "tools.py"
    tools.chmod(stat.S_IRUSR | stat.S_IRGRP)
    result = run_cli("check", "sub/agent", "--fix", "--no-cache", cwd=tmp_path)
    assert (
        "refusal-lint: note: sub/agent/survey/tools.py: not fixed, the file is read-only\n" in result.stderr
    )


@pytest.mark.parametrize("marker", ["none", "git"])
def test_a_project_that_is_a_package_imports_itself_by_its_name(tmp_path: Path, marker: str) -> None:
    """`from shop.rules import RULES` inside `shop/`, the project's top (no marker above, or
    its own git work tree): the package's own name finds its module, so the card is read
    as the run of the folder above reads it (no RL001, no silent pass)."""
    shop = _shop_agent(tmp_path / "shop", "shop")
    (shop / "__init__.py").write_text("")
    if marker == "git":
        if shutil.which("git") is None:
            pytest.skip("needs git")
        _git_init(shop)
    assert sorted((f[3], f[4]) for f in _found(tmp_path, "shop")) == _SHOP_FINDINGS
    assert sorted((f[3], f[4]) for f in _found(shop, "agent.py")) == _SHOP_FINDINGS


_SHOP_FINDINGS = [("RL301", "no-refunds"), ("RL302", "no-refundz")]


def _shop_agent(folder: Path, package: str) -> Path:
    """A card built from `{package}.rules` (its own module, imported from above it), and a
    guard firing a misspelled id: found, the card gives `_SHOP_FINDINGS`."""
    folder.mkdir(parents=True)
    (folder / "rules.py").write_text(
        f'URI = "{URI}"\nRULES = {{"no-refunds": "Refunds are handled elsewhere."}}\n'
    )
    (folder / "__main__.py").write_text(
        f"from a2a.types import AgentExtension\n\nfrom {package}.rules import RULES, URI\n\n"
        "EXT = AgentExtension(uri=URI, params=RULES)\n"
    )
    (folder / "agent.py").write_text(
        'SYSTEM_PROMPT = "You help shoppers. Refuse refund questions: no-refunds."\n\n\n'
        "def answer(q, refuse):\n    return refuse('no-refundz')\n"
    )
    return folder


def test_an_import_spelled_from_above_namespace_packages_finds_its_module(tmp_path: Path) -> None:
    """`from agents.chat.rules import RULES, URI` in `agents/chat/__main__.py`, no
    `__init__.py` anywhere (namespace packages, run as `python -m agents.chat` from above),
    the folder checked alone: the import names the file by where it stands, so the card is
    read (no RL001 on every guard)."""
    chat = _shop_agent(tmp_path / "agents" / "chat", "agents.chat")
    assert sorted((f[3], f[4]) for f in _found(chat, ".")) == _SHOP_FINDINGS
    assert sorted((f[3], f[4]) for f in _found(chat, "agent.py")) == _SHOP_FINDINGS


def test_without_git_or_config_a_file_checks_its_folder(tmp_path: Path) -> None:
    """No project marker above: the file's own folder is the tree (a card under .well-known/
    stands for the agent's folder above it), so a card beside its agent is no partial agent."""
    root = tmp_path / "agent"
    shutil.copytree(TESTDATA / "py-rl302", root, ignore=shutil.ignore_patterns("*.txt"))
    folder = _found(root, ".")
    assert _found(root, "agent-card.json") == folder
    (root / ".well-known").mkdir()
    (root / "agent-card.json").rename(root / ".well-known" / "agent-card.json")
    folder = _found(root, ".")
    assert {c for *_, c, _ in folder} == {"RL301", "RL302"}
    assert _found(root / ".well-known", "agent-card.json") == folder
    # A file inside the agent, its card at the A2A place above it: that agent, not a partial one.
    assert _found(root, "survey/tools.py") == folder
    assert _found(root, "survey") == folder


def test_without_git_or_config_a_module_of_a_package_checks_what_it_imports_from(tmp_path: Path) -> None:
    """No project marker, the card built in `app/server.py`: a module of `app/tools/`
    (which imports `from app.errors import ...`) is checked from above its top package,
    where its imports start, as the folder run is: no partial agent's RL001."""
    root = tmp_path / "proj"
    (root / "app" / "tools").mkdir(parents=True)
    (root / "prompts").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "tools" / "__init__.py").write_text("")
    (root / "app" / "server.py").write_text(
        "from a2a.types import AgentCapabilities, AgentCard, AgentExtension\n\n"
        "RULES = {\n"
        '    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",\n'
        '    "invalid-cut": "That demographic cut is not defined for this study.",\n'
        "}\n"
        'card = AgentCard(name="Survey", capabilities=AgentCapabilities(extensions=[AgentExtension('
        f'uri="{URI}", params=RULES)]))\n'
    )
    (root / "app" / "tools" / "guards.py").write_text(
        "from app.errors import refuse\n\n\ndef crosstab(cut, families):\n"
        '    if len(families) > 1:\n        return refuse(rule="seg-mix")\n'
        '    if cut not in ("age", "region"):\n        return refuse(rule="invalid-cut")\n'
    )
    (root / "prompts" / "system_prompt.md").write_text(
        "Refuse these, naming the rule:\n\n"
        "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.\n"
        "- invalid-cut: That demographic cut is not defined for the study.\n"
    )
    folder = _found(root, ".")
    assert [c for *_, c, _ in folder] == ["RL203"]
    assert _found(root, "app/tools/guards.py") == folder
    assert _found(root, "app/tools") == folder
    assert _found(root / "app", "tools/guards.py") == folder


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_two_cards_of_one_agent_still_read_every_guard(repo: Repo) -> None:
    """Two cards that make one agent (one's folder holds the other's, same name): the
    lone agent owns every file of the tree, so guards outside both folders count."""
    repo.card(rel="svc/agent-card.json")
    repo.card(rel="svc/api/agent-card.json")
    repo.prompt(rel="svc/system_prompt.md")
    repo.tools(rel="lib/tools.py")
    _git_init(repo.root)
    folder = _found(repo.root, ".")
    assert all(code != "RL301" for *_, code, _ in folder), folder
    assert _found(repo.root, "svc/api/agent-card.json") == folder


_PART = st.text(alphabet="abcxyz-_.é ", min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))


@given(
    root=st.lists(_PART, max_size=3),
    cwd=st.lists(_PART, max_size=3),
    path=st.lists(_PART, min_size=1, max_size=3),
)
def test_a_shown_path_names_the_same_file_from_the_current_folder(
    root: list[str], cwd: list[str], path: list[str]
) -> None:
    from refusal_lint.report import display

    base = os.path.join(os.sep, "work", *root)
    here = os.path.join(os.sep, "work", *cwd)
    shown = display.from_cwd(base, here)("/".join(path))
    target = os.path.normpath(os.path.join(base, *path))
    assert os.path.normpath(os.path.join(here, shown)) == target
    inside = target == here or target.startswith(os.path.join(here, ""))
    assert os.path.isabs(shown) != inside
    assert "\\" not in shown or os.sep == "/"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_configured_agents_a_file_costs_its_own_agent(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    _monorepo(repo)
    repo.write(
        ".refusal-lint.yaml",
        "agents:\n"
        + "".join(
            f"  - name: {n}\n    card: agents/{n}/.well-known/agent-card.json\n"
            f"    prompt: agents/{n}/agent/system_prompt.md\n    guards: ['agents/{n}/**/*.py']\n"
            for n in ("survey", "media")
        ),
    )
    whole = _json(repo.root, ".")["findings"]
    want = [f for f in whole if f["agent"] == "survey"]
    assert {f["code"] for f in want} >= {"RL203", "RL302"}
    scanned = _scanned(monkeypatch)
    got = _json(repo.root, "agents/survey/agent/tools.py")["findings"]
    assert got == want
    assert scanned == ["agents/survey/agent/tools.py"]
    assert _json(repo.root, "docs/notes.md")["findings"] == []


def test_a_file_of_a_configured_agent_reads_every_agent_sharing_a_file_with_it(repo: Repo) -> None:
    """`guards:` of both agents take `shared/*.py`: a run of one agent's file reads the
    other agent's files too (it reports on the shared file), never its false RL301."""
    repo.write(
        ".refusal-lint.yaml",
        "agents:\n"
        + "".join(
            f"  - name: {n}\n    card: {n}/.well-known/agent-card.json\n    prompt: {n}/prompt.md\n"
            f"    guards: ['{n}/**/*.py', 'shared/*.py']\n"
            for n in ("a", "b")
        ),
    )
    for n in ("a", "b"):
        repo.write(
            f"{n}/.well-known/agent-card.json",
            json.dumps(
                {"name": n, "capabilities": {"extensions": [{"uri": URI, "params": {f"{n}-rule": "No."}}]}}
            ),
        )
        repo.write(f"{n}/prompt.md", f"Refuse these:\n- {n}-rule: No.\n")
        repo.write(
            f"{n}/{n}_agent/refusals.py",
            "class Refusal(Exception):\n    def __init__(self, rule):\n        self.rule = rule\n",
        )
        repo.write(
            f"{n}/{n}_agent/tools.py",
            f'from {n}_agent.refusals import Refusal\n\n\ndef tool():\n    raise Refusal("{n}-rule")\n',
        )
    repo.write(
        "shared/escalate.py",
        'from a_agent.refusals import Refusal\n\n\ndef escalate():\n    raise Refusal("a-rule")\n',
    )
    whole = _json(repo.root, ".")["findings"]
    assert [(f["code"], f["path"]) for f in whole] == [("RL302", "shared/escalate.py")]
    for path in ("a/a_agent/refusals.py", "a/a_agent/tools.py", "b/b_agent/tools.py", "shared/escalate.py"):
        got = _json(repo.root, path)["findings"]
        assert all(f in whole for f in got), (path, got)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_config_file_names_every_agent_and_an_unread_kind_none(repo: Repo) -> None:
    _monorepo(repo)
    repo.write(".refusal-lint.yaml", "exclude: []\n")
    repo.write("agents/survey/NOTES.rst", "Notes on the survey agent.\n")
    assert _found(repo.root, ".refusal-lint.yaml") == _found(repo.root, ".")
    assert _found(repo.root, "agents/survey/NOTES.rst") == []


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_of_a_latin1_module_applies_with_git_apply(tmp_path: Path) -> None:
    """The patch holds each file's lines in the file's own encoding, as `git diff` does: a
    Latin-1 context line (and a form feed, which is no line break to git) still matches."""
    card = {"name": "S", "capabilities": {"extensions": [{"uri": URI, "params": {"seg-mix": "No mixing."}}]}}
    (tmp_path / "agent-card.json").write_text(json.dumps(card))
    source = (
        "# -*- coding: latin-1 -*-\n# Caf\xe9 survey tools.\n\x0c\n"
        'def f(Refusal):\n    raise Refusal("seg-mix", reason="Old caf\xe9 reason.")\n'
    )
    tools = tmp_path / "tools.py"
    tools.write_bytes(source.encode("latin-1"))
    diff = run_cli("check", ".", "--diff", "--no-cache", cwd=tmp_path)
    assert diff.exit_code == 1
    patch = tmp_path / "fix.patch"
    patch.write_bytes(diff.stdout_bytes)
    subprocess.run(["git", "apply", str(patch)], cwd=tmp_path, check=True, capture_output=True)
    assert tools.read_bytes() == source.replace("Old caf\xe9 reason.", "No mixing.").encode("latin-1")


@pytest.mark.parametrize("git", [True, False])
def test_a_src_layouts_folders_and_files_give_the_findings_of_the_whole_run(repo: Repo, git: bool) -> None:
    """A src layout (`src/survey/card.py`, its prompt in `prompts/` beside `src/`): the
    agent's root is the folder holding `src/`, so `check src`, `check src/survey` and a file
    run check the project and report what the whole run does. They were a tree of their
    own, the prompt outside it: a false RL200 and the drift missed."""
    if git and shutil.which("git") is None:
        pytest.skip("needs git")
    repo.write("pyproject.toml", '[project]\nname = "survey"\nversion = "1.0"\n')
    repo.write("src/survey/__init__.py", "")
    repo.write("src/survey/card.py", _SRC_CARD)
    repo.tools(ids=("seg-mix", "invalid-cuts"), rel="src/survey/tools.py")
    repo.prompt(rel="prompts/system.md")
    prompt = repo.root / "prompts" / "system.md"
    prompt.write_text(prompt.read_text().replace("ask for one family", "ask for two families"))
    if git:
        _git_init(repo.root)
    whole = _found(repo.root, ".")
    assert {code for *_, code, _ in whole} == {"RL203", "RL302", "RL301"}
    for args in (["src"], ["src/survey"], ["src/survey/tools.py"], ["src/survey/card.py"]):
        assert _found(repo.root, *args) == whole, args
    assert _found(repo.root / "src", ".") == whole


_SRC_CARD = """from a2a.types import AgentExtension

REFUSALS = AgentExtension(
    uri="https://standards.upperhandai.com/ext/refusals/v1",
    params={
        "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
        "invalid-cut": "That demographic cut is not defined for this study.",
    },
)
"""


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("rule", ["seg-mix", "seg-mixx"])
def test_an_agent_folder_run_reads_a_shared_helper_binding_finds_elsewhere(repo: Repo, rule: str) -> None:
    """`check agents/alpha` in a git work tree, whose guard calls a helper of `libs/common/`
    (on the path at run time, so no folder above the agent holds it; binding finds it by
    its name anywhere in the tree): the folder names its files, as the whole run reads
    them. It was a tree of its own, the helper outside it: a false RL301, and a renamed id
    missed."""
    repo.card(rel="agents/alpha/.well-known/agent-card.json")
    repo.prompt(rel="agents/alpha/prompt.md")
    repo.write(
        "agents/alpha/app/tools.py",
        "from common import build_refusal\n\n\n"
        "async def crosstab(updater, cut):\n"
        f'    await build_refusal(updater, "{rule}", detail=cut)\n'
        '    await build_refusal(updater, "invalid-cut", detail=cut)\n',
    )
    repo.write(
        "libs/common/__init__.py",
        "async def build_refusal(updater, rule, detail=None):\n"
        '    await updater.add_artifact([{"kind": "data", "data": {"rule": rule, "detail": detail}}])\n',
    )
    _git_init(repo.root)
    whole = _found(repo.root, ".")
    assert {code for *_, code, _ in whole} == (set() if rule == "seg-mix" else {"RL301", "RL302"})
    assert _found(repo.root, "agents/alpha") == whole
    assert _found(repo.root / "agents" / "alpha", ".") == whole


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_self_contained_case_folder_stays_a_tree_of_its_own(repo: Repo) -> None:
    """A test case kept inside a larger repository imports `refusals` from a library; the
    repository holds a `refusals.py` only inside a package (`survey_agent.refusals`), which
    Python never finds as `refusals`: the folder is still a tree of its own, not the
    repository's (DESIGN §1), and reads only its own files."""
    repo.write("pkg/survey_agent/__init__.py", "")
    repo.write("pkg/survey_agent/refusals.py", "def refuse(rule):\n    return {'rule': rule}\n")
    repo.card(rel="cases/one/.well-known/agent-card.json")
    repo.prompt(rel="cases/one/prompt.md")
    guards = 'refuse("seg-mix")\nrefuse("invalid-cut")\n'
    repo.write("cases/one/tools.py", "from refusals import refuse\n\n" + guards)
    _git_init(repo.root)
    data = _json(repo.root, "cases/one")
    assert data["findings"] == []
    assert data["summary"]["files_scanned"] == 3
