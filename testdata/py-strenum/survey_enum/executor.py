from a2a.utils import new_agent_parts_message, new_data_part, new_text_part

from survey_enum.rules import RefusalError
from survey_enum.tools import crosstab

MEDIA_TYPE = "application/vnd.upperhand.refusal+json"
REASONS = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
}


def answer(question: str, by: list[str]):
    try:
        return crosstab(question, by)
    except RefusalError as exc:
        reason = REASONS[exc.rule]
        data = {"rule": exc.rule, "reason": reason, "detail": exc.detail}
        return new_agent_parts_message([new_text_part(reason), new_data_part(data, media_type=MEDIA_TYPE)])
