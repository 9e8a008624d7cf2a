"""Judge an A2A answer against Refusals v1 — for evals, tests and consumers (DESIGN §9).

The spec makes a refusal typed data "so callers can pre-filter their requests, workbenches
can render the refusal visibly, and evals can assert it". This is that assertion, as
plain functions: no network, and no a2a-sdk import unless you pass a2a-sdk objects.

    from refusal_lint import conformance as rc

    refusal = rc.find_refusal(answer)          # a consumer: render it, name the rule
    if refusal is not None:
        show(f"{refusal.reason} ({refusal.rule})")  # ... and never retry it unchanged

    rc.assert_refusal(answer, card, rule="seg-mix")   # an eval or a test
    rc.assert_not_refused(answer)

`answer` may be a JSON-RPC response envelope (A2A v1.0 or v0.3), its `result`, an
HTTP+JSON body, a Message or Task dict, a list of Parts, a list of streamed events (judged
as the stream's final answer), JSON text of any of these, or the equivalent a2a-sdk
objects (v1.0 protobuf, v0.3 pydantic). `card` may be an AgentCard dict, its JSON text or
a path to it, the params map itself, or an a2a-sdk AgentCard. `probe` judges with this
same code.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from refusal_lint import spec
from refusal_lint.codes import CODES
from refusal_lint.prompttext import fold_ws

__all__ = [
    "Finding",
    "Refusal",
    "assert_not_refused",
    "assert_refusal",
    "find_refusal",
    "judge",
    "rules_of",
]


@dataclass(frozen=True)
class Refusal:
    """A refusal found in an answer: what a consumer renders (naming the rule)."""

    rule: str
    reason: str
    detail: str | None
    parts: tuple[dict[str, Any], ...]  # the refusal's own Parts: its data Part, then its text Part


@dataclass(frozen=True)
class Finding:
    """One way an answer breaks the spec (RL400-RL408, as `refusal-lint rule CODE` explains)."""

    code: str
    message: str
    rule_id: str | None = None

    @property
    def name(self) -> str:
        return CODES[self.code].name

    @property
    def severity(self) -> str:
        return CODES[self.code].severity

    def __str__(self) -> str:
        rule = f" [{self.rule_id}]" if self.rule_id else ""
        return f"{self.code}{rule} {self.name}: {self.message}"


# ---- plain data from whatever was passed ---------------------------------------------------


def _plain(obj: Any, top: bool = True) -> Any:
    """JSON-shaped data from dicts, lists, JSON text (at the top only) or a2a-sdk objects
    (converted only here, and only when passed)."""
    if top and isinstance(obj, (str, bytes)):
        text = obj.decode("utf-8") if isinstance(obj, bytes) else obj
        return json.loads(text)
    if isinstance(obj, (str, bytes, int, float, bool)) or obj is None:
        return obj
    if isinstance(obj, Mapping):
        return {str(k): _plain(v, False) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v, False) for v in obj]
    if hasattr(obj, "DESCRIPTOR") and hasattr(obj, "ListFields"):  # a2a-sdk v1.0: protobuf
        import importlib

        return importlib.import_module("google.protobuf.json_format").MessageToDict(obj)
    if hasattr(obj, "model_dump"):  # a2a-sdk v0.3: pydantic
        return _plain(obj.model_dump(mode="json", by_alias=True, exclude_none=True), False)
    return obj


def _is_part(x: Any) -> bool:
    return isinstance(x, dict) and (
        x.get("kind") in ("text", "data", "file")
        or any(k in x for k in ("text", "data", "file", "raw", "url"))
    )


def _parts(result: Any) -> list[dict[str, Any]]:
    """The Parts of a Message or a Task answer (its status message and artifacts)."""
    if not isinstance(result, dict):
        return []
    for key in ("message", "task", "msg"):
        if isinstance(result.get(key), dict):
            return _parts(result[key])
    out: list[dict[str, Any]] = []
    if isinstance(result.get("parts"), list):
        out += [p for p in result["parts"] if isinstance(p, dict)]
    status = result.get("status")
    if isinstance(status, dict) and isinstance(status.get("message"), dict):
        out += _parts(status["message"])
    for artifact in result.get("artifacts") or []:
        if isinstance(artifact, dict):
            out += [p for p in artifact.get("parts") or [] if isinstance(p, dict)]
    return out


def _event(e: Any) -> dict[str, Any]:
    """One streamed event, out of its JSON-RPC envelope if it has one."""
    if isinstance(e, dict) and "result" in e and ("jsonrpc" in e or "id" in e):
        return e["result"] if isinstance(e["result"], dict) else {}
    return e if isinstance(e, dict) else {}


def _stream(events: list[Any]) -> tuple[str, Any]:
    """A stream's final answer: its message, or its final status message plus the artifacts
    it streamed (interim working-status messages are not the answer)."""
    artifacts: list[dict[str, Any]] = []
    final: dict[str, Any] | None = None
    for raw in events:
        if isinstance(raw, dict) and "error" in raw:
            return "error", raw["error"]
        e = _event(raw)
        kind = e.get("kind")
        if "message" in e or "task" in e or kind in ("message", "task") or ("parts" in e and "role" in e):
            final = {"parts": _parts(e)}
        elif "artifactUpdate" in e or kind == "artifact-update":
            update = e.get("artifactUpdate", e)
            if isinstance(update.get("artifact"), dict):
                artifacts.append(update["artifact"])
        elif "statusUpdate" in e or kind == "status-update":
            update = e.get("statusUpdate", e)
            status = update.get("status") if isinstance(update.get("status"), dict) else {}
            state = str(status.get("state", "")).lower()
            if update.get("final") or not any(s in state for s in ("working", "submitted")):
                final = {"status": status}
    answer = dict(final or {})
    answer["artifacts"] = [*answer.get("artifacts", []), *artifacts]
    return "result", answer


def _answer(answer: Any) -> tuple[str, Any]:
    """("error", error) | ("result", result) | ("none", what it was)."""
    data = _plain(answer)
    if isinstance(data, list):
        if all(_is_part(p) for p in data):
            return "result", {"parts": data}
        return _stream(data)
    if not isinstance(data, dict):
        return "none", data
    if "error" in data and "result" not in data:
        return "error", data["error"]
    if "result" in data:
        return "result", data["result"]
    if any(k in data for k in ("message", "task", "parts", "status", "artifacts", "msg")):
        return "result", data  # a result, an HTTP+JSON body, a Message or a Task
    return "none", data


def _protocol(parts: list[dict[str, Any]]) -> str:
    """v0.3 Parts carry `kind`; v1.0 Parts do not."""
    return "0.3" if any("kind" in p for p in parts) else "1.0"


def _text(part: dict[str, Any]) -> str | None:
    text = part.get("text")
    return text if isinstance(text, str) else None


def _data(part: dict[str, Any]) -> Any:
    data = part.get("data")
    if isinstance(data, dict) and set(data) == {"data"} and isinstance(data["data"], dict):
        return data["data"]  # v1.0 JSON: a DataPart's struct under `data`
    return data


def _media(part: dict[str, Any]) -> str:
    meta: dict[str, Any] = part["metadata"] if isinstance(part.get("metadata"), dict) else {}
    return str(part.get("mediaType") or part.get("media_type") or meta.get("mediaType") or "")


def _has_keys(data: Any) -> bool:
    return isinstance(data, dict) and "rule" in data and ("reason" in data or "detail" in data)


def _refusal_part(parts: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, str]:
    """The refusal's data Part and how it was known: by media type, or by its keys (v0.3,
    where no media type travels, or a near miss)."""
    datas = [p for p in parts if "data" in p]
    exact = next((p for p in datas if _media(p) == spec.MEDIA_TYPE), None)
    if exact is not None:
        return exact, "media"
    keyed = next((p for p in datas if _has_keys(_data(p))), None)
    return keyed, "keys"


# ---- the public functions -------------------------------------------------------------------


def rules_of(card: Any) -> dict[str, str | None]:
    """The advertised rules (rule id -> reason) of a card, its JSON text or path, an a2a-sdk
    AgentCard, or the params map itself."""
    if isinstance(card, str) and not card.lstrip().startswith("{"):
        with open(os.fspath(card), encoding="utf-8-sig") as fh:
            card = fh.read()
    elif isinstance(card, os.PathLike):
        with open(card, encoding="utf-8-sig") as fh:
            card = fh.read()
    data = _plain(card)
    if not isinstance(data, dict):
        raise TypeError("card: an AgentCard (dict, JSON, path or a2a-sdk object) or a params map")
    caps = data.get("capabilities")
    if isinstance(caps, dict):
        for ext in caps.get("extensions") or []:
            if isinstance(ext, dict) and ext.get("uri") == spec.URI:
                params = ext.get("params") or {}
                return {str(k): v if isinstance(v, str) else None for k, v in params.items()}
        return {}
    return {str(k): v if isinstance(v, str) else None for k, v in data.items()}


def find_refusal(answer: Any) -> Refusal | None:
    """The refusal in an answer, or None (no refusal data Part: text only, an error envelope).

    The data Part is known by the refusal media type or, where none travels (v0.3) or it is
    a near miss, by its keys; `parts` are the refusal's own Parts."""
    kind, result = _answer(answer)
    if kind != "result":
        return None
    parts = _parts(result)
    part, _ = _refusal_part(parts)
    if part is None:
        return None
    data = _data(part)
    if not isinstance(data, dict) or not isinstance(data.get("rule"), str):
        return None
    reason = data.get("reason") if isinstance(data.get("reason"), str) else ""
    detail = data.get("detail") if isinstance(data.get("detail"), str) else None
    texts = [p for p in parts if _text(p) is not None]
    carrier = next((p for p in texts if fold_ws(_text(p) or "") == fold_ws(str(reason))), None)
    own = (part, carrier) if carrier is not None else (part,)
    return Refusal(data["rule"], str(reason), detail, own)


