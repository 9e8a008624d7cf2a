"""The formats other CIs read (issue 15): gitlab, junit, rdjson, azure.

Each is compared with a golden file and checked against the fields its publisher
documents (GitLab's Code Quality report, reviewdog's DiagnosticResult, JUnit XML as
test-report viewers read it, Azure's task.logissue command).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from conftest import ROOT, TESTDATA, fixture_repo, run_in

GOLDEN = ROOT / "tests" / "golden"
FORMATS = ("gitlab", "junit", "rdjson", "azure")
CASES = ("py-rl302", "survey-agent")

# GitLab: an array of issues; description, check_name, fingerprint, severity and
# location.path / location.lines.begin are what the merge-request widget needs.
GITLAB = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string"},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {
                            "begin": {"type": "integer", "minimum": 1},
                            "end": {"type": "integer"},
                        },
                    },
                },
            },
        },
    },
}
_POSITION = {"type": "object", "properties": {"line": {"type": "integer"}, "column": {"type": "integer"}}}
# reviewdog's DiagnosticResult, as its protobuf definition describes it.
RDJSON = {
    "type": "object",
    "required": ["diagnostics"],
    "properties": {
        "source": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        "diagnostics": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["message", "location"],
                "properties": {
                    "message": {"type": "string"},
                    "location": {
                        "type": "object",
                        "required": ["path"],
                        "properties": {
                            "path": {"type": "string"},
                            "range": {
                                "type": "object",
                                "required": ["start"],
                                "properties": {"start": _POSITION, "end": _POSITION},
                            },
                        },
                    },
                    "severity": {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]},
                    "code": {
                        "type": "object",
                        "required": ["value"],
                        "properties": {"value": {"type": "string"}, "url": {"type": "string"}},
                    },
                },
            },
        },
    },
}
AZURE = re.compile(
    r"##vso\[task\.logissue type=(error|warning);sourcepath=[^;\]]+;"
    r"linenumber=\d+;columnnumber=\d+;code=RL\d{3};\][^\r\n]*"
)


def _out(case: str, fmt: str) -> str:
    result = run_in(fixture_repo(case), "check", "--no-cache", "--format", fmt)
    assert result.exit_code in (0, 1)
    return result.stdout


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_golden(case: str, fmt: str) -> None:
    assert _out(case, fmt) == (GOLDEN / f"{case}.{fmt}").read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES)
def test_gitlab_fields_and_unique_fingerprints(case: str) -> None:
    issues = json.loads(_out(case, "gitlab"))
    jsonschema.validate(issues, GITLAB)
    assert len({i["fingerprint"] for i in issues}) == len(issues)  # GitLab shows only the first of a repeat


def test_gitlab_fingerprint_survives_a_line_move(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "agent"
    shutil.copytree(TESTDATA / "py-rl302", root)
    before = [
        i["fingerprint"] for i in json.loads(run_in(root, "check", "--no-cache", "--format", "gitlab").stdout)
    ]
    tools = root / "survey" / "tools.py"
    tools.write_text("\n\n" + tools.read_text())
    after = json.loads(run_in(root, "check", "--no-cache", "--format", "gitlab").stdout)
    assert [i["fingerprint"] for i in after] == before
    assert after[1]["location"]["lines"]["begin"] == 8


@pytest.mark.parametrize("case", CASES)
def test_rdjson_fields(case: str) -> None:
    doc = json.loads(_out(case, "rdjson"))
    jsonschema.validate(doc, RDJSON)
    for d in doc["diagnostics"]:
        assert d["code"]["url"].endswith(f"/docs/rules/{d['code']['value']}.md")


def test_rdjson_columns_count_utf8_bytes(tmp_path: Path) -> None:
    """reviewdog's columns are "byte count in UTF-8" (its proto): a rule id after `é` or an
    emoji on its line stands at its byte column, in the main report and in an --also one;
    the other formats keep counting characters."""
    import shutil

    root = tmp_path / "agent"
    shutil.copytree(TESTDATA / "survey-agent", root, ignore=shutil.ignore_patterns("expected.txt"))
    prompt = root / "prompts" / "system_prompt.md"
    text = prompt.read_text(encoding="utf-8")
    prompt.write_text(text.replace("- seg-mix:", "- 😀 é seg-mixx:"), encoding="utf-8")
    line = next(
        n for n, s in enumerate(prompt.read_text(encoding="utf-8").splitlines(), 1) if "seg-mixx" in s
    )
    chars = prompt.read_text(encoding="utf-8").splitlines()[line - 1].index("seg-mixx") + 1
    also = tmp_path / "also.json"
    doc = json.loads(
        run_in(root, "check", "--no-cache", "--format", "rdjson", "--also", f"rdjson={also}").stdout
    )
    for d in (doc, json.loads(also.read_text(encoding="utf-8"))):
        [start] = [
            x["location"]["range"]["start"] for x in d["diagnostics"] if x["location"]["path"].endswith(".md")
        ]
        assert start == {
            "line": line,
            "column": chars + 3 + 1,
        }  # the emoji 4 bytes, `é` 2: 4 more than characters
    text_out = run_in(root, "check", "--no-cache", "--format", "text").stdout
    assert f"system_prompt.md:{line}:{chars}: RL202" in text_out


@pytest.mark.parametrize("case", CASES)
def test_junit_structure(case: str) -> None:
    root = ET.fromstring(_out(case, "junit"))
    assert root.tag == "testsuites"
    cases = root.findall("testsuite/testcase")
    failures = root.findall("testsuite/testcase/failure")
    assert int(root.get("failures", "-1")) == len(failures)
    for suite in root.findall("testsuite"):
        assert suite.get("name")
        assert int(suite.get("tests", "-1")) == len(suite.findall("testcase"))
        assert int(suite.get("failures", "-1")) == len(suite.findall("testcase/failure"))
    for c in cases:
        assert c.get("name") and c.get("classname")
    for f in failures:
        assert f.get("message") and (f.text or "").count(":") >= 3


def test_azure_lines_and_escaping() -> None:
    from refusal_lint.core.model import Finding, Loc
    from refusal_lint.report.ci import azure

    for line in _out("py-rl302", "azure").splitlines():
        assert AZURE.fullmatch(line), line
    tricky = Finding("RL302", Loc("a;b]c.py", 3, 4), "100% sure; [x]\nnext", rule_id="r")
    assert azure.line(tricky) == (
        "##vso[task.logissue type=error;sourcepath=a%3Bb%5Dc.py;linenumber=3;columnnumber=4;code=RL302;]"
        "[r] 100%AZP25 sure; [x]%0Anext"
    )


def test_junit_stays_well_formed_with_control_characters() -> None:
    """A prompt's reason holding an ESC or a lone surrogate (a decoding error kept) cannot
    stand in XML 1.0 even as a reference: it is written as its escape."""
    from refusal_lint.core.model import Finding, Loc
    from refusal_lint.report.base import Report
    from refusal_lint.report.ci import junit

    message = 'the prompt gives `seg-mix` the reason "bold \x1b[1mtext\x1b[0m \udce9"'
    found = Finding("RL203", Loc("p\x07.md", 3, 4), message, rule_id="seg-mix")
    root = ET.fromstring(junit.render(Report((found,), ())))
    [failure] = root.findall("testsuite/testcase/failure")
    assert failure.get("message") == message.replace("\x1b", "\\x1b").replace("\udce9", "\\udce9")
    assert root.find("testsuite").get("name") == "p\\x07.md"  # type: ignore[union-attr]


def test_a_probed_urls_port_is_no_part_of_its_fingerprint() -> None:
    """An agent started on port 0 for each CI run is the same agent: its findings keep their
    fingerprints (GitLab and SARIF would call them new each run); two agents of one run on
    one host stay distinct by their paths, and repeats by their order."""
    from refusal_lint.core.model import Finding, Loc
    from refusal_lint.report.base import fingerprints

    def found(*urls: str) -> list[str]:
        return fingerprints(tuple(Finding("RL402", Loc(u), "m", rule_id="seg-mix") for u in urls))

    card = "/.well-known/agent-card.json"
    assert found(f"http://127.0.0.1:41733{card}") == found(f"http://127.0.0.1:50211{card}")
    assert found(f"http://127.0.0.1:1{card}") != found(f"http://127.0.0.2:1{card}")
    assert len(set(found(f"http://h:1/a{card}", f"http://h:2/b{card}", f"http://h:3/a{card}"))) == 3
    assert found("agent/card.json") != found("agent/card2.json")
