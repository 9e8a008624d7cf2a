"""refusal_lint.conformance: the spec's assertion for evals, tests and consumers (DESIGN §9).

Answers of every shape, v1.0 and v0.3, as real agents send them (captured from the
a2a-sdk servers of tests/agents and the SDK's own objects)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from refusal_lint import conformance as rc

URI = "https://standards.upperhandai.com/ext/refusals/v1"
MEDIA = "application/vnd.upperhand.refusal+json"
SEG = "Segmentation families cannot be crossed; ask for one family per cut."
CUT = "That demographic cut is not defined for this study."
CARD = {
    "name": "Survey Analyst",
    "capabilities": {"extensions": [{"uri": URI, "params": {"seg-mix": SEG, "invalid-cut": CUT}}]},
}
PARTS_V1 = [
    {"text": SEG},
    {"data": {"rule": "seg-mix", "reason": SEG, "detail": "polaris x news"}, "mediaType": MEDIA},
]
PARTS_V03 = [
    {"kind": "text", "text": SEG},
    {"kind": "data", "data": {"rule": "seg-mix", "reason": SEG}, "metadata": {"mediaType": MEDIA}},
]
MESSAGE_V1 = {"messageId": "m1", "role": "ROLE_AGENT", "parts": PARTS_V1}
MESSAGE_V03 = {"kind": "message", "messageId": "m1", "role": "agent", "parts": PARTS_V03}
TASK_V1 = {"id": "t1", "status": {"state": "TASK_STATE_COMPLETED", "message": MESSAGE_V1}, "artifacts": []}

SHAPES: dict[str, Any] = {
    "v1.0 JSON-RPC envelope": {"jsonrpc": "2.0", "id": "1", "result": {"message": MESSAGE_V1}},
    "v1.0 result": {"message": MESSAGE_V1},
    "v1.0 HTTP+JSON body (task)": {"task": TASK_V1},
    "v1.0 Message dict": MESSAGE_V1,
    "v1.0 Part list": PARTS_V1,
    "v1.0 envelope as JSON text": json.dumps(
        {"jsonrpc": "2.0", "id": "1", "result": {"message": MESSAGE_V1}}
    ),
    "v0.3 JSON-RPC envelope": {"jsonrpc": "2.0", "id": 1, "result": MESSAGE_V03},
    "v0.3 Message dict": MESSAGE_V03,
    "v0.3 Message, no media type": {
        **MESSAGE_V03,
        "parts": [PARTS_V03[0], {"kind": "data", "data": PARTS_V03[1]["data"]}],
    },
    "v1.0 stream": [
        {
            "jsonrpc": "2.0",
            "id": "1",
            "result": {"task": {"id": "t1", "status": {"state": "TASK_STATE_SUBMITTED"}}},
        },
        {
            "jsonrpc": "2.0",
            "id": "1",
            "result": {
                "statusUpdate": {
                    "taskId": "t1",
                    "status": {"state": "TASK_STATE_WORKING", "message": {"parts": [{"text": "Looking..."}]}},
                }
            },
        },
        {"jsonrpc": "2.0", "id": "1", "result": {"artifactUpdate": {"artifact": {"parts": PARTS_V1[1:]}}}},
        {
            "jsonrpc": "2.0",
            "id": "1",
            "result": {
                "statusUpdate": {
                    "final": True,
                    "status": {"state": "TASK_STATE_COMPLETED", "message": {"parts": PARTS_V1[:1]}},
                }
            },
        },
    ],
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_answer_shape(shape: str) -> None:
    answer = SHAPES[shape]
    refusal = rc.find_refusal(answer)
    assert refusal is not None and (refusal.rule, refusal.reason) == ("seg-mix", SEG)
    codes = [f.code for f in rc.judge(answer, CARD)]
    # RL408: a v0.3 refusal Part known by its keys (none in metadata: no media type travelled).
    assert codes == (["RL408"] if "no media type" in shape else [])
    assert rc.assert_refusal(answer, CARD, rule="seg-mix").rule == "seg-mix"
    with pytest.raises(AssertionError, match="refused with rule `seg-mix`"):
        rc.assert_not_refused(answer)


def test_refusal_parts_are_its_own() -> None:
    refusal = rc.find_refusal(PARTS_V1)
    assert refusal is not None
    assert refusal.detail == "polaris x news"
    assert refusal.parts == (PARTS_V1[1], PARTS_V1[0])  # its data Part, then its text Part


def test_a_yaml_card_is_read_as_the_stub_reads_it(tmp_path: Path) -> None:
    """DESIGN §2: cards are JSON or YAML; the stub and `refusing_agent(card="card.yaml")` read
    YAML, and so does the library: a path (str or Path) or the text itself."""
    text = (
        "name: Survey Analyst\n"
        "capabilities:\n"
        "  extensions:\n"
        f"    - uri: {URI}\n"
        "      params:\n"
        f"        seg-mix: {json.dumps(SEG)}\n"
        f"        invalid-cut: {json.dumps(CUT)}\n"
    )
    path = tmp_path / "agent-card.yaml"
    path.write_text(text)
    want = {"seg-mix": SEG, "invalid-cut": CUT}
    for card in (str(path), path, text, f"seg-mix: {json.dumps(SEG)}\ninvalid-cut: {json.dumps(CUT)}\n"):
        assert rc.rules_of(card) == want
    assert rc.judge(PARTS_V1, str(path), rule="seg-mix") == []
    assert rc.assert_refusal(MESSAGE_V1, path, rule="seg-mix").rule == "seg-mix"
    with pytest.raises(ValueError, match="not valid JSON/YAML"):
        rc.rules_of("seg-mix: [unclosed\n")


def test_card_shapes(tmp_path: Path) -> None:
    path = tmp_path / "agent-card.json"
    path.write_text(json.dumps(CARD))
    want = {"seg-mix": SEG, "invalid-cut": CUT}
    for card in (CARD, json.dumps(CARD), str(path), path, {"seg-mix": SEG, "invalid-cut": CUT}):
        assert rc.rules_of(card) == want
    # A near miss of the URI (RL102) keeps its params as the rules, as probe reads them;
    # another extension's are none.
    near = {"capabilities": {"extensions": [{"uri": URI + "/", "params": {"seg-mix": SEG}}]}}
    assert rc.rules_of(near) == {"seg-mix": SEG}
    other = {
        "capabilities": {
            "extensions": [{"uri": "https://example.com/ext/citations/v1", "params": {"x": "y"}}]
        }
    }
    assert rc.rules_of(other) == {}
    # A card with no capabilities advertises no rule: its fields are not a params map
    # (audit Z4 B9); a params map keeps a rule whatever its id (`name` alone is one).
    assert rc.rules_of({"name": "Survey Analyst", "version": "1.0.0", "skills": []}) == {}
    assert rc.rules_of({"name": "No names.", "seg-mix": SEG}) == {"name": "No names.", "seg-mix": SEG}


@pytest.mark.parametrize(
    ("answer", "rule", "codes"),
    [
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": SEG}}, None, ["RL401"]),
        ([{"text": "Polaris by ideology: 41% / 59%."}], None, ["RL402"]),
        (
            [{"text": CUT}, {"data": {"rule": "invalid-cut", "reason": CUT}, "mediaType": MEDIA}],
            "seg-mix",
            ["RL402"],
        ),
        (PARTS_V1[1:], None, ["RL403"]),
        (
            [{"text": SEG}, {"data": {"rule": "seg-mix", "reason": SEG}, "mediaType": "application/json"}],
            None,
            ["RL404"],
        ),
        (
            [{"text": SEG}, {"data": {"rule": "astro-cut", "reason": SEG}, "mediaType": MEDIA}],
            None,
            ["RL405"],
        ),
        (
            [{"text": "Nope."}, {"data": {"rule": "seg-mix", "reason": "Nope."}, "mediaType": MEDIA}],
            None,
            ["RL406"],
        ),
        ([*PARTS_V1, {"text": "Anyway, 41%."}], None, ["RL407"]),
        # Two text Parts, neither saying a reason: no text carries it (one alone is read as
        # the reason's, RL406).
        ([{"text": "Sorry."}, {"text": "I can't help."}, PARTS_V1[1]], None, ["RL403", "RL407"]),
        ({"jsonrpc": "2.0", "id": 1}, None, ["RL400"]),
        ("not json {", None, ["RL400"]),  # text that is no JSON: judged, not raised on
        (b"\xff\xfe", None, ["RL400"]),
    ],
    ids=[
        "RL401",
        "RL402",
        "RL402-other-rule",
        "RL403",
        "RL404",
        "RL405",
        "RL406",
        "RL407",
        "RL403-texts-without-a-reason",
        "RL400",
        "RL400-not-json",
        "RL400-not-utf8",
    ],
)
def test_each_fault_one_code(answer: Any, rule: str | None, codes: list[str]) -> None:
    found = rc.judge(answer, CARD, rule=rule)
    assert [f.code for f in found] == codes
    assert all(f.rule_id == rule for f in found)
    with pytest.raises(AssertionError, match=codes[0]):
        rc.assert_refusal(answer, CARD, rule=rule)


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        (SEG, []),
        (f"Refused (seg-mix): {SEG}", []),  # carrying the reason, as render_text writes it
        (f"I can't do that.\n\n{SEG.replace(' ', '  ')}", []),  # white space folded
        ("Refused (seg-mix): Families may not be crossed.", ["RL406"]),
        ("Segmentation families cannot be crossed.", ["RL406"]),  # a part of it is no reason
    ],
)
def test_a_text_part_carries_the_reason(text: str, codes: list[str]) -> None:
    """Spec: "a text/plain Part carrying the user-facing reason": the reason whole, inside
    a line naming the rule too, never a piece of it nor another."""
    parts = [{"text": text}, {"data": {"rule": "seg-mix", "reason": SEG}, "mediaType": MEDIA}]
    assert [f.code for f in rc.judge(parts, CARD)] == codes


def test_a_card_reason_of_several_lines_is_compared_with_nothing() -> None:
    """RL106 in the card: no answer's reason is held against it (a card finding never
    cascades); the rest of the answer is judged as ever."""
    card = {"seg-mix": "Segmentation families\ncannot be crossed."}
    said = [
        {"text": "Families can't be crossed."},
        {"data": {"rule": "seg-mix", "reason": "Nope."}, "mediaType": MEDIA},
    ]
    assert rc.judge(said, card, rule="seg-mix") == []


def test_no_refusal_in_text_only_or_error() -> None:
    assert rc.find_refusal([{"text": "I would rather not."}]) is None
    assert rc.find_refusal("I would rather not.") is None  # plain text, no JSON
    assert rc.find_refusal({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "x"}}) is None
    rc.assert_not_refused([{"text": "Polaris: 41%."}])
    # An ordinary data Part of another media type, whose keys happen to be rule and reason.
    table = [
        {"text": "Here are the eligibility rules you asked for."},
        {"data": {"rule": "min-age", "reason": "Respondents must be 18+."}, "mediaType": "application/json"},
    ]
    assert rc.find_refusal(table) is None
    rc.assert_not_refused(table)
    # Where no media type travels (v0.3), or a near miss, the keys still tell a refusal.
    assert rc.find_refusal([{**table[1], "mediaType": "application/vnd.upperhand.refusals+json"}]) is not None
    assert rc.find_refusal([{"data": table[1]["data"]}]) is not None


def test_a2a_sdk_v1_objects() -> None:
    """The SDK's own protobuf objects, converted only because they were passed."""
    pytest.importorskip("a2a")
    from a2a.helpers.proto_helpers import new_data_part, new_message, new_text_part
    from a2a.types import Role

    message = new_message(
        [new_text_part(SEG), new_data_part({"rule": "seg-mix", "reason": SEG}, media_type=MEDIA)],
        role=Role.ROLE_AGENT,
    )
    assert rc.judge(message, CARD) == []
    assert rc.assert_refusal(message, CARD, rule="seg-mix").reason == SEG


