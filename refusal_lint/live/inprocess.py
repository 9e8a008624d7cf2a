"""Probe an ASGI app in this process (`probe --app module:attr`, the `refusal_probe` fixture).

httpx's ASGITransport answers async requests only; the probe is synchronous. The app runs
on one event loop in a thread of its own (its state, locks included, stays on that loop)
and each request waits for its answer there. Nothing listens on a port.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import os
import sys
import threading
from typing import Any

import httpx  # this module is imported only to probe, which needs httpx

from refusal_lint.core.errors import UsageError

BASE_URL = "http://testserver"  # a name no network resolves: requests never leave the process


def load_app(spec: str) -> Any:
    """The object `module:attr` names (the current folder importable, as uvicorn does)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise UsageError(f"--app {spec}: give it as module:attribute (e.g. myagent.server:app)")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: whatever it raises is theirs to see
        raise UsageError(f"--app {spec}: cannot import {module_name}: {type(exc).__name__}: {exc}") from None
    app: Any = module
    for name in attr.split("."):
        app = getattr(app, name, None)
        if app is None:
            raise UsageError(f"--app {spec}: {module_name} has no `{attr}`")
    if _kind(app) == "factory":  # the app is what it returns
        try:
            app = app()
        except Exception as exc:  # the user's factory: whatever it raises is theirs to see
            raise UsageError(f"--app {spec}: calling {attr}() failed: {type(exc).__name__}: {exc}") from None
        attr = f"{attr}()"
    if _kind(app) != "app":
        raise UsageError(
            f"--app {spec}: `{attr}` is a {type(app).__name__}, not an ASGI app"
            " (a callable taking scope, receive, send) nor a factory returning one"
        )
    return app


def _kind(app: Any) -> str | None:
    """ "app" for an ASGI app, called with (scope, receive, send): a coroutine function, an
    object whose __call__ is one, or a callable taking three arguments; "factory" for one
    called with none; None for anything else (a module, a string, a function of one)."""
    import inspect

    if not callable(app):
        return None
    if inspect.iscoroutinefunction(app) or inspect.iscoroutinefunction(type(app).__call__):
        return "app"
    try:
        signature = inspect.signature(app)
    except (TypeError, ValueError):
        return "app"  # no signature to read (a C callable): taken at its word
    for kind, args in (("factory", ()), ("app", (None, None, None))):
        try:
            signature.bind(*args)
            return kind
        except TypeError:
            pass
    return None


class SyncASGITransport(httpx.BaseTransport):
    """A synchronous httpx transport in front of an ASGI app on its own event loop."""

    def __init__(self, app: Any) -> None:
        self._inner = httpx.ASGITransport(app=app)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        async def send() -> httpx.Response:
            body = await request.aread()
            inner = httpx.Request(request.method, request.url, headers=request.headers, content=body)
            response = await self._inner.handle_async_request(inner)
            # The body as the app sent it, still encoded as its headers say (a transport's
            # answer is the wire's): the client decodes it once, as it would off a socket.
            raw = b"".join([chunk async for chunk in response.aiter_raw()])
            return httpx.Response(
                response.status_code, headers=response.headers, stream=httpx.ByteStream(raw)
            )

        # The app runs to its answer's end here (httpx's ASGI transport reads it whole): the
        # request's read timeout bounds it, as a network answer's is, never an endless wait.
        timeout = request.extensions.get("timeout", {}).get("read")
        future = asyncio.run_coroutine_threadsafe(send(), self._loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise httpx.ReadTimeout("timed out", request=request) from None

    def close(self) -> None:
        async def settle() -> None:
            # The app's own background tasks end with it, not with a warning.
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(settle(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


def transport_for(app: Any) -> SyncASGITransport:
    """An httpx transport that reaches `app` in this process."""
    return SyncASGITransport(app)
