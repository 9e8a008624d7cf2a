from agents import Agent

from survey.tools import crosstab

analyst = Agent(
    name="Survey Analyst",
    instructions=(
        "You are the survey analyst for the 2026 media-habits study. "
        "Give the unweighted base (n) with every figure.\n"
        "\n"
        "When the crosstab tool refuses, explain the rule:\n"
        "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.\n"
        "- invalid-cut: That demographic cut is not defined for this study.\n"
    ),
    tools=[crosstab],
)
