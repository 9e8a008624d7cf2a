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


def read(response: Any, deadline: float, limit: int) -> list[Any]:
    """The events of a streamed `response` (httpx), up to the one that ends the stream;
    TooLong past `deadline` (time.monotonic) or `limit` bytes."""
    size = 0

    def lines() -> Iterator[str]:
        nonlocal size
        for line in response.iter_lines():
            size += len(line) + 1
            if size > limit:
                raise TooLong(f"answer larger than {limit} bytes")
            if time.monotonic() > deadline:
                raise TooLong("timed out")
            yield line

    out: list[Any] = []
    for event in events(lines()):
        out.append(event)
        if ends(event):
            break
    return out


def post(client: Any, url: str, body: dict[str, Any], headers: dict[str, str], limit: int) -> tuple[Any, Any]:
    """(response, answer) of a streaming request (httpx `client`): its events up to the
    stream's last, within the client's timeout in all; its JSON where it answers with no
    event stream. TooLong past the deadline or `limit` bytes."""
    with client.stream("POST", url, json=body, headers=headers) as response:
        if "event-stream" in response.headers.get("content-type", ""):
            return response, read(response, time.monotonic() + client.timeout.read, limit)
        response.read()
    if len(response.content) > limit:
        raise TooLong(f"answer larger than {limit} bytes")
    return response, json_of(response)


def json_of(response: Any) -> Any:
    """An answer's JSON body; None where it is none."""
    try:
        return response.json()
    except ValueError:
        return None
