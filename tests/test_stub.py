"""The consumer half (DESIGN §10): the refusing stub agent, in this process. Our own probe
against it over every binding and version, the a2a-sdk's own client against it, clients
that retry unchanged (RL501) or change their request (none), the `refusing_agent` fixture
as a workbench author uses it, `rc.render_text`, and the stub's pure parts."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from hypothesis import given
from hypothesis import strategies as st

from refusal_lint import conformance as rc
from refusal_lint.core.errors import UsageError
from refusal_lint.live.stub import core

pytest.importorskip("a2a")

URI = "https://standards.upperhandai.com/ext/refusals/v1"
MEDIA = "application/vnd.upperhand.refusal+json"
SEG = "Segmentation families cannot be crossed; ask for one family per cut."
CUT = "That demographic cut is not defined for this study."
RULES = {"seg-mix": SEG, "invalid-cut": CUT}
CARD = {
    "name": "Survey Analyst",
    "description": "Crosstabs for the 2026 media-habits survey.",
    "version": "1.0.0",
    "supportedInterfaces": [
        {"url": "https://agents.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ],
    "capabilities": {"streaming": False, "extensions": [{"uri": URI, "required": False, "params": RULES}]},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain", "application/json"],
    "skills": [{"id": "crosstab", "name": "Crosstab", "description": "Cross by a cut.", "tags": ["survey"]}],
}
PROBES = {
    "seg-mix": "Cross the polaris segments by ideology, please.",
    "invalid-cut": "Break it down by zodiac sign.",
}
RULE_FOR = {"polaris": "seg-mix", "zodiac": "invalid-cut"}


# ---- the card, the rule a message gets, the record ----------------------------------------


def test_rule_choice_rule_for_then_card_ids_then_the_first_rule() -> None:
    card = core.stub_card(CARD, [("zodiac", "invalid-cut")])
    assert card.choose("Please apply INVALID-CUT rules")[0] == "invalid-cut"  # a card id, case-folded
    assert card.choose("Break it down by Zodiac sign") == ("invalid-cut", "the message contains `zodiac`")
    assert card.choose("seg-mix, by Zodiac")[0] == "invalid-cut"  # the caller's --rule-for comes first
    assert card.choose("seg-mix, by age") == ("seg-mix", "the message names `seg-mix`")
    assert card.choose("What share watches the news?")[0] == "seg-mix"  # the card's first rule


PII = {"pii": "No personal data.", "pii-export": "No exports of personal data.", "seg-mix": SEG}


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Please do a pii-export of the list", "pii-export"),  # not `pii`, which it starts with
        ("PII-Export, now", "pii-export"),
        ("seg-mix or pii-export?", "pii-export"),  # two ids named: the first in card order
        ("Cross them: pii, then seg-mix", "pii"),
        ("Is seg-mixing allowed?", "pii"),  # `seg-mix` is not named by `seg-mixing`: the first rule
        ("a pii_export or a pii-exports file", "pii"),  # nor `pii-export` by these
        ('{"ask": "seg-mix"}', "seg-mix"),  # a data Part's JSON, as message_text gives it
    ],
)
def test_a_card_id_is_named_as_a_whole_token(text: str, rule: str) -> None:
    """DESIGN §2's mention: an id stands in the text as a whole token, so of `pii` and
    `pii-export` a message naming `pii-export` gets `pii-export` whatever the card order."""
    assert core.stub_card(PII).choose(text)[0] == rule


def test_rule_for_overrides_the_card_ids_a_message_names() -> None:
    card = core.stub_card(PII, [("mailing list", "seg-mix"), ("pii-export", "pii")])
    assert card.choose("A pii-export of the mailing list") == (
        "seg-mix",
        "the message contains `mailing list`",
    )
    assert card.choose("Please do a pii-export") == ("pii", "the message contains `pii-export`")
    assert card.choose("Please do a pii export")[0] == "pii"  # no pair, no id: the first rule


def test_served_card_has_only_the_stubs_interfaces() -> None:
    served = core.stub_card(CARD).served("http://127.0.0.1:5001")
    urls = {i["url"] for i in served["supportedInterfaces"]} | {
        i["url"] for i in served["additionalInterfaces"]
    }
    assert urls == {"http://127.0.0.1:5001/a2a", "http://127.0.0.1:5001"}
    assert served["url"] == "http://127.0.0.1:5001/a2a"
    bindings = {(i["protocolBinding"], i["protocolVersion"]) for i in served["supportedInterfaces"]}
    assert bindings == {("JSONRPC", "1.0"), ("HTTP+JSON", "1.0"), ("JSONRPC", "0.3"), ("HTTP+JSON", "0.3")}
    assert served["capabilities"]["streaming"] is True
    assert served["skills"] == CARD["skills"]  # the rest of the card as written
    assert CARD["capabilities"]["streaming"] is False  # the card given is not changed


def test_a_v03_shaped_card_is_reached_on_the_stub_only() -> None:
    from urllib.parse import urlsplit

    from refusal_lint.live import probe as prober

    v03 = {
        "name": "Old Survey Analyst",
        "url": "https://agents.example.com/rpc",
        "preferredTransport": "JSONRPC",
        "protocolVersion": "0.3.0",
        "additionalInterfaces": [{"url": "https://agents.example.com/rest", "transport": "HTTP+JSON"}],
        "capabilities": {"extensions": [{"uri": URI, "params": RULES}]},
    }
    served = core.stub_card(v03).served("http://127.0.0.1:5001")
    found = prober.interfaces(served, urlsplit("http://elsewhere.invalid"))
    assert {urlsplit(i.url).path for i in found} == {"/a2a", "/"}  # none of the card's own paths
    assert {(i.binding, i.version) for i in found} >= {("JSONRPC", "0.3"), ("HTTP+JSON", "0.3")}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "not an AgentCard"),
        ({"name": "x"}, "no `capabilities` object"),
        ({"name": "x", "capabilities": {"extensions": []}}, "advertises no refusal rules"),
        ({"Seg_Mix": "Reason."}, "not kebab-case"),
        ({"seg-mix": "Two\nlines."}, "not one non-blank line"),
        ({"seg-mix": 3}, "not one non-blank line"),
    ],
)
def test_bad_cards_are_one_line_usage_errors(data: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        core.stub_card(data)


def test_rule_for_must_name_a_card_rule() -> None:
    assert core.rule_for_option("a=b=invalid-cut") == ("a=b", "invalid-cut")
    with pytest.raises(UsageError, match="TEXT=RULE"):
        core.rule_for_option("zodiac")
    with pytest.raises(UsageError, match="no rule `geo-drill`"):
        core.stub_card(CARD, [("zodiac", "geo-drill")])


def test_credentials_are_never_recorded() -> None:
    shown = core.shown_headers({"Authorization": "Bearer s3cret", "X-Api-Token": "t0k", "A2A-Version": "1.0"})
    assert shown == {"authorization": core.REDACTED, "x-api-token": core.REDACTED, "a2a-version": "1.0"}
    # Vendors' key headers too.
    vendors = ("X-Goog-Api-Key", "apikey", "Ocp-Apim-Subscription-Key", "X-Auth-Key", "X-Session-Id")
    assert set(core.shown_headers(dict.fromkeys(vendors, "s3cret")).values()) == {core.REDACTED}
    assert core.shown_headers({"Content-Type": "application/json"}) == {"content-type": "application/json"}


def _recorder() -> core.Recorder:
    return core.Recorder(core.stub_card(CARD), "http://stub")


def test_unchanged_retry_is_rl501_and_a_changed_one_is_not() -> None:
    rec = _recorder()
    rec.card_fetch("/.well-known/agent-card.json", {})
    first = [{"text": "Cross polaris by ideology"}]
    rec.message("SendMessage", "/a2a", "1.0", {}, first)
    rec.message("SendMessage", "/a2a", "1.0", {}, [{"text": "Polaris only, then"}])
    assert rec.faults == []
    again, _ = rec.message("message/send", "/a2a", "0.3", {}, [dict(p) for p in first])
    [fault] = rec.faults
    assert (fault.code, fault.rule_id, fault.loc.path, again.retry_of) == (
        "RL501",
        "seg-mix",
        "http://stub/a2a",
        2,
    )
    assert "request 4 (message/send)" in fault.message and "request 2 (SendMessage)" in fault.message
    record = rec.record()
    assert record["summary"] == {"requests": 4, "refused": 3, "errors": 1}
    assert [f["code"] for f in record["findings"]] == ["RL501"]
    assert [r["kind"] for r in record["requests"]] == ["", "send", "send", "send"]


# Every binding's and version's name for the two kinds of send (DESIGN §8's plain and streaming).
SENDS = ("SendMessage", "message/send", "POST /message:send", "POST /v1/message:send")
STREAMS = ("SendStreamingMessage", "message/stream", "POST /message:stream", "POST /v1/message:stream")


@pytest.mark.parametrize(("plain", "streaming"), list(zip(SENDS, STREAMS, strict=True)))
def test_the_same_parts_over_the_other_method_kind_are_not_a_retry(plain: str, streaming: str) -> None:
    rec = _recorder()
    parts = [{"text": "Cross polaris by ideology"}]
    rec.message(plain, "/a2a", "1.0", {}, parts)
    streamed, _ = rec.message(streaming, "/a2a", "1.0", {}, [dict(p) for p in parts])
    assert (rec.faults, streamed.retry_of, streamed.kind) == ([], None, "stream")
    # ... and each kind's own repeat is one RL501, naming the request of its own kind.
    again, _ = rec.message(streaming, "/a2a", "1.0", {}, parts)
    plain_again, _ = rec.message(plain, "/a2a", "1.0", {}, parts)
    assert (again.retry_of, plain_again.retry_of) == (2, 1)
    assert [f.code for f in rec.faults] == ["RL501", "RL501"]


def test_every_binding_names_its_sends_and_streams() -> None:
    assert {core.method_kind(m) for m in SENDS} == {"send"}
    assert {core.method_kind(m) for m in STREAMS} == {"stream"}


_PART = st.sampled_from([{"text": "a"}, {"text": "b"}, {"data": {"k": 1}}, {"text": "seg-mix"}])
_METHOD = st.sampled_from(SENDS + STREAMS)


@given(st.lists(st.tuples(_METHOD, st.lists(_PART, max_size=3)), max_size=8))
def test_one_fault_for_each_call_seen_before(calls: list[tuple[str, list[dict[str, Any]]]]) -> None:
    rec = _recorder()
    for method, parts in calls:
        rec.message(method, "/a2a", "1.0", {}, parts)
    seen = [(core.method_kind(m), parts) for m, parts in calls]
    repeats = sum(call in seen[:i] for i, call in enumerate(seen))
    assert len(rec.faults) == repeats
    assert all(f.code == "RL501" for f in rec.faults)


# ---- the conformance library's consumer side, and the text-only answer (RL404) ----------------


def test_render_text_is_the_one_line_a_plain_client_shows() -> None:
    refusal = rc.find_refusal(
        [{"text": SEG}, {"data": {"rule": "seg-mix", "reason": SEG}, "mediaType": MEDIA}]
    )
    assert refusal is not None
    assert rc.render_text(refusal) == f"Refused (seg-mix): {SEG}"
    assert "render_text" in rc.__all__


@pytest.mark.parametrize(
    ("answer", "rule", "code"),
    [
        ([{"text": SEG}], "seg-mix", "RL404"),  # the probed rule's reason, no data Part
        (
            {"jsonrpc": "2.0", "id": 1, "result": {"message": {"parts": [{"text": f"  {SEG} "}]}}},
            None,
            "RL404",
        ),
        ([{"kind": "text", "text": CUT}], None, "RL404"),  # v0.3: no RL408 on top
        ([{"text": CUT}], "seg-mix", "RL402"),  # another rule's reason: not the probed rule's refusal
        ([{"text": "Polaris by ideology: 41%."}], None, "RL402"),  # no reason of the card at all
    ],
)
def test_text_only_refusal_lost_its_data_part(answer: Any, rule: str | None, code: str) -> None:
    assert [f.code for f in rc.judge(answer, CARD, rule=rule)] == [code]
    with pytest.raises(AssertionError, match=f"{code} .*(lost|data Part|normal answer)"):
        rc.assert_refusal(answer, CARD, rule=rule)


def test_probe_judges_a_text_only_agent_rl404(refusal_probe: Any) -> None:
    import importlib.util

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location(
        "survey_server", ROOT / "tests" / "agents" / "survey_server.py"
    )
    assert spec is not None and spec.loader is not None
    server = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(server)
    found = refusal_probe(server.build_app(0, "no-data"), PROBES)
    assert [(f.code, f.rule_id) for f in found] == [("RL404", "invalid-cut"), ("RL404", "seg-mix")]


# ---- our own probe against the stub: every binding and version, plain and streaming -----------

_METHODS = {
    (None, "1.0"): ["SendMessage", "SendStreamingMessage"],
    ("http-json", "1.0"): ["POST /message:send", "POST /message:stream"],
    (None, "0.3"): ["message/send", "message/stream"],
    ("http-json", "0.3"): ["POST /v1/message:send", "POST /v1/message:stream"],
}


@pytest.mark.parametrize(
    ("binding", "version"),
    list(_METHODS),
    ids=["jsonrpc-1.0", "http-json-1.0", "jsonrpc-0.3", "http-json-0.3"],
)
@pytest.mark.refusing_agent(rule_for=RULE_FOR)
def test_probe_finds_nothing_wrong_with_the_stub(
    refusal_probe: Any, refusing_agent: Any, binding: str | None, version: str
) -> None:
    found = refusal_probe(refusing_agent.app, PROBES, protocol=version, binding=binding)
    # No RL408 on v0.3 either: the stub sends the media type in the Part's metadata, so the
    # refusal Part is known by it, not by its keys (DESIGN §8).
    assert sorted((f.code, f.rule_id) for f in found) == []
    sent = refusing_agent.messages
    assert [r.method for r in sent] == _METHODS[binding, version] * 2  # plain, then streaming, per rule
    assert [r.rule for r in sent] == ["seg-mix", "seg-mix", "invalid-cut", "invalid-cut"]
    assert {r.version for r in sent} == {version}
    assert all(r.extension_active for r in sent)
    # The probe asks each rule a second time over streaming (DESIGN §8): another method
    # kind, so not a retry of the plain send; the probe never retries (consumer requirement 2).
    assert [r.kind for r in sent] == ["send", "stream"] * 2
    assert refusing_agent.faults == []
    refusing_agent.assert_no_unchanged_retry()
    assert (
        rc.judge(_post_message(refusing_agent, "By zodiac sign?"), refusing_agent.card, "invalid-cut") == []
    )


def _post_message(agent: Any, text: str, extension: bool = True) -> Any:
    """A v1.0 SendMessage, as a minimal JSON-RPC client writes it."""
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    headers = {"A2A-Version": "1.0", **({"A2A-Extensions": URI} if extension else {})}
    return agent.client().post("/a2a", json=body, headers=headers).json()


@pytest.mark.refusing_agent(card=CARD)
def test_both_parts_whether_or_not_the_extension_is_activated(refusing_agent: Any) -> None:
    plain = _post_message(refusing_agent, "Cross polaris by ideology", extension=False)
    aware = _post_message(refusing_agent, "Cross polaris by ideology, please", extension=True)
    for answer in (plain, aware):
        assert "result" in answer and "error" not in answer
        assert rc.judge(answer, CARD, rule="seg-mix") == []
        assert answer["result"]["message"]["extensions"] == [URI]
    assert [r.extension_active for r in refusing_agent.messages] == [False, True]


@pytest.mark.refusing_agent(card=CARD)
def test_a_follow_up_in_the_refusals_task_is_refused_too(refusing_agent: Any) -> None:
    """A multi-turn client continues the task the refusal named (or one the stub never
    saw): refused as any message is, never the SDK's "task not found" error."""
    first = _post_message(refusing_agent, "Cross polaris by ideology")["result"]["message"]
    for task in (first["taskId"], "no-such-task"):
        message = {
            "messageId": str(uuid.uuid4()),
            "role": "ROLE_USER",
            "contextId": first["contextId"],
            "taskId": task,
            "parts": [{"text": "Then polaris by ideology for 2025"}],
        }
        body = {"jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": {"message": message}}
        answer = refusing_agent.client().post("/a2a", json=body, headers={"A2A-Version": "1.0"}).json()
        assert "error" not in answer, answer
        assert rc.judge(answer, CARD, rule="seg-mix") == []


