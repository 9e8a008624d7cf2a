"""Both Parts of a refusal, built from the card's own map."""

import json
from pathlib import Path

from a2a.types import DataPart, Part, TextPart

MEDIA_TYPE = "application/vnd.upperhand.refusal+json"
_CARD = json.loads((Path(__file__).parent.parent / "agent-card.json").read_text())
RULES = _CARD["capabilities"]["extensions"][0]["params"]


def refuse(rule: str, detail: str | None = None) -> list[Part]:
    body = {"rule": rule, "reason": RULES[rule], "detail": detail}
    return [
        Part(root=TextPart(text=RULES[rule])),
        Part(root=DataPart(data=body, metadata={"mediaType": MEDIA_TYPE})),
    ]
