from dataclasses import dataclass, field


@dataclass(frozen=True)
class AnalystSettings:
    model: str = "gpt-4o"
    max_turns: int = 8
    instructions: str = field(
        default=(
            "You are the survey analyst for the 2026 media-habits study.\n"
            "When a tool refuses, explain the rule:\n"
            "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.\n"
            "- invalid-cut: That demographic cut is not defined for this study.\n"
        )
    )