# ---- the a2a-sdk's own client against the stub -------------------------------------------------


async def _sdk_ask(agent: Any, text: str, binding: str, streaming: bool, version: str) -> list[Any]:
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
    from a2a.helpers.proto_helpers import new_message, new_text_part
    from a2a.types import Role, SendMessageRequest

    async with agent.async_client() as http:
        card = await A2ACardResolver(http, agent.url).get_agent_card()
        kept = [i for i in card.supported_interfaces if i.protocol_version == version]
        del card.supported_interfaces[:]
        card.supported_interfaces.extend(kept)  # the SDK picks the newest: leave it one version
        config = ClientConfig(streaming=streaming, httpx_client=http, supported_protocol_bindings=[binding])
        client = ClientFactory(config).create(card)
        request = SendMessageRequest(message=new_message([new_text_part(text)], role=Role.ROLE_USER))
        return [event async for event in client.send_message(request)]


@pytest.mark.parametrize("streaming", [False, True], ids=["plain", "streaming"])
@pytest.mark.parametrize(
    ("binding", "version", "method"),
    [
        ("JSONRPC", "1.0", "SendMessage"),
        ("HTTP+JSON", "1.0", "POST /message:send"),
        ("JSONRPC", "0.3", "message/send"),
        ("HTTP+JSON", "0.3", "POST /v1/message:send"),
    ],
)
@pytest.mark.refusing_agent(card=CARD, rule_for=RULE_FOR)
def test_a2a_sdk_client_gets_a_conforming_refusal(
    refusing_agent: Any, binding: str, version: str, method: str, streaming: bool
) -> None:
    events = asyncio.run(
        _sdk_ask(refusing_agent, "Break it down by zodiac sign.", binding, streaming, version)
    )
    refusal = rc.assert_refusal(events, refusing_agent.card, rule="invalid-cut")  # the SDK's own objects
    assert rc.render_text(refusal) == f"Refused (invalid-cut): {CUT}"
    assert "`zodiac`" in (refusal.detail or "")
    [sent] = refusing_agent.messages
    streamed = {"SendMessage": "SendStreamingMessage", "message/send": "message/stream"}
    want = (streamed.get(method) or method.replace(":send", ":stream")) if streaming else method
    assert (sent.method, sent.version, sent.rule) == (want, version, "invalid-cut")
    assert sent.parts == ({"text": "Break it down by zodiac sign."},)
    refusing_agent.assert_no_unchanged_retry()