def test_finding_is_typed_and_readable() -> None:
    [f] = rc.judge([{"text": "Polaris: 41%."}], CARD, rule="seg-mix")
    assert (f.code, f.name, f.severity, f.rule_id) == ("RL402", "refusal-not-fired", "error", "seg-mix")
    assert str(f).startswith("RL402 [seg-mix] refusal-not-fired: ")
    assert set(rc.__all__) == {
        "Finding",
        "Refusal",
        "assert_not_refused",
        "assert_refusal",
        "find_refusal",
        "judge",
        "render_text",
        "rules_of",
    }


def test_public_finding_name_is_kept() -> None:
    """rc.Finding (DESIGN §9) is the class judge returns, under its inner name too."""
    [f] = rc.judge([{"text": "Polaris: 41%."}], CARD, rule="seg-mix")
    assert rc.Finding is rc.AnswerFinding
    assert isinstance(f, rc.Finding)
    assert f == rc.Finding("RL402", f.message, "seg-mix")


def test_a2a_sdk_v03_objects() -> None:
    """v0.3's pydantic types (the SDK's compat layer): converted only because they were passed."""
    t = pytest.importorskip("a2a.compat.v0_3.types")
    message = t.Message(
        message_id="m1",
        role=t.Role.agent,
        parts=[
            t.Part(root=t.TextPart(text=SEG)),
            t.Part(root=t.DataPart(data={"rule": "seg-mix", "reason": SEG}, metadata={"mediaType": MEDIA})),
        ],
    )
    assert rc.judge(message, CARD) == []  # the media type travelled, in the Part's metadata
    assert rc.assert_refusal(message, CARD, rule="seg-mix").rule == "seg-mix"
    keyed = t.Message(
        message_id="m2",
        role=t.Role.agent,
        parts=[
            t.Part(root=t.TextPart(text=SEG)),
            t.Part(root=t.DataPart(data={"rule": "seg-mix", "reason": SEG})),
        ],
    )
    [note] = rc.judge(keyed, CARD)
    assert (note.code, note.severity) == ("RL408", "warning")
    assert "recognised by its keys" in note.message
    assert rc.assert_refusal(keyed, CARD, rule="seg-mix").rule == "seg-mix"


