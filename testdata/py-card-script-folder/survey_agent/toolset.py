"""What the server and the tools share: the refusals extension and the refusal payload."""

URI = "https://standards.upperhandai.com/ext/refusals/v1"
RULES = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
}


def refuse(rule, detail=None):
    payload = {"rule": rule, "reason": RULES[rule]}
    if detail:
        payload["detail"] = detail
    return payload
