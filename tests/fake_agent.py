"""A small scripted A2A agent for the probe's tests: it serves a card and answers each POST as
a test's `answer(request, stream)` says, as a raw ASGI app (probed in this process) or behind
a stdlib server on the port the system gives (`serve`). No framework: what goes on the wire
is exactly what the test wrote."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

URI = "https://standards.upperhandai.com/ext/refusals/v1"
MEDIA = "application/vnd.upperhand.refusal+json"
SEG = "Segmentation families cannot be crossed; ask for one family per cut."
RULES = {"seg-mix": SEG}
PROBES = {"seg-mix": "Cross the polaris segments by ideology, please."}
PARTS = [{"text": SEG}, {"data": {"rule": "seg-mix", "reason": SEG}, "mediaType": MEDIA}]

# What an answer function returns: (HTTP status, content type, body); a dict is JSON at 200.
Reply = tuple[int, str, bytes]
Answer = Callable[[dict[str, Any], dict[str, str]], "Reply | dict[str, Any]"]


def card(
    streaming: bool = False, binding: str = "JSONRPC", rules: dict[str, str] = RULES, **extra: Any
) -> dict[str, Any]:
    """A v1.0 card declaring `rules`, its one interface at /a2a (the probe keeps the path only)."""
    return {
        "name": "fake",
        "version": "1.0.0",
        "capabilities": {"streaming": streaming, "extensions": [{"uri": URI, "params": rules}]},
        "supportedInterfaces": [
            {"url": "http://fake/a2a", "protocolBinding": binding, "protocolVersion": "1.0"}
        ],
        **extra,
    }


def result(request: dict[str, Any], value: Any) -> dict[str, Any]:
    """A JSON-RPC success envelope answering `request`."""
    return {"jsonrpc": "2.0", "id": request.get("id"), "result": value}


def sse(request: dict[str, Any], *results: Any) -> Reply:
    """An event stream whose events are `results`, each in its JSON-RPC envelope."""
    body = b"".join(b"data: " + json.dumps(result(request, r)).encode() + b"\n\n" for r in results)
    return 200, "text/event-stream", body


def streaming(request: dict[str, Any]) -> bool:
    return "Stream" in str(request.get("method")) or "stream" in str(request.get("method"))


@dataclass
class FakeAgent:
    """The agent: `card` at both well-known paths, every POST answered by `answer(request,
    headers)` (headers lower-cased); `gzip` compresses every body the client accepts gzip for,
    as Starlette's GZipMiddleware or nginx's `gzip on` do."""

    card: dict[str, Any]
    answer: Answer
    gzip: bool = False

    def respond(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        if method == "GET":
            known = path in ("/.well-known/agent-card.json", "/.well-known/agent.json")
            reply: Reply = (
                (200, "application/json", json.dumps(self.card).encode())
                if known
                else (404, "text/plain", b"")
            )
        else:
            got = self.answer(json.loads(body or b"{}"), headers)
            reply = (200, "application/json", json.dumps(got).encode()) if isinstance(got, dict) else got
        status, ctype, content = reply
        out = [("content-type", ctype)]
        if self.gzip and "gzip" in headers.get("accept-encoding", ""):
            content = gzip.compress(content)
            out.append(("content-encoding", "gzip"))
        return status, [*out, ("content-length", str(len(content)))], content

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        status, out, content = self.respond(scope["method"], scope["path"], headers, body)
        raw = [(k.encode(), v.encode()) for k, v in out]
        await send({"type": "http.response.start", "status": status, "headers": raw})
        await send({"type": "http.response.body", "body": content})


@contextmanager
def serve(agent: FakeAgent) -> Iterator[str]:
    """`agent` on 127.0.0.1 at the port the system gives; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _answer(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, out, content = agent.respond(self.command, self.path, headers, body)
            self.send_response(status)
            for k, v in out:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_POST = _answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # listening from here on
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
