from typing import NoReturn

from a2a.types import DataPart, InvalidParamsError, Part
from a2a.utils.errors import ServerError

from survey.rules import RULES

MEDIA_TYPE = "application/vnd.upperhand.refusal+json"


def reject(rule_id: str, detail: str) -> NoReturn:
    """Refuses by failing the request: the spec makes a refusal a successful result."""
    raise ServerError(
        error=InvalidParamsError(
            message=RULES[rule_id],
            data={"rule": rule_id, "reason": RULES[rule_id], "detail": detail},
        )
    )


def as_parts(rule: str, detail: str) -> list[Part]:
    """Nothing calls this yet: a pass-through whose payload is malformed all the same."""
    return [Part(root=DataPart(data={"rule": rule, "reason": RULES[rule], "why": detail}, metadata={"mediaType": MEDIA_TYPE}))]


def refuse(rule: str, detail: str = "") -> list[Part]:
    return [Part(root=DataPart(data={"rule": rule, "reason": RULES[rule], "detail": detail}, metadata={"mediaType": MEDIA_TYPE}))]