def test_a_v03_part_naming_its_media_type_mimetype_is_known_by_it() -> None:
    """`metadata={"mimeType": ...}`, as the v0.3 SDK names a file's type: judged as under
    `mediaType` (the static side reads it so too)."""
    named = [PARTS_V03[0], {**PARTS_V03[1], "metadata": {"mimeType": MEDIA}}]
    refusal = rc.find_refusal(named)
    assert refusal is not None and refusal.rule == "seg-mix"
    assert [f.code for f in rc.judge(named, CARD)] == [f.code for f in rc.judge(PARTS_V03, CARD)]


def _events(*results: Any) -> list[Any]:
    return [{"jsonrpc": "2.0", "id": "1", "result": r} for r in results]


def test_a_stream_ending_with_the_task_counts_each_artifact_once() -> None:
    """DESIGN §8: the answer is the final status plus the artifacts streamed; a final Task
    event (the whole task, as servers and the a2a-sdk client aggregate it) holds the same
    artifacts again, and replaces them rather than doubling them (no RL407)."""
    artifact = {"artifactId": "a1", "parts": PARTS_V1}
    done = {"state": "TASK_STATE_COMPLETED"}
    stream = _events(
        {"task": {"id": "t1", "status": {"state": "TASK_STATE_SUBMITTED"}}},
        {"artifactUpdate": {"taskId": "t1", "artifact": artifact}},
        {"task": {"id": "t1", "status": done, "artifacts": [artifact]}},
    )
    assert rc.judge(stream, CARD) == []
    assert rc.find_refusal(stream) is not None
    # An artifact streamed in chunks (`append`) is one artifact of all its Parts.
    chunks = [
        {"artifactUpdate": {"artifact": {"artifactId": "a1", "parts": PARTS_V1[:1]}}},
        {"artifactUpdate": {"append": True, "artifact": {"artifactId": "a1", "parts": PARTS_V1[1:]}}},
    ]
    assert rc.judge(_events(*chunks, {"statusUpdate": {"final": True, "status": done}}), CARD) == []
    # A working Task's status message is interim, not the answer.
    working = {"state": "TASK_STATE_WORKING", "message": {"parts": [{"text": "Looking..."}]}}
    interim = _events({"task": {"id": "t1", "status": working}}, *chunks, {"task": {"status": done}})
    assert rc.judge(interim, CARD) == []


