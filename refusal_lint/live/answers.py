"""The shapes an A2A answer comes in, reduced to plain data and Parts: JSON-RPC envelopes
(v1.0 and v0.3), results, HTTP+JSON bodies, Messages and Tasks, Part lists, streamed
events, JSON text and a2a-sdk objects. `conformance` judges what these find."""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from refusal_lint.core import spec


class AnswerKind(StrEnum):
    RESULT = "result"  # a result: a Message, a Task, Parts
    ERROR = "error"  # a JSON-RPC error envelope
    NONE = "none"  # neither


class KnownBy(StrEnum):
    """How the refusal's data Part was recognised."""

    MEDIA_TYPE = "media"
    KEYS = "keys"  # by its rule/reason keys: v0.3, where no media type travels, or a near miss


def plain(obj: Any, top: bool = True) -> Any:
    """JSON-shaped data from dicts, lists, JSON text (at the top only) or a2a-sdk objects
    (converted only here, and only when passed)."""
    if top and isinstance(obj, (str, bytes)):
        try:
            return json.loads(obj.decode("utf-8") if isinstance(obj, bytes) else obj)
        except ValueError:  # not JSON (nor UTF-8): an answer of no shape, judged as one
            return obj
    if isinstance(obj, (str, bytes, int, float, bool)) or obj is None:
        return obj
    if isinstance(obj, Mapping):
        return {str(k): plain(v, False) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v, False) for v in obj]
    if hasattr(obj, "DESCRIPTOR") and hasattr(obj, "ListFields"):  # a2a-sdk v1.0: protobuf
        import importlib

        return importlib.import_module("google.protobuf.json_format").MessageToDict(obj)
    if hasattr(obj, "model_dump"):  # a2a-sdk v0.3: pydantic
        return plain(obj.model_dump(mode="json", by_alias=True, exclude_none=True), False)
    return obj


def _is_part(x: Any) -> bool:
    return isinstance(x, dict) and (
        x.get("kind") in ("text", "data", "file")
        or any(k in x for k in ("text", "data", "file", "raw", "url"))
    )


def parts_of(result: Any) -> list[dict[str, Any]]:
    """The Parts of a Message or a Task answer (its status message and artifacts)."""
    if not isinstance(result, dict):
        return []
    for key in ("message", "task", "msg"):
        if isinstance(result.get(key), dict):
            return parts_of(result[key])
    out: list[dict[str, Any]] = []
    for key in ("parts", "content"):  # `content`: v0.3's HTTP+JSON (its protobuf's JSON)
        if isinstance(result.get(key), list):
            out += [p for p in result[key] if isinstance(p, dict)]
    status = result.get("status")
    if isinstance(status, dict) and isinstance(status.get("message"), dict):
        out += parts_of(status["message"])
    for artifact in result.get("artifacts") or []:
        if isinstance(artifact, dict):
            out += [p for p in _listed(artifact.get("parts")) if isinstance(p, dict)]
    return out


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _event(e: Any) -> dict[str, Any]:
    """One streamed event, out of its JSON-RPC envelope if it has one."""
    if isinstance(e, dict) and "result" in e and ("jsonrpc" in e or "id" in e):
        return e["result"] if isinstance(e["result"], dict) else {}
    return e if isinstance(e, dict) else {}


def _stream(events: list[Any]) -> tuple[AnswerKind, Any]:
    """A stream's final answer: its message, or its final status message plus the artifacts
    it streamed (interim working-status messages are not the answer). A Task event holds the
    task's state: its artifacts replace the streamed ones of their artifactId, never count twice."""
    artifacts: dict[str, dict[str, Any]] = {}  # by artifactId, in the order first streamed
    final: dict[str, Any] | None = None
    for raw in events:
        if isinstance(raw, dict) and "error" in raw:
            return AnswerKind.ERROR, raw["error"]
        e = _event(raw)
        task = e.get("task", e if e.get("kind") == "task" else None)
        if isinstance(task, dict):
            for artifact in _listed(task.get("artifacts")):
                _streamed(artifacts, artifact, append=False)
            if _final(task):
                final = {"status": _status(task)}
        elif "message" in e or e.get("kind") == "message" or ("parts" in e and "role" in e):
            final = {"parts": parts_of(e)}
        elif "artifactUpdate" in e or e.get("kind") == "artifact-update":
            update = e.get("artifactUpdate", e)
            if isinstance(update, dict):
                _streamed(artifacts, update.get("artifact"), append=bool(update.get("append")))
        elif (changed := _status_update(e)) is not None and _final(changed):
            final = {"status": _status(changed)}
    return AnswerKind.RESULT, {**(final or {}), "artifacts": list(artifacts.values())}


