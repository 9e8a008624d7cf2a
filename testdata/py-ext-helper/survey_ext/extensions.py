"""A helper that activates the Refusals v1 extension on a card and renders refusals."""

from a2a.types import AgentCard, AgentExtension, DataPart, Part, TextPart

EXT_BASE = "https://standards.upperhandai.com/ext"
REFUSALS_VERSION = "v1"


class RefusalsExtension:
    URI = f"{EXT_BASE}/refusals/{REFUSALS_VERSION}"
    MEDIA_TYPE = "application/vnd.upperhand.refusal+json"

    def __init__(self, rules: dict[str, str]) -> None:
        self.rules = rules

    def add_to_card(self, card: AgentCard) -> AgentCard:
        card.capabilities.extensions.append(
            AgentExtension(uri=self.URI, required=False, params=self.rules)
        )
        return card

    def refusal_parts(self, rule: str, detail: str = "") -> list[Part]:
        reason = self.rules[rule]
        payload = {"rule": rule, "reason": reason, "detail": detail}
        return [
            Part(root=TextPart(text=reason)),
            Part(root=DataPart(data=payload, metadata={"mediaType": self.MEDIA_TYPE})),
        ]
