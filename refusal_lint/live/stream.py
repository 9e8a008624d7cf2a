"""A streaming request's events (Server-Sent Events), read up to the stream's last event
(DESIGN §8: the answer is its final message, or final status message and the artifacts it
streamed) and within the request's timeout in all: an agent that keeps the connection open
after its answer, or sends keep-alives without end, costs at most that."""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from collections.abc import Iterable, Iterator
from typing import Any

from refusal_lint.live.answers import ends


class TooLong(Exception):
    """The stream ran past its deadline, or past the size an answer may have."""


def events(lines: Iterable[str]) -> Iterator[Any]:
    """The JSON of each event's `data:` lines, as its blank line ends it (a comment or a
    keep-alive is no event)."""
    data: list[str] = []
    for line in itertools.chain(lines, [""]):
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif not line and data:
            with contextlib.suppress(ValueError):  # not JSON: no event of ours
                yield json.loads("\n".join(data))
            data = []


def _chunks(chunks: Iterable[Any], deadline: float, limit: int) -> Iterator[Any]:
    """`chunks` of a body as they arrive, TooLong past `deadline` (time.monotonic) or `limit`
    in all: checked at each chunk, not each line, so an agent that drips bytes with no line
    end is cut off at the deadline too."""
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise TooLong(f"answer larger than {limit} bytes")
        if time.monotonic() > deadline:
            raise TooLong("timed out")
        yield chunk


def _lines(texts: Iterable[str]) -> Iterator[str]:
    """The lines of a text arriving in pieces (`\n`, `\r\n` or `\r` ends one, as SSE's do)."""
    pending = ""
    for text in texts:
        pending += text
        parts = pending.splitlines(keepends=True)
        # The last part may go on in the next piece (a `\r` may be half of `\r\n`).
        pending = (
            parts.pop()
            if parts and (not parts[-1].endswith(("\n", "\r")) or parts[-1].endswith("\r"))
            else ""
        )
        yield from (line.rstrip("\r\n") for line in parts)
    if pending:
        yield pending.rstrip("\r\n")


def read(response: Any, deadline: float, limit: int) -> list[Any]:
    """The events of a streamed `response` (httpx), up to the one that ends the stream;
    TooLong past `deadline` (time.monotonic) or `limit` bytes."""
    out: list[Any] = []
    for event in events(_lines(_chunks(response.iter_text(), deadline, limit))):
        out.append(event)
        if ends(event):
            break
    return out


def read_body(response: Any, deadline: float, limit: int) -> bytes:
    """A streamed `response`'s whole body, within `deadline` in all and `limit` bytes."""
    return b"".join(_chunks(response.iter_bytes(), deadline, limit))


def post(client: Any, url: str, body: dict[str, Any], headers: dict[str, str], limit: int) -> tuple[Any, Any]:
    """(response, answer) of a streaming request (httpx `client`): its events up to the
    stream's last, within the client's timeout in all; its JSON where it answers with no
    event stream. TooLong past the deadline or `limit` bytes."""
    deadline = time.monotonic() + client.timeout.read
    with client.stream("POST", url, json=body, headers=headers) as response:
        if "event-stream" in response.headers.get("content-type", ""):
            return response, read(response, deadline, limit)
        whole = settled(response, read_body(response, deadline, limit))
    return whole, json_of(whole)


# What no longer describes a body once it is read and decoded (`iter_bytes` undoes the
# Content-Encoding): kept, httpx would decode the plain bytes a second time.
_READ_AWAY = ("content-encoding", "content-length", "transfer-encoding")


def settled(response: Any, content: bytes) -> Any:
    """A streamed response as one read whole: its status, headers and `content`, the body as
    `iter_bytes` gave it (decoded: a gzip answer is plain bytes here, and says so)."""
    import httpx

    headers = httpx.Headers(response.headers)
    for name in _READ_AWAY:
        headers.pop(name, None)
    return httpx.Response(response.status_code, headers=headers, content=content, request=response.request)


def json_of(response: Any) -> Any:
    """An answer's JSON body; None where it is none."""
    try:
        return response.json()
    except ValueError:
        return None
