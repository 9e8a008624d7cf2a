"""The refusing stub for tests (the pytest plugin's `refusing_agent` fixture): in this
process by default (an ASGI app reached through httpx, nothing listens), or on a loopback
port for a client that must open its own connections."""

from __future__ import annotations

import json
import os
from typing import Any

import httpx

from refusal_lint.core.model import Finding
from refusal_lint.live.stub.core import Recorder, Request, StubCard, read_card, stub_card


def card_data(card: Any) -> Any:
    """A card (or params map) given as a dict, its JSON text, or a path to a JSON/YAML file."""
    if isinstance(card, os.PathLike):
        return read_card(os.fspath(card))
    if isinstance(card, str):
        return json.loads(card) if card.lstrip().startswith("{") else read_card(card)
    return card


class RefusingAgent:
    """A real A2A agent (a2a-sdk server) that refuses every message conformantly and
    records what it was sent.

    `url` is where it answers (`http://testserver` in this process: reach it with
    `client()` / `async_client()`, whose transport goes to the app; on a loopback port,
    any HTTP client reaches it); `card` is the card as served, with the stub's interfaces."""

    def __init__(self, card: Any, rule_for: dict[str, str] | None = None, loopback: bool = False) -> None:
        from refusal_lint.live import inprocess
        from refusal_lint.live.stub import app, serve

        self.stub: StubCard = stub_card(card_data(card), (rule_for or {}).items(), "refusing_agent card")
        self._clients: list[httpx.Client] = []
        self._background: serve.Background | None = None
        if loopback:
            self._background = serve.Background(self.stub)
            self.url = self._background.url
            self._recorder = self._background.recorder
            self.app: Any = self._background.app
        else:
            self.url = inprocess.BASE_URL
            self._recorder = Recorder(self.stub, self.url)
            self.app = app.build_app(self._recorder)
        self.card: dict[str, Any] = self.stub.served(self.url)

    @property
    def in_process(self) -> bool:
        return self._background is None

    @property
    def rules(self) -> dict[str, str]:
        return dict(self.stub.rules)

    @property
    def requests(self) -> list[Request]:
        """Every request received, in order: card fetches and refused messages."""
        return self._recorder.requests

    @property
    def messages(self) -> list[Request]:
        """The refused messages only."""
        return [r for r in self._recorder.requests if r.refused]

    @property
    def faults(self) -> list[Finding]:
        """The consumer faults seen (RL501 retried-unchanged)."""
        return self._recorder.faults

    def record(self) -> dict[str, Any]:
        """What `refusal-lint stub --record` writes."""
        return self._recorder.record()

    def assert_no_unchanged_retry(self) -> None:
        """Fail (AssertionError listing the RL501 findings) if the client sent a refused
        message again unchanged: the same method kind (send or stream) and equal Parts (the
        spec's consumer requirement 2)."""
        faults = self.faults
        if faults:
            from refusal_lint.report import text

            lines = "\n".join(f"  {text.line(f, False)}" for f in faults)
            raise AssertionError(f"the client retried a refused request unchanged:\n{lines}")

    def client(self, **kw: Any) -> httpx.Client:
        """A synchronous httpx client that reaches the agent (closed with the fixture)."""
        transport = None
        if self.in_process:
            from refusal_lint.live import inprocess

            transport = inprocess.transport_for(self.app)
        client = httpx.Client(base_url=self.url, transport=transport, **kw)
        self._clients.append(client)
        return client

    def async_client(self, **kw: Any) -> httpx.AsyncClient:
        """An httpx.AsyncClient that reaches the agent (e.g. for a2a-sdk's ClientConfig);
        close it yourself (`async with`)."""
        transport = httpx.ASGITransport(app=self.app) if self.in_process else None
        return httpx.AsyncClient(base_url=self.url, transport=transport, **kw)

    def close(self) -> None:
        for client in self._clients:
            if not client.is_closed:
                client.close()
        if self._background is not None:
            self._background.close()