@pytest.mark.refusing_agent(card=CARD)
def test_a2a_sdk_client_that_retries_unchanged_is_rl501(refusing_agent: Any) -> None:
    async def twice() -> None:
        for _ in range(2):
            await _sdk_ask(refusing_agent, "Cross seg-mix anyway", "JSONRPC", False, "1.0")

    asyncio.run(twice())
    with pytest.raises(AssertionError, match=r"RL501 \[seg-mix\] request 4 \(SendMessage\)"):
        refusing_agent.assert_no_unchanged_retry()
    assert len(refusing_agent.faults) == 1


@pytest.mark.parametrize("streaming", [False, True], ids=["plain", "streaming"])
@pytest.mark.refusing_agent(card=CARD)
def test_a2a_sdk_client_retrying_over_the_same_kind_only_is_rl501(
    refusing_agent: Any, streaming: bool
) -> None:
    async def ask(stream: bool) -> None:
        await _sdk_ask(refusing_agent, "Cross seg-mix anyway", "HTTP+JSON", stream, "1.0")

    async def calls() -> None:
        await ask(streaming)
        await ask(not streaming)  # the same parts, the other kind: not a retry
        await ask(streaming)  # the first call again: a retry

    asyncio.run(calls())
    kinds = [r.kind for r in refusing_agent.messages]
    assert kinds == (["stream", "send", "stream"] if streaming else ["send", "stream", "send"])
    [fault] = refusing_agent.faults
    assert fault.code == "RL501" and [r.retry_of for r in refusing_agent.messages] == [None, None, 2]


