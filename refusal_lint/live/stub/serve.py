"""Run the stub on a socket: in the foreground for `refusal-lint stub` (SIGINT and SIGTERM
end it cleanly), or in a thread for the `refusing_agent` fixture. The socket is bound
before the server starts (port 0: the kernel picks a free port), so the URL is known
exactly and no port is ever guessed."""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import uvicorn

from refusal_lint.core.errors import UsageError
from refusal_lint.live.stub.core import Recorder, StubCard


def bind(host: str, port: int) -> tuple[socket.socket, str]:
    """A listening-ready socket on host:port and the stub's base URL on it."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    return sock, f"http://{shown}:{bound_port}"


class _Server(uvicorn.Server):
    """uvicorn, telling when it listens, and ending on a signal without re-raising it
    (uvicorn re-raises a caught SIGINT/SIGTERM after shutdown, which would turn a clean
    stop into a KeyboardInterrupt, or a death by SIGTERM with no report)."""

    def __init__(self, config: uvicorn.Config, on_ready: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_ready = on_ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._on_ready()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield  # a thread (the fixture): its owner stops it
            return
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def _server(
    card: StubCard, sock: socket.socket, base: str, on_ready: Callable[[], None]
) -> tuple[_Server, Recorder]:
    from refusal_lint.live.stub.app import build_app

    recorder = Recorder(card, base)
    config = uvicorn.Config(
        build_app(recorder),
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=2,  # an open stream does not hold the stop up
    )
    return _Server(config, on_ready), recorder


def run(card: StubCard, sock: socket.socket, base: str, on_ready: Callable[[], None]) -> Recorder:
    """Serve on a bound socket in the foreground until SIGINT or SIGTERM; the record of
    what was received."""
    server, recorder = _server(card, sock, base, on_ready)
    with sock:
        server.run(sockets=[sock])
    return recorder


class Background:
    """The stub on a loopback port, served from a thread (the fixture's `loopback=True`)."""

    def __init__(self, card: StubCard, host: str = "127.0.0.1", port: int = 0, timeout: float = 10.0) -> None:
        self._sock, self.url = bind(host, port)
        ready = threading.Event()
        self._server, self.recorder = _server(card, self._sock, self.url, ready.set)
        self._thread = threading.Thread(target=self._serve, name="refusal-lint-stub", daemon=True)
        self._thread.start()
        if not ready.wait(timeout):
            self.close()
            raise RuntimeError(f"the stub did not start listening within {timeout} s")

    def _serve(self) -> None:
        self._server.run(sockets=[self._sock])

    @property
    def app(self) -> Any:
        return self._server.config.app

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._sock.close()
