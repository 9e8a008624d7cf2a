from a2a.types import DataPart, Part, TextPart

from survey.rules import RULES

MEDIA_TYPE = "application/vnd.upperhand.refusal+json"


def refusal_parts(rule_id: str, detail: str) -> list[Part]:
    return [
        Part(root=TextPart(text=RULES[rule_id])),
        Part(
            root=DataPart(
                data={"rule": rule_id, "reason": RULES[rule_id], "detail": detail},
                metadata={"mediaType": MEDIA_TYPE},
            )
        ),
    ]
