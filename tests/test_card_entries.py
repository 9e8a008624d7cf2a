"""RL101-RL107 on the survey agent whose card differs in one extension entry (the builder in
conftest.py writes the rest): each entry, and the exact report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ABSENT, SURVEY_RULES, Repo, check_json, extension, run_cli
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_differential import differential

from refusal_lint.static.extract.data import cards as datacards
from refusal_lint.static.extract.data import jsonpos

CARD = ".well-known/agent-card.json"
ONE_ERROR = "\nFound 1 error and 0 warnings.\n"

CASES = [
    (
        "required-not-bool",
        extension(required="no"),
        f"{CARD}:11:9: RL101 extension entry malformed: `required` is string, not a boolean",
    ),
    (
        "uri-not-string",
        extension(uri=42),
        f"{CARD}:11:9: RL101 extension entry malformed: `uri` is number, not a string",
    ),
    (
        "params-absent",
        extension(description=ABSENT, params=ABSENT),
        f"{CARD}:11:9: RL103 no params: the extension advertises no rules",
    ),
    (
        "params-a-list",
        extension(params=["seg-mix", "invalid-cut"]),
        f"{CARD}:14:9: RL104 params is not an object of rule id -> reason",
    ),
    (
        "reason-an-object",
        extension(params={**SURVEY_RULES, "seg-mix": {"reason": SURVEY_RULES["seg-mix"]}}),
        f"{CARD}:15:11: RL104 [seg-mix] the reason of `seg-mix` is an object, not a string",
    ),
    (
        "reason-on-two-lines",
        extension(
            params={
                **SURVEY_RULES,
                "seg-mix": "Segmentation families cannot be crossed;\nask for one family per cut.",
            }
        ),
        f"{CARD}:15:11: RL106 [seg-mix] the reason of `seg-mix` is more than one line",
    ),
]


@pytest.mark.parametrize(("why", "entry", "want"), CASES, ids=[c[0] for c in CASES])
def test_entry(repo: Repo, why: str, entry: dict[str, object], want: str) -> None:
    assert repo.agent(entry).check() == want + "\n" + ONE_ERROR


def test_rule_id_not_kebab_case(repo: Repo) -> None:
    """The prompt and the guard use the card's id as written: RL105 alone."""
    params = {"Seg_Mix": "Segmentation families cannot be crossed; ask for one family per cut."}
    params["invalid-cut"] = "That demographic cut is not defined for this study."
    repo.agent(extension(params=params), ids=("Seg_Mix", "invalid-cut"))
    assert repo.check() == (
        f"{CARD}:15:11: RL105 [Seg_Mix] rule id `Seg_Mix` is not kebab-case\n" + ONE_ERROR
    )


def test_the_survey_agent_is_clean(repo: Repo) -> None:
    assert repo.agent().check() == "All checks passed!\n"


_VALUES = st.sampled_from(
    [
        None,
        42,
        True,
        "x",
        "Rules this agent refuses",
        "Règles refusées",
        "https://standards.upperhandai.com/ext/refusals/v1",
        "HTTP://Standards.UpperhandAI.com/ext/refusal/v2/",
    ]
)
_DOCS = st.recursive(
    _VALUES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["uri", "description", "params", "capabilities", "extensions", "name", "required"]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_DOCS)
def test_the_c_parser_gate_passes_every_document_with_an_entry(doc: object) -> None:
    """A JSON card candidate's entries are looked for with positions only where the plain
    document may hold one: never where find_extensions would find one."""
    if datacards.find_extensions(jsonpos.parse(json.dumps(doc), "card.json")):
        assert datacards.may_hold_extension(doc)


@settings(max_examples=400, deadline=None)
@given(_DOCS, st.booleans())
def test_the_json_text_gate_passes_every_document_the_walk_passes(doc: object, ascii_only: bool) -> None:
    """A JSON card candidate's document is walked only where its text may name an entry:
    never where the walk would pass it, escaped (`\\u` spellings) or not."""
    text = json.dumps(doc, ensure_ascii=ascii_only)
    if datacards.may_hold_extension(json.loads(text)):
        assert datacards.json_text_may_hold_extension(text, json.loads(text))


_PIECES = st.sampled_from(["uri", "u", "ri", "x", " ", "_", ".", "é", "😀", "standards.upperhandai.com"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=8).map("".join), st.lists(st.booleans(), max_size=40))
@example("éuri", [True])
@example("uri", [True])
@example("standards.upperhandai.com", [False] * 9 + [True])
def test_the_json_text_gate_reads_through_escapes(value: str, escaped: list[bool]) -> None:
    """An escape that spells a letter, a dot or a word's edge (`\\u0075ri`, `\\u00e9uri`)
    sends the text to be written back unescaped; one that cannot change the answer (an
    emoji's) does not, and the answer is the decoded document's all the same."""
    body = "".join(
        f"\\u{ord(c):04x}" if i < len(escaped) and escaped[i] and ord(c) < 0x10000 else c
        for i, c in enumerate(value)
    )
    text = '{"k": "' + body + '"}'
    doc = json.loads(text)
    if datacards._names_entry(json.dumps(doc, ensure_ascii=False)):
        assert datacards.json_text_may_hold_extension(text, doc)


