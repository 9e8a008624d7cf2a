"""The probe against answers real agents send that the a2a-sdk test agent does not: a
compressed body, an error or a plain JSON answer to the streaming request, a stream ending
with the whole Task (tests/fake_agent.py writes each on the wire as it is)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from fake_agent import MEDIA, PARTS, PROBES, RULES, SEG, FakeAgent, card, result, serve, sse, streaming

from refusal_lint.live import inprocess
from refusal_lint.live import probe as prober


def _found(
    agent: FakeAgent, url: str | None = None, protocol: str | None = None, **reach: Any
) -> list[tuple[str, str | None, str]]:
    """(code, rule, message) of each finding: over the network when `url` is given, else in process."""
    # The probe's client closes the transport (and the app's loop) as it ends.
    transport = None if url is not None else inprocess.transport_for(agent)
    done = prober.probe(
        url or inprocess.BASE_URL, PROBES, protocol, 5.0, transport=transport, reach=prober.Reach(**reach)
    )
    return [(f.code, f.rule_id, f.message) for f in sorted(done.findings, key=lambda f: f.sort_key())]


def _refusing(request: dict[str, Any], headers: dict[str, str]) -> Any:
    message = {"messageId": "m1", "role": "ROLE_AGENT", "parts": PARTS}
    if streaming(request):
        final = {
            "taskId": "t1",
            "final": True,
            "status": {"state": "TASK_STATE_COMPLETED", "message": message},
        }
        return sse(request, {"statusUpdate": final})
    return result(request, {"message": message})


def test_a_gzip_compressing_agent_is_read_once_decoded() -> None:
    """Starlette's GZipMiddleware, nginx's `gzip on`: the card and the answers come compressed
    (the probe accepts gzip, as httpx does), never an RL400 "error while decompressing"."""
    agent = FakeAgent(card(streaming=True), _refusing, gzip=True)
    assert _found(agent) == []
    with serve(agent) as url:
        assert _found(agent, url) == []


def _error(request: dict[str, Any], headers: dict[str, str]) -> Any:
    """What the a2a-sdk sends when the executor raises, on either method: HTTP 200 and a
    JSON-RPC error envelope, no event stream."""
    return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32602, "message": "Not that cut."}}


def _whole(request: dict[str, Any], headers: dict[str, str]) -> Any:
    """The streaming request answered as the plain one is: the whole result as JSON."""
    return result(request, {"message": {"messageId": "m1", "role": "ROLE_AGENT", "parts": PARTS}})


def test_a_streaming_request_answered_without_a_stream_is_judged_as_the_plain_one() -> None:
    """DESIGN §8: streaming answers are "judged by the same codes": a refusal raised as an
    error is RL401 there too, and a whole result as JSON is an answer, not "the stream ended"."""
    found = _found(FakeAgent(card(streaming=True), _error))
    assert [(code, rule) for code, rule, _ in found] == [("RL401", "seg-mix"), ("RL401", "seg-mix")]
    assert sorted(message.endswith("(streaming)") for _, _, message in found) == [False, True]
    assert all("Not that cut." in message for _, _, message in found)
    assert _found(FakeAgent(card(streaming=True), _whole)) == []


def _snapshot(request: dict[str, Any], headers: dict[str, str]) -> Any:
    """A stream of the Task, its artifact, then the whole Task again (with that artifact)."""
    if not streaming(request):
        return _refusing(request, headers)
    artifact = {"artifactId": "a1", "parts": PARTS}
    return sse(
        request,
        {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_SUBMITTED"}}},
        {"artifactUpdate": {"taskId": "t1", "contextId": "c1", "artifact": artifact}},
        {
            "task": {
                "id": "t1",
                "contextId": "c1",
                "status": {"state": "TASK_STATE_COMPLETED"},
                "artifacts": [artifact],
            }
        },
    )


def test_a_stream_ending_with_the_whole_task_is_no_rl407() -> None:
    assert _found(FakeAgent(card(streaming=True), _snapshot)) == []


def _typed_json(request: dict[str, Any], headers: dict[str, str]) -> Any:
    """A v0.3 message whose data Part says it is application/json (in its metadata)."""
    data = {
        "kind": "data",
        "data": {"rule": "seg-mix", "reason": SEG},
        "metadata": {"mimeType": "application/json"},
    }
    return result(
        request,
        {
            "kind": "message",
            "messageId": "m1",
            "role": "agent",
            "parts": [{"kind": "text", "text": SEG}, data],
        },
    )


def test_a_v03_data_part_of_another_media_type_is_rl404() -> None:
    """As the conformance library judges it (D5): not a refusal recognised by its keys."""
    found = _found(FakeAgent(card(), _typed_json), protocol="0.3")
    assert [(code, rule) for code, rule, _ in found] == [("RL404", "seg-mix")]


def _v03(metadata: dict[str, str] | None) -> Any:
    def answer(request: dict[str, Any], headers: dict[str, str]) -> Any:
        data: dict[str, Any] = {"kind": "data", "data": {"rule": "seg-mix", "reason": SEG}}
        if metadata is not None:
            data["metadata"] = metadata
        parts = [{"kind": "text", "text": SEG}, data]
        return result(request, {"kind": "message", "messageId": "m1", "role": "agent", "parts": parts})

    return answer


def test_rl408_only_for_a_v03_part_known_by_its_keys() -> None:
    """DESIGN §8 ties RL408 to a refusal Part recognised by its keys: one whose media type
    travelled in its metadata (the code's own fix) gets no note, and the note says how it was."""
    assert _found(FakeAgent(card(), _v03({"mediaType": MEDIA})), protocol="0.3") == []
    [(code, rule, message)] = _found(FakeAgent(card(), _v03(None)), protocol="0.3")
    assert (code, rule) == ("RL408", "seg-mix")
    assert "recognised by its keys" in message
    # A v1.0-shaped answer probed as v0.3 carries its mediaType: known by it, no note.
    assert _found(FakeAgent(card(), _refusing), protocol="0.3") == []


TOKEN = "tok-SECRET-123"
FORMATS = ("text", "json", "sarif", "github", "markdown", "gitlab", "junit", "rdjson", "azure")


def _echo(request: dict[str, Any], headers: dict[str, str]) -> Any:
    """An auth middleware that quotes what it was sent: the header whole, and its credential."""
    sent = headers.get("authorization", "")
    message = f"token expired: {sent} (credential {sent.partition(' ')[2]})"
    return 401, "application/json", json.dumps({"error": {"code": 401, "message": message}}).encode()


def test_header_values_and_url_passwords_are_never_shown(tmp_path: Path) -> None:
    """DESIGN §8: --header values are never printed or written to a report, not even where
    the agent echoes them back (RL401's message quotes the error); nor is a URL's password,
    which still reaches the agent, as Basic auth."""
    probes = tmp_path / "probes.yaml"
    probes.write_text(json.dumps(PROBES))
    secret = "hunter2pw"
    basic = base64.b64encode(f"alice:{secret}".encode()).decode()
    with serve(FakeAgent(card(), _echo)) as url:
        for fmt in FORMATS:
            out = tmp_path / f"report.{fmt}"
            args = ("--probes", str(probes), "--format", fmt, "--exit-zero")
            shown = run_cli("probe", url, *args, "--header", f"Authorization: Bearer {TOKEN}", "-o", str(out))
            assert shown.exit_code == 0, shown.output
            assert TOKEN not in shown.output + out.read_text(), fmt
            userinfo = url.replace("http://", f"http://alice:{secret}@")
            shown = run_cli("probe", userinfo, *args)
            assert shown.exit_code == 0, shown.output
            assert secret not in shown.output and basic not in shown.output, fmt
        done = run_cli(
            "probe",
            url,
            "--probes",
            str(probes),
            "--format",
            "json",
            "--header",
            f"Authorization: Bearer {TOKEN}",
        )
        [finding] = json.loads(done.stdout)["findings"]
        assert finding["code"] == "RL401"
        assert (
            finding["message"]
            == "the refusal came back as an error (HTTP 401; or the agent wants credentials: --header):"
            " token expired: *** (credential ***)"
        )
        # The password reached the agent (as Basic auth): the agent's echo of it is masked.
        done = run_cli(
            "probe",
            url.replace("http://", f"http://alice:{secret}@"),
            "--probes",
            str(probes),
            "--format",
            "json",
        )
        [finding] = json.loads(done.stdout)["findings"]
        assert finding["message"].endswith("token expired: Basic *** (credential ***)")
        assert finding["path"] == url.replace("http://", "http://alice@") + "/a2a"


def test_binding_asked_that_the_card_does_not_offer() -> None:
    """--binding http-json against a JSON-RPC-only card: one RL400 at the card saying so,
    not that the agent speaks what the probe does not."""
    found = _found(FakeAgent(card(), _refusing), binding="http-json")
    assert found == [
        (
            "RL400",
            None,
            "the card offers no HTTP+JSON interface (asked by --binding http-json); it offers JSONRPC",
        )
    ]
    assert _found(FakeAgent(card(), _refusing), binding="jsonrpc") == []


def test_a_probe_report_says_what_a_probe_knows(tmp_path: Path) -> None:
    """A probe reads no prompt and no guard: its markdown (a PR comment, a job summary)
    never calls them missing nor gives config advice; it shows each card rule and what
    probing it found. Its JSON keeps the contract's types: no prompt, empty lists."""
    probes = tmp_path / "probes.yaml"
    probes.write_text(json.dumps(PROBES))
    rules = {**RULES, "invalid-cut": "That demographic cut is not defined for this study."}
    with serve(FakeAgent(card(rules=rules), _refusing)) as url:
        md = run_cli("probe", url, "--probes", str(probes), "--format", "markdown")
        data = json.loads(run_cli("probe", url, "--probes", str(probes), "--format", "json").stdout)
    assert md.exit_code == 0, md.output
    assert "missing" not in md.stdout and "prompt" not in md.stdout.lower()
    assert "| rule | card | probe |" in md.stdout
    assert f"| `seg-mix` | {url}/.well-known/agent-card.json:1 | ✓ refused as advertised |" in md.stdout
    assert f"| `invalid-cut` | {url}/.well-known/agent-card.json:1 | not probed |" in md.stdout
    [agent] = data["agents"]
    assert (agent["prompt"], agent["prompts"]) == (None, [])
    assert {r: (v["prompt"], v["guards"]) for r, v in agent["rules"].items()} == {
        "seg-mix": ([], []),
        "invalid-cut": ([], []),
    }


def _working(request: dict[str, Any], headers: dict[str, str]) -> Any:
    """A task left running: no Parts, no refusal, nothing fabricated either."""
    return result(
        request, {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}
    )


def test_what_the_probe_tells_beside_the_code(tmp_path: Path) -> None:
    """RL402 for a task still under way says so; a probe for a rule the card does not
    advertise says that (a stale probes file)."""
    [(code, rule, message)] = _found(FakeAgent(card(), _working))
    assert (code, rule) == ("RL402", "seg-mix")
    assert (
        message
        == "the answer is a task still TASK_STATE_WORKING, with no refusal: the rule should refuse in it"
    )
    stale = {**PROBES, "geo-drill": "Drill down to ZIP codes."}
    done = prober.probe(
        inprocess.BASE_URL, stale, None, 5.0, transport=inprocess.transport_for(FakeAgent(card(), _refusing))
    )
    [finding] = done.findings
    assert (finding.code, finding.rule_id) == ("RL402", "geo-drill")
    assert finding.message.endswith("(`geo-drill` is not a rule the card advertises)")


def test_the_cards_own_url_is_taken_as_the_cards(tmp_path: Path) -> None:
    """`probe URL/.well-known/agent-card.json`: the card is read there, not at
    `.../agent-card.json/.well-known/agent-card.json` (a 404)."""
    probes = tmp_path / "probes.yaml"
    probes.write_text(json.dumps(PROBES))
    with serve(FakeAgent(card(), _refusing)) as url:
        for given in (f"{url}/.well-known/agent-card.json", f"{url}/.well-known/agent-card.json/"):
            done = run_cli("probe", given, "--probes", str(probes), "--format", "json")
            data = json.loads(done.stdout)
            assert (done.exit_code, data["findings"]) == (0, []), done.output
            assert data["agents"][0]["card"]["path"] == f"{url}/.well-known/agent-card.json"
        text = run_cli("probe", f"{url}/.well-known/agent.json", "--probes", str(probes))
        assert text.stdout.startswith(f"probed {url}/.well-known/agent-card.json over A2A 1.0")
