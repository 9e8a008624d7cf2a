"""A streaming probe reads up to the stream's last event and no longer than its timeout:
an agent that keeps the connection open after its answer, or sends keep-alives without end,
costs the probe at most `--timeout` a request (DESIGN §8: the answer is the stream's final
message or final status message)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import run_cli

URI = "https://standards.upperhandai.com/ext/refusals/v1"
MEDIA = "application/vnd.upperhand.refusal+json"
RULES = {"seg-mix": "Segmentation families cannot be crossed."}


def _card(port: int) -> dict[str, object]:
    return {
        "name": "streamer",
        "version": "1.0.0",
        "capabilities": {"streaming": True, "extensions": [{"uri": URI, "params": RULES}]},
        "supportedInterfaces": [
            {"url": f"http://127.0.0.1:{port}/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
    }


def _final(rule: str) -> dict[str, object]:
    parts = [
        {"text": RULES[rule], "mediaType": "text/plain"},
        {"data": {"rule": rule, "reason": RULES[rule]}, "mediaType": MEDIA},
    ]
    message = {"messageId": "f1", "role": "ROLE_AGENT", "parts": parts}
    status = {"state": "TASK_STATE_COMPLETED", "message": message}
    return {"statusUpdate": {"taskId": "t1", "contextId": "c1", "final": True, "status": status}}


class _Agent(BaseHTTPRequestHandler):
    mode = ""
    stop = threading.Event()

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = json.dumps(_card(self.server.server_address[1])).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.mode == "drip":
            self._drip(request["method"] == "SendStreamingMessage")
            return
        if request["method"] != "SendStreamingMessage":  # the probe's plain request: answered whole
            message = _final("seg-mix")["statusUpdate"]["status"]["message"]  # type: ignore[index]
            answer = {"jsonrpc": "2.0", "id": request["id"], "result": {"message": message}}
            body = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            if self.mode == "cut-short":  # a task started, still working, then the connection drops
                task = {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}
                working = {
                    "statusUpdate": {
                        "taskId": "t1",
                        "contextId": "c1",
                        "status": {"state": "TASK_STATE_WORKING"},
                    }
                }
                for result in (task, working):
                    event = {"jsonrpc": "2.0", "id": request["id"], "result": result}
                    self.wfile.write(b"data: " + json.dumps(event).encode() + b"\n\n")
                self.wfile.flush()
            elif self.mode == "open-after-final":
                event = {"jsonrpc": "2.0", "id": request["id"], "result": _final("seg-mix")}
                self.wfile.write(b"data: " + json.dumps(event).encode() + b"\n\n")
                self.wfile.flush()
                self.stop.wait(60)  # the connection stays open: the probe must not wait for it
            else:  # keep-alives until the probe hangs up
                self._every_tenth(b": keepalive\n\n")
        except OSError:
            pass  # the probe hung up

    def _every_tenth(self, data: bytes) -> None:
        """`data` every 0.1 s until the probe hangs up (10 s at most: a regression fails, not hangs)."""
        for _ in range(100):
            if self.stop.wait(0.1):
                break
            self.wfile.write(data)
            self.wfile.flush()

    def _drip(self, stream: bool) -> None:
        """A byte every 0.1 s and never a line end (10 s at most): each read gets something
        before the idle timeout, so only a deadline for the whole request stops the probe."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if stream else "application/json")
        self.end_headers()
        try:
            self.wfile.write(b"data: " if stream else b"")
            self._every_tenth(b" ")
        except OSError:
            pass  # the probe hung up


@pytest.fixture(params=["open-after-final", "keep-alives", "drip", "cut-short"])
def agent(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    handler = type("Handler", (_Agent,), {"mode": request.param, "stop": threading.Event()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)  # the port the system gives
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield request.param, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        handler.stop.set()
        server.shutdown()
        server.server_close()


def test_a_stream_is_read_to_its_last_event_in_time(agent: tuple[str, str], tmp_path: Path) -> None:
    mode, url = agent
    probes = tmp_path / "probes.yaml"
    probes.write_text('seg-mix: "Cross the polaris segments by ideology."\n')
    result = run_cli("probe", url, "--probes", str(probes), "--format", "json", "--timeout", "1")
    findings = json.loads(result.stdout)["findings"]
    found = [(f["code"], f["message"].endswith("timed out (streaming)")) for f in findings]
    if mode == "open-after-final":
        assert found == [] and result.exit_code == 0  # the final status is the answer
    elif mode == "cut-short":  # no answer was fetched: RL400, not a normal answer (RL402)
        assert [
            (f["code"], f["message"].endswith("ended before its answer (streaming)")) for f in findings
        ] == [("RL400", True)]
    elif mode == "drip":  # the plain request and the streaming one, each cut off at --timeout
        assert sorted(f["message"].rsplit(": ", 1)[-1] for f in findings) == [
            "timed out",
            "timed out (streaming)",
        ]
    else:
        assert found == [("RL400", True)] and result.exit_code == 1
