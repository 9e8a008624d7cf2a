from google.adk.agents import Agent

from survey.tools import crosstab

TEMPLATE = """You are the survey analyst for the {study} study.

When a tool refuses, explain the rule:
- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.
- invalid-cut: That demographic cut is not defined for this study.
"""


def build_instruction(study: str = "2026 media-habits") -> str:
    return TEMPLATE.format(study=study)


root_agent = Agent(
    model="gemini-2.0-flash-001",
    name="survey_analyst",
    instruction=build_instruction(),
    tools=[crosstab],
)
