from autogen_agentchat.agents import AssistantAgent
from autogen_core.models import SystemMessage as CoreSystemMessage
from autogen_ext.models.openai import OpenAIChatCompletionClient

from survey.tools import crosstab

SYSTEM_MESSAGE = """You are the survey analyst for the 2026 media-habits study.

When a tool refuses, explain the rule:
- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.
- invalid-cut: That demographic cut is not defined for this study.
"""

model_client = OpenAIChatCompletionClient(model="gpt-4o")
analyst = AssistantAgent("survey_analyst", model_client=model_client, tools=[crosstab])
analyst.model_context_messages = [CoreSystemMessage(SYSTEM_MESSAGE)]
