"""Wiring: the card, the extension helper and the LangGraph agent."""

from a2a.types import AgentCapabilities, AgentCard
from langgraph.prebuilt import create_react_agent

from survey_ext.extensions import RefusalsExtension
from survey_ext.tools import TOOLS

RULES = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
}

SYSTEM_PROMPT = (
    "You are the Survey Analyst for the 2026 media-habits study.\n"
    "Use the crosstab tool for every number; state-of-the-art estimates are not wanted.\n"
    "\n"
    "When a tool refuses, tell the user which rule applied:\n"
    "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.\n"
    "- invalid-cut: That demographic cut is not defined for this study.\n"
)

refusals = RefusalsExtension(RULES)

card = refusals.add_to_card(
    AgentCard(
        name="Survey Analyst",
        description="Crosstabs for the 2026 media-habits survey.",
        url="http://localhost:10020/",
        version="0.3.1",
        capabilities=AgentCapabilities(streaming=True, extensions=[]),
        default_input_modes=["text"],
        default_output_modes=["text"],
        skills=[],
    )
)

graph = create_react_agent("openai:gpt-4.1", tools=TOOLS, prompt=SYSTEM_PROMPT)
