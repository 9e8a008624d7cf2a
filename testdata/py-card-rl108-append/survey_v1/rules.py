"""The refusal rules of the Survey Analyst: the single source of truth for card, prompt and guards."""

REFUSALS_URI = "https://standards.upperhandai.com/ext/refusals/v1"
REFUSAL_MEDIA_TYPE = "application/vnd.upperhand.refusal+json"

REFUSAL_RULES: dict[str, str] = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
}
