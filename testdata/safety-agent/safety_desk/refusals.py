"""The two Parts a refusal is sent as (Refusals v1): the reason as text, and the typed payload."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from a2a.types import DataPart, Part, TextPart

URI = "https://standards.upperhandai.com/ext/refusals/v1"
MEDIA_TYPE = "application/vnd.upperhand.refusal+json"
CARD_PATH = Path(__file__).parents[1] / ".well-known" / "agent-card.json"


@cache
def reasons() -> dict[str, str]:
    """Rule id -> reason, read from the card, so that the two cannot drift apart."""
    card = json.loads(CARD_PATH.read_text(encoding="utf-8"))
    entry = next(e for e in card["capabilities"]["extensions"] if e["uri"] == URI)
    return dict(entry["params"])


@dataclass
class Refusal(Exception):
    """Raised by a tool instead of an answer; the executor turns it into `parts_for`."""

    rule: str
    detail: str = ""


def parts_for(refusal: Refusal) -> list[Part]:
    reason = reasons()[refusal.rule]
    data = {"rule": refusal.rule, "reason": reason, "detail": refusal.detail or None}
    return [
        Part(root=TextPart(text=reason)),
        Part(root=DataPart(data=data, metadata={"mediaType": MEDIA_TYPE})),
    ]