def judge(answer: Any, card: Any, rule: str | None = None, protocol: str | None = None) -> list[Finding]:
    """Every way the answer breaks the spec, as `probe` reports them (RL400-RL408), warnings
    (RL408 for a v0.3 answer) included. `rule=None` accepts a refusal of any advertised
    rule; `rule="x"` answered by a refusal of another advertised rule is RL402 for x."""
    rules = rules_of(card)
    kind, result = _answer(answer)
    if kind == "error":
        what = result.get("message") if isinstance(result, dict) else result
        return [Finding("RL401", f"the refusal came back as a JSON-RPC error: {what}", rule)]
    if kind == "none":
        return [Finding("RL400", "the answer holds neither a result nor an error", rule)]
    parts = _parts(result)
    protocol = protocol or _protocol(parts)
    found = [Finding(code, message, rule) for code, message in _judge_parts(parts, rules, protocol, rule)]
    if protocol == "0.3" and not any(f.code in ("RL402", "RL404") for f in found):
        found.append(
            Finding(
                "RL408",
                "A2A v0.3 data Parts carry no media type; the refusal Part was recognised by its keys",
                rule,
            )
        )
    return found


def _judge_parts(
    parts: list[dict[str, Any]], rules: dict[str, str | None], protocol: str, rule: str | None
) -> list[tuple[str, str]]:
    """(code, message) for an answer whose envelope held a result (DESIGN §8: one fault, one code)."""
    refusal, how = _refusal_part(parts)
    if refusal is None:
        return [("RL402", "a normal answer came back where the rule should refuse")]
    if how == "keys" and protocol != "0.3":
        return [
            (
                "RL404",
                f"the refusal data Part has media type `{_media(refusal) or 'none'}`, "
                f"not `{spec.MEDIA_TYPE}`",
            )
        ]
    data = _data(refusal)
    if not (
        isinstance(data, dict)
        and set(data) <= spec.PAYLOAD_KEYS
        and {"rule", "reason"} <= set(data)
        and all(isinstance(v, str) for v in data.values())
    ):
        shown = json.dumps(data)[:200]
        return [("RL404", f"the refusal data is not {{rule, reason[, detail]}} strings: {shown}")]
    emitted, reason = data["rule"], data["reason"]
    if rule is not None and emitted != rule and emitted in rules:
        return [("RL402", f"the answer refused with another rule, `{emitted}`, not `{rule}`")]
    out: list[tuple[str, str]] = []
    texts = [p for p in parts if _text(p) is not None]
    advertised = rules.get(emitted) if emitted in rules else None
    carrier = next(
        (p for p in texts if fold_ws(_text(p) or "") in {fold_ws(reason), fold_ws(advertised or "")}),
        texts[0] if len(texts) == 1 else None,
    )
    if not texts:
        out.append(("RL403", "no text Part carries the reason"))
    if emitted not in rules:
        out.append(("RL405", f"the agent refused with rule `{emitted}`, which the card does not advertise"))
    elif advertised is not None:
        said = [("data", reason)] + ([("text", _text(carrier) or "")] if carrier is not None else [])
        wrong = [(where, what) for where, what in said if fold_ws(what) != fold_ws(advertised)]
        if wrong:
            where, what = wrong[0]
            out.append(("RL406", f'the {where} Part says "{what}"; the card says "{advertised}"'))
    others = [p for p in parts if p is not refusal and p is not carrier]
    if others:
        out.append(("RL407", f"{len(others)} other Part(s) sit beside the refusal Parts"))
    return out


def assert_refusal(answer: Any, card: Any, rule: str | None = None) -> Refusal:
    """Fail (AssertionError listing the findings) unless the answer is a conforming refusal
    (of `rule`, when given); warnings alone do not fail. Returns the refusal."""
    errors = [f for f in judge(answer, card, rule) if f.severity == "error"]
    if errors:
        raise AssertionError("not a conforming refusal:\n" + "\n".join(f"  {f}" for f in errors))
    refusal = find_refusal(answer)
    assert refusal is not None  # no error finding means a refusal was found
    return refusal


def assert_not_refused(answer: Any) -> None:
    """Fail exactly when the answer holds a refusal (find_refusal finds one)."""
    refusal = find_refusal(answer)
    if refusal is not None:
        raise AssertionError(f"the answer refused with rule `{refusal.rule}`: {refusal.reason}")
