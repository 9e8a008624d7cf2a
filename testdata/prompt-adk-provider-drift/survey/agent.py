from google.adk.agents import LlmAgent
from google.adk.agents.readonly_context import ReadonlyContext

from survey.tools import crosstab


class SurveyAgent:
    """Wraps the ADK agent that answers survey questions."""

    def __init__(self) -> None:
        self._agent = self._build_agent()

    def _build_agent(self) -> LlmAgent:
        return LlmAgent(
            model="gemini-2.0-flash-001",
            name="survey_analyst",
            description="Answers questions about the survey.",
            instruction=self._instruction,
            tools=[crosstab],
        )

    def _instruction(self, context: ReadonlyContext) -> str:
        return """You are the survey analyst for the 2026 media-habits study.

When a tool refuses, explain the rule:
- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.
- invalid-cut: That cut is not available.
"""
