"""`refusal-lint stub` as a real process on a real socket: it binds port 0 itself and prints
its URL once listening (nothing is guessed), is probed and spoken to over the network, and
is ended with SIGINT or SIGTERM; its report at exit, its --record and its exit status.

These start processes and servers; they are written to be run many times in a row
(`for i in $(seq 20); do python -m pytest -q tests/test_stub_process.py || break; done`)."""

from __future__ import annotations

import asyncio
import json
import select
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import run_cli

from refusal_lint import conformance as rc

pytest.importorskip("a2a")

URI = "https://standards.upperhandai.com/ext/refusals/v1"
SEG = "Segmentation families cannot be crossed; ask for one family per cut."
CUT = "That demographic cut is not defined for this study."
CARD = {
    "name": "Survey Analyst",
    "description": "Crosstabs.",
    "version": "1.0.0",
    "capabilities": {
        "extensions": [{"uri": URI, "required": False, "params": {"seg-mix": SEG, "invalid-cut": CUT}}]
    },
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [],
}
START_TIMEOUT = 60.0  # bounded: a stub that never says its URL fails the test, it does not hang it


class Stub:
    def __init__(self, proc: subprocess.Popen[bytes], url: str) -> None:
        self.proc, self.url = proc, url
        self.stdout = self.stderr = ""
        self.status: int | None = None

    def stop(self, sig: signal.Signals) -> None:
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=30)
        self.stdout, self.stderr, self.status = out.decode(), err.decode(), self.proc.returncode


@contextmanager
def stub(tmp_path: Path, *args: str, card_data: Any = CARD) -> Iterator[Stub]:
    card = tmp_path / "card.json"
    card.write_text(json.dumps(card_data))
    proc = subprocess.Popen(
        [sys.executable, "-m", "refusal_lint", "stub", str(card), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT)
        line = proc.stdout.readline().decode().strip() if ready else ""
        assert line.startswith("http://127.0.0.1:"), f"the stub did not say its URL: {line!r}"
        yield Stub(proc, line)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)


def _send(url: str, text: str) -> Any:
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    headers = {"A2A-Version": "1.0", "A2A-Extensions": URI, "Authorization": "Bearer s3cret"}
    with httpx.Client(timeout=10) as http:
        return http.post(url + "/a2a", json=body, headers=headers).json()


