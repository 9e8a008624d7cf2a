"""Shared by every agent of the repo: a refusal as the two Parts the spec asks for."""

MEDIA_TYPE = "application/vnd.upperhand.refusal+json"


def refuse(rule: str, detail: str = "", reason: str = "") -> list[dict[str, object]]:
    payload = {"rule": rule, "reason": reason, "detail": detail}
    return [{"kind": "text", "text": reason}, {"kind": "data", "data": payload, "mediaType": MEDIA_TYPE}]