def test_a_data_part_of_another_media_type_is_no_refusal_on_either_version() -> None:
    """A data Part typed application/json whose keys happen to be rule/reason: judge says
    RL404 (as probe does), find_refusal finds no refusal, assert_not_refused passes and
    assert_refusal fails listing the RL404, whether the Parts carry v0.3's `kind` or not."""
    data = {"rule": "seg-mix", "reason": SEG}
    answers = {
        "v0.3, typed in metadata": [
            {"kind": "text", "text": SEG},
            {"kind": "data", "data": data, "metadata": {"mimeType": "application/json"}},
        ],
        "v1.0 with kind": [
            {"kind": "text", "text": SEG},
            {"kind": "data", "data": data, "mediaType": "application/json"},
        ],
        "v1.0": [{"text": SEG}, {"data": data, "mediaType": "application/json"}],
    }
    for name, answer in answers.items():
        assert [f.code for f in rc.judge(answer, CARD)] == ["RL404"], name
        assert [f.code for f in rc.judge(answer, CARD, protocol="0.3")] == ["RL404"], name
        assert rc.find_refusal(answer) is None, name
        rc.assert_not_refused(answer)
        with pytest.raises(AssertionError) as failed:
            rc.assert_refusal(answer, CARD, rule="seg-mix")
        assert "RL404 [seg-mix] data-part-malformed" in str(failed.value), name
        assert "None" not in str(failed.value)
    # A near miss of the type is the refusal, malformed, on v0.3 as on v1.0.
    near = [
        {"kind": "text", "text": SEG},
        {"kind": "data", "data": data, "metadata": {"mediaType": MEDIA + "x"}},
    ]
    assert [f.code for f in rc.judge(near, CARD)] == ["RL404"]
    assert rc.find_refusal(near) is not None


def test_an_unfinished_task_and_an_unadvertised_rule_are_said() -> None:
    working = {"task": {"id": "t1", "status": {"state": "TASK_STATE_WORKING"}}}
    [f] = rc.judge(working, CARD, rule="seg-mix")
    assert (f.code, f.message) == (
        "RL402",
        "the answer is a task still TASK_STATE_WORKING, with no refusal: the rule should refuse in it",
    )
    [f] = rc.judge(PARTS_V1, CARD, rule="seg-mixx")
    assert f.code == "RL402" and f.message.endswith("(`seg-mixx` is not a rule the card advertises)")
    assert rc.judge(PARTS_V1, CARD, rule="seg-mix") == []
