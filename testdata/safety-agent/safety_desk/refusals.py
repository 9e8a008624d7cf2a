"""Turning a refusal into the two Parts the Refusals v1 spec asks for."""

from __future__ import annotations

import json
from pathlib import Path

from a2a.types import DataPart, Part, TextPart

REFUSAL_MEDIA_TYPE = "application/vnd.upperhand.refusal+json"
_CARD = Path(__file__).resolve().parent.parent / ".well-known" / "agent-card.json"


def _load_rules() -> dict[str, str]:
    card = json.loads(_CARD.read_text(encoding="utf-8"))
    for ext in card["capabilities"]["extensions"]:
        if ext["uri"] == "https://standards.upperhandai.com/ext/refusals/v1":
            return dict(ext["params"])
    raise RuntimeError("agent card lacks the refusals extension")


RULES = _load_rules()


class Refusal(Exception):
    """Raised by a tool that will not answer what it was asked."""

    def __init__(self, rule: str, detail: str | None = None) -> None:
        super().__init__(rule)
        self.rule = rule
        self.detail = detail


def refusal_parts(exc: Refusal) -> list[Part]:
    """The text Part and the data Part of a refusal; they replace the tool's result."""
    reason = RULES[exc.rule]
    payload = {"rule": exc.rule, "reason": reason}
    if exc.detail:
        payload["detail"] = exc.detail
    return [
        Part(root=TextPart(text=reason)),
        Part(root=DataPart(data=payload, metadata={"mediaType": REFUSAL_MEDIA_TYPE})),
    ]