# ---- the fixture, as a workbench author uses it (a test file of theirs, run by pytest) ---------

WORKBENCH_TESTS = '''
import uuid

import httpx
import pytest

from refusal_lint import conformance as rc

URI = "https://standards.upperhandai.com/ext/refusals/v1"


def ask(url, text, http):
    """The workbench: read the card, send over its JSON-RPC interface, show the answer."""
    card = http.get(url + "/.well-known/agent-card.json").json()
    rpc = next(i["url"] for i in card["supportedInterfaces"] if i["protocolBinding"] == "JSONRPC")
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    answer = http.post(rpc, json=body, headers={"A2A-Version": "1.0", "A2A-Extensions": URI}).json()
    refusal = rc.find_refusal(answer)
    return rc.render_text(refusal) if refusal else answer["result"]["message"]["parts"][0]["text"]


pytestmark = pytest.mark.refusing_agent(card=CARD_PATH, rule_for={"zodiac": "invalid-cut"})


def test_refusals_are_shown_naming_the_rule(refusing_agent):
    http = refusing_agent.client()
    assert ask(refusing_agent.url, "Break it down by zodiac sign", http) == "Refused (invalid-cut): " + CUT
    assert ask(refusing_agent.url, "Polaris by ideology, as seg-mix", http) == "Refused (seg-mix): " + SEG
    methods = [r.method for r in refusing_agent.requests]
    assert methods[:2] == ["GET /.well-known/agent-card.json", "SendMessage"]
    refusing_agent.assert_no_unchanged_retry()


@pytest.mark.refusing_agent(card=CARD_PATH, loopback=True)
def test_on_a_loopback_port(refusing_agent):
    assert refusing_agent.url.startswith("http://127.0.0.1:")
    with httpx.Client() as http:  # any client: it listens
        assert ask(refusing_agent.url, "anything", http).startswith("Refused (seg-mix): ")
    refusing_agent.assert_no_unchanged_retry()


def test_a_workbench_that_retries_is_caught(refusing_agent):
    http = refusing_agent.client()
    for _ in range(2):  # "maybe it works this time"
        ask(refusing_agent.url, "Break it down by zodiac sign", http)
    refusing_agent.assert_no_unchanged_retry()
'''