def _streamed(artifacts: dict[str, dict[str, Any]], artifact: Any, append: bool) -> None:
    """Take in a streamed artifact: it replaces the one of its artifactId, or with `append`
    adds its Parts to it (A2A's chunked artifacts); one with no artifactId stands alone."""
    if not isinstance(artifact, dict):
        return
    key = artifact.get("artifactId")
    key = key if isinstance(key, str) else f"#{len(artifacts)}"  # dict only grows here: unique
    old = artifacts.get(key)
    if append and old is not None:
        artifacts[key] = {**old, "parts": [*_listed(old.get("parts")), *_listed(artifact.get("parts"))]}
    else:
        artifacts[key] = artifact


def _status(update: dict[str, Any]) -> dict[str, Any]:
    status = update.get("status")
    return status if isinstance(status, dict) else {}


def _final(update: dict[str, Any]) -> bool:
    """A status update that ends the task's stream: marked final, or past working."""
    state = str(_status(update).get("state", "")).lower()
    return bool(update.get("final")) or not any(s in state for s in ("working", "submitted"))


def unfinished(result: Any) -> str | None:
    """The state of a Task answer still under way (submitted, working), else None."""
    task = result.get("task", result) if isinstance(result, dict) else None
    if not isinstance(task, dict) or not isinstance(task.get("status"), dict) or _final(task):
        return None
    return str(task["status"].get("state") or "working")


def ends(raw: Any) -> bool:
    """Is this streamed event the stream's last (`_stream` has the answer then): an error,
    a message, or a final status update? A client reads no further."""
    if isinstance(raw, dict) and "error" in raw:
        return True
    e = _event(raw)
    if "message" in e or e.get("kind") == "message" or ("parts" in e and "role" in e):
        return True
    update = _status_update(e)
    return update is not None and _final(update)


def cut_short(events: list[Any]) -> bool:
    """Did a stream close before any answer: no event ends it (`ends`), and its tasks and
    artifacts are none, or still working (a connection dropped mid-task)?"""
    for raw in events:
        e = _event(raw)
        task = e.get("task", e if e.get("kind") == "task" else None)
        if ends(raw) or "artifactUpdate" in e or e.get("kind") == "artifact-update":
            return False
        if isinstance(task, dict) and (_final(task) or task.get("artifacts")):
            return False
    return True


def _status_update(e: dict[str, Any]) -> dict[str, Any] | None:
    """The status update an event is (v1.0 `{"statusUpdate": ...}`, v0.3 `kind`), if it is one."""
    update = e.get("statusUpdate", e if e.get("kind") == "status-update" else None)
    return update if isinstance(update, dict) else None


def answer_of(answer: Any) -> tuple[AnswerKind, Any]:
    """(ERROR, the error) | (RESULT, the result) | (NONE, what it was)."""
    data = plain(answer)
    if isinstance(data, list):
        if all(_is_part(p) for p in data):
            return AnswerKind.RESULT, {"parts": data}
        return _stream(data)
    if not isinstance(data, dict):
        return AnswerKind.NONE, data
    if "error" in data and "result" not in data:
        return AnswerKind.ERROR, data["error"]
    if "result" in data:
        return AnswerKind.RESULT, data["result"]
    if any(k in data for k in ("message", "task", "parts", "status", "artifacts", "msg")):
        return AnswerKind.RESULT, data  # a result, an HTTP+JSON body, a Message or a Task
    return AnswerKind.NONE, data


def protocol_of(parts: list[dict[str, Any]]) -> str:
    """v0.3 Parts carry `kind`; v1.0 Parts do not."""
    return "0.3" if any("kind" in p for p in parts) else "1.0"


def text_of(part: dict[str, Any]) -> str | None:
    text = part.get("text")
    return text if isinstance(text, str) else None


def data_of(part: dict[str, Any]) -> Any:
    data = part.get("data")
    if isinstance(data, dict) and set(data) == {"data"} and isinstance(data["data"], dict):
        return data["data"]  # v1.0 JSON: a DataPart's struct under `data`
    return data


def media_of(part: dict[str, Any]) -> str:
    meta: dict[str, Any] = part["metadata"] if isinstance(part.get("metadata"), dict) else {}
    # A v0.3 Part's metadata may name it as the SDK names a file's type (`mimeType`).
    named = (part.get("mediaType"), part.get("media_type"), meta.get("mediaType"), meta.get("mimeType"))
    return str(next((m for m in named if m), ""))


def _has_keys(data: Any) -> bool:
    return isinstance(data, dict) and "rule" in data and ("reason" in data or "detail" in data)


def refusal_part(parts: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, KnownBy]:
    """The refusal's data Part and how it was known: by media type, or by its keys (v0.3,
    where no media type travels, or a near miss)."""
    datas = [p for p in parts if "data" in p]
    exact = next((p for p in datas if media_of(p) == spec.MEDIA_TYPE), None)
    if exact is not None:
        return exact, KnownBy.MEDIA_TYPE
    keyed = next((p for p in datas if _has_keys(data_of(p))), None)
    return keyed, KnownBy.KEYS