def test_a_null_uri_in_foreign_data_is_no_entry() -> None:
    """`"uri": null` in a plugin cache holds no entry: its file is not read with positions."""
    assert not datacards.may_hold_extension({"plugins": [{"uri": None, "name": "probe"}]})
    assert datacards.may_hold_extension({"uri": None, "params": {"seg-mix": "no"}})
    assert datacards.may_hold_extension({"uri": 3, "description": "It refuses these."})


@settings(max_examples=400, deadline=None)
@given(_DOCS, st.booleans())
def test_the_yaml_text_gate_passes_every_document_with_an_entry(doc: object, flow: bool) -> None:
    """A YAML card candidate's positions are worked out only where its text may name an
    entry: never where find_extensions would find one."""
    import yaml

    from refusal_lint.static.extract.data import yamlsafe

    text = yaml.safe_dump(doc, default_flow_style=flow)
    roots = [yamlsafe.to_tree(d, "card.yaml") for d in yamlsafe.compose_all(text)]
    if any(datacards.find_extensions(r) for r in roots):
        assert datacards.text_may_hold_extension(text)


def test_a_broken_yaml_card_candidate_is_still_a_syntax_error(repo: Repo) -> None:
    repo.agent().write("config/schema.yaml", "refusal: [unclosed\n")
    assert "config/schema.yaml:2:1: RL002" in repo.check()


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(["uri", "u", "ri", "_", "x", "9", " ", '"', "é", "URI"]), max_size=12).map(
        "".join
    )
)
def test_uri_as_a_word_is_the_look_behind_regex(text: str) -> None:
    import re

    from refusal_lint.static.gate.text.lowered import word_matches

    plain = re.compile(r"(?<![A-Za-z0-9_])uri(?![A-Za-z0-9_])")
    found = [m.span() for m in word_matches(datacards._URI_AFTER, text)]
    assert found == [m.span() for m in plain.finditer(text)]


def test_a_dict_literal_card_names_its_agent(tmp_path: object) -> None:
    """Cards served by routes as dict literals, two in one module: each extension is its own
    card's, named by its `name` (it was the folder's name), as `AgentCard(name=...)` is."""
    from refusal_lint.static.extract.python.visitor import extract

    source = (
        "URI = 'https://standards.upperhandai.com/ext/refusals/v1'\n\n"
        "def ledger_card():\n"
        "    return {'name': 'Ledger Assistant', 'capabilities': {'extensions': [\n"
        "        {'uri': URI, 'params': {'tax-advice': 'No tax advice.'}}]}}\n\n"
        "def audit_card():\n"
        "    return {'name': 'Audit Desk', 'capabilities': {'extensions': [\n"
        "        {'uri': URI, 'params': {'audit-opinion': 'No audit opinions.'}}]}}\n"
    )
    facts = extract("server.py", source)
    assert [e.agent_name for e in facts.py_exts] == ["Ledger Assistant", "Audit Desk"]
    assert len({e.card for e in facts.py_exts}) == 2


@pytest.mark.parametrize("beside", [False, True], ids=["alone", "beside-an-object"])
def test_an_entry_that_is_the_uri_alone_is_said_once(repo: Repo, beside: bool) -> None:
    """`"extensions": ["https://.../refusals/v1"]`: RL101, and nothing it cascades into (no
    RL103 for its params, no RL108 beside the entry that declares the rules)."""
    uri: dict[str, object] = extension()["uri"]  # type: ignore[assignment]
    entries = [extension(), uri] if beside else [uri]
    report = repo.agent(*entries).check()
    codes = [line.split()[1] for line in report.splitlines() if ": RL" in line]
    assert codes == ["RL101"], report


@pytest.mark.parametrize(
    "params",
    [
        'json.loads((Path(__file__).parent / "rules.json").read_text())',
        "load_rules()",
        "dict(zip(IDS, REASONS))",
    ],
)
def test_params_computed_at_run_time_are_noted_not_passed_silently(tmp_path: Path, params: str) -> None:
    """A card whose params only a run computes has no rules to check and no finding for it:
    a note says so, so that "All checks passed!" is not taken for agreement; the report
    itself is unchanged (no rules, no findings), in both modes."""
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent/card.py").write_text(
        "import json\nfrom pathlib import Path\n\n"
        "from a2a.types import AgentCapabilities, AgentCard, AgentExtension\n\n"
        "IDS, REASONS = ['seg-mix'], ['One family per cut.']\n\n\ndef load_rules():\n    return {}\n\n\n"
        "CARD = AgentCard(\n    name='Survey',\n    capabilities=AgentCapabilities(\n        extensions=[\n"
        "            AgentExtension(\n"
        f"                uri='https://standards.upperhandai.com/ext/refusals/v1', params={params}\n"
        "            )\n"
        "        ]\n    ),\n)\n"
    )
    (tmp_path / "agent/tools.py").write_text(
        "from policy import refuse\n\n\ndef crosstab():\n    return refuse('seg-mixx')\n"
    )
    result = run_cli("check", str(tmp_path), "--no-cache", cwd=tmp_path)
    assert result.exit_code == 0 and result.stdout == "All checks passed!\n"
    assert result.stderr == (
        "refusal-lint: note: agent/card.py:18: the refusals extension's params are computed at run time; "
        "its rules are not checked (write them as a dict literal or a module-level name)\n"
    )
    assert check_json(tmp_path, "--no-cache")["findings"] == []
    differential(tmp_path)