def _pytest(folder: Path, test_file: str) -> subprocess.CompletedProcess[str]:
    """Run a test file as its author does: pytest, with our plugin from its entry point."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_fixture_in_a_workbench_authors_tests(tmp_path: Path) -> None:
    card = tmp_path / "agent-card.yaml"
    card.write_text(json.dumps(CARD))  # YAML or JSON: both are read
    head = f"CARD_PATH = {str(card)!r}\nSEG = {SEG!r}\nCUT = {CUT!r}\n"
    (tmp_path / "test_workbench.py").write_text(head + WORKBENCH_TESTS)
    done = _pytest(tmp_path, "test_workbench.py")
    assert "1 failed, 2 passed" in done.stdout, done.stdout + done.stderr
    assert "the client retried a refused request unchanged" in done.stdout
    # each ask fetches the card first: request 4 repeats request 2
    assert "RL501 [invalid-cut] request 4 (SendMessage)" in done.stdout


def test_fixture_marker_rejects_unknown_options(tmp_path: Path) -> None:
    (tmp_path / "test_bad.py").write_text(
        "import pytest\n\n@pytest.mark.refusing_agent(cards='x')\ndef test_x(refusing_agent):\n    pass\n"
    )
    done = _pytest(tmp_path, "test_bad.py")
    assert done.returncode != 0 and "unknown option(s) cards" in done.stdout + done.stderr


# ---- the command line's bad input (the running stub: tests/test_stub_process.py) ---------------


def test_cli_stub_bad_input_is_exit_2_with_one_line(tmp_path: Path) -> None:
    missing = run_cli("stub", str(tmp_path / "nope.json"))
    assert missing.exit_code == 2 and "cannot read the card" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    broken = run_cli("stub", str(bad))
    assert broken.exit_code == 2 and "not valid JSON/YAML" in broken.stderr
    card = tmp_path / "card.json"
    card.write_text(json.dumps(CARD))
    unknown = run_cli("stub", str(card), "--rule-for", "zodiac=geo-drill")
    assert unknown.exit_code == 2 and "no rule `geo-drill`" in unknown.stderr
    nowhere = run_cli("stub", str(card), "--record", str(tmp_path / "no" / "such" / "dir.json"))
    assert nowhere.exit_code == 2 and "cannot write the record" in nowhere.stderr
    for result in (missing, broken, unknown, nowhere):
        assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr


def test_cli_stub_port_taken_is_exit_2(tmp_path: Path) -> None:
    import socket

    card = tmp_path / "card.json"
    card.write_text(json.dumps(CARD))
    with socket.socket() as held:  # a port we hold (bound, listening): known taken, not guessed
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        taken = run_cli("stub", str(card), "--port", str(port))
    assert taken.exit_code == 2 and f"cannot listen on 127.0.0.1:{port}" in taken.stderr


def test_rules_list_rl501() -> None:
    listed = run_cli("rules")
    assert "RL501   retried-unchanged" in listed.stdout
    explained = run_cli("rule", "RL501")
    assert explained.exit_code == 0 and "consumer requirement 2" in explained.stdout
