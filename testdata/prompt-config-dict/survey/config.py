import os

AGENT_CONFIG = {
    "model": os.environ.get("SURVEY_MODEL", "gpt-4o"),
    "temperature": 0,
    "system_prompt": (
        "You are the survey analyst for the 2026 media-habits study.\n"
        "When a tool refuses, explain the rule:\n"
        "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.\n"
        "- invalid-cut: That demographic cut is not defined for this study.\n"
    ),
}
