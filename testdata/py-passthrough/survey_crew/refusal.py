from a2a.types import DataPart, Message, Part, Role, TextPart

from survey_crew.card import REFUSAL_RULES

REFUSAL_MEDIA_TYPE = "application/vnd.upperhand.refusal+json"


def refuse(rule: str, detail: str | None = None) -> Message:
    """Both Parts of a refusal, built from the card's own map."""
    reason = REFUSAL_RULES[rule]
    body = {"rule": rule, "reason": reason}
    if detail:
        body["detail"] = detail
    return Message(
        role=Role.agent,
        parts=[
            Part(root=TextPart(text=reason)),
            Part(root=DataPart(data=body, metadata={"mediaType": REFUSAL_MEDIA_TYPE})),
        ],
        message_id="refusal",
    )


def forward(event) -> Message:
    """Refusals raised deep in a crew task arrive here as events."""
    return refuse(event.rule, event.detail)