def test_client_retrying_unchanged_is_one_rl501_at_exit_and_in_the_record(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    with stub(tmp_path, "--rule-for", "zodiac=invalid-cut", "--record", str(record)) as s:
        for _ in range(2):  # one refused message, sent twice unchanged
            answer = _send(s.url, "Break it down by zodiac sign.")
            rc.assert_refusal(answer, CARD, rule="invalid-cut")
        s.stop(signal.SIGINT)
    assert s.status == 1, s.stdout + s.stderr
    lines = s.stdout.splitlines()  # after the URL line, which `stub` read
    assert lines[0] == "refusal-lint stub: 2 request(s), 2 refused"
    faults = [line for line in lines if " RL501 " in line]
    assert faults == [
        f"{s.url}/a2a:1:1: RL501 [invalid-cut] request 2 (SendMessage) sent again, unchanged, "
        "the message of request 1 (SendMessage), which was refused with rule `invalid-cut`"
    ]
    assert lines[-1] == "Found 1 error and 0 warnings."
    assert "Traceback" not in s.stderr
    data = json.loads(record.read_text())
    assert [(f["code"], f["rule_id"]) for f in data["findings"]] == [("RL501", "invalid-cut")]
    assert [r["retry_of"] for r in data["requests"]] == [None, 1]
    assert data["requests"][0]["headers"]["authorization"] == "<redacted>"
    assert "s3cret" not in record.read_text() + s.stdout + s.stderr


def test_client_changing_its_request_is_no_fault(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    with stub(tmp_path, "--record", str(record)) as s:
        first = rc.find_refusal(_send(s.url, "Cross polaris by ideology."))
        assert first is not None and rc.render_text(first) == f"Refused (seg-mix): {SEG}"
        _send(s.url, "Polaris only, then.")  # changed after the refusal: allowed
        s.stop(signal.SIGTERM)
    assert s.status == 0, s.stdout + s.stderr
    assert s.stdout.splitlines() == ["refusal-lint stub: 2 request(s), 2 refused", "All checks passed!"]
    data = json.loads(record.read_text())
    assert data["findings"] == [] and data["summary"] == {"requests": 2, "refused": 2, "errors": 0}


def test_the_rule_of_a_message_over_the_network(tmp_path: Path) -> None:
    """Ids sharing a prefix (`pii`, `pii-export`): a message naming `pii-export` is refused
    with it, an id counting only as a whole token; a --rule-for text comes before the ids."""
    params = {"pii": "No personal data.", "pii-export": "No exports of personal data.", "seg-mix": SEG}
    asked = {
        "Please do a pii-export of the list": "pii-export",
        "seg-mix or pii-export?": "pii-export",
        "Is seg-mixing allowed?": "pii",
        "A pii-export of the mailing list": "seg-mix",
    }
    got = {}
    with stub(tmp_path, "--rule-for", "Mailing List=seg-mix", card_data=params) as s:
        for text in asked:
            refusal = rc.find_refusal(_send(s.url, text))
            got[text] = refusal.rule if refusal else None
        s.stop(signal.SIGTERM)
    assert got == asked
    assert s.status == 0, s.stdout + s.stderr


@pytest.mark.parametrize(
    ("binding", "version"),
    [("jsonrpc", "1.0"), ("http-json", "1.0"), ("jsonrpc", "0.3"), ("http-json", "0.3")],
)
def test_probe_over_the_network_every_binding_and_version(tmp_path: Path, binding: str, version: str) -> None:
    probes = tmp_path / "probes.yaml"
    probes.write_text('seg-mix: "Cross polaris by ideology."\ninvalid-cut: "By zodiac sign."\n')
    with stub(tmp_path, "--rule-for", "zodiac=invalid-cut") as s:
        probed = run_cli(
            "probe",
            s.url,
            "--probes",
            str(probes),
            "--format",
            "json",
            "--binding",
            binding,
            "--protocol",
            version,
        )
        s.stop(signal.SIGTERM)
    assert probed.exit_code == 0, probed.output
    codes = sorted(
        (f["code"], f["rule_id"], "(streaming)" in f["message"])
        for f in json.loads(probed.stdout)["findings"]
    )
    # No RL408 on v0.3 either: the stub's Parts carry the media type in their metadata.
    assert codes == []
    # The probe asks each rule plainly, then streaming: two method kinds, no retry, exit 0.
    assert s.status == 0, s.stdout + s.stderr
    assert s.stdout.splitlines() == ["refusal-lint stub: 5 request(s), 4 refused", "All checks passed!"]


def test_a2a_sdk_client_streaming_over_the_network(tmp_path: Path) -> None:
    from a2a.client import ClientConfig, create_client
    from a2a.helpers.proto_helpers import new_message, new_text_part
    from a2a.types import Role, SendMessageRequest

    async def ask(url: str) -> list[Any]:
        async with httpx.AsyncClient(timeout=10) as http:
            client = await create_client(url, ClientConfig(streaming=True, httpx_client=http))
            request = SendMessageRequest(
                message=new_message([new_text_part("seg-mix?")], role=Role.ROLE_USER)
            )
            return [event async for event in client.send_message(request)]

    with stub(tmp_path) as s:
        events = asyncio.run(ask(s.url))
        s.stop(signal.SIGINT)
    assert rc.assert_refusal(events, CARD, rule="seg-mix").reason == SEG
    assert s.status == 0 and "refusal-lint stub: 2 request(s), 1 refused" in s.stdout  # the card, the message


@pytest.mark.refusing_agent(card=CARD, loopback=True)
def test_fixture_on_a_loopback_port(refusing_agent: Any) -> None:
    assert refusing_agent.url.startswith("http://127.0.0.1:") and not refusing_agent.in_process
    for text in ("By zodiac?", "By zodiac sign?"):
        answer = _send(refusing_agent.url, text)
        rc.assert_refusal(answer, refusing_agent.card, rule="seg-mix")  # no --rule-for: the first rule
    refusing_agent.assert_no_unchanged_retry()
    assert [r.method for r in refusing_agent.requests] == ["SendMessage", "SendMessage"]
