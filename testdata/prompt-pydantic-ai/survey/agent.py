from dataclasses import dataclass

from pydantic_ai import Agent, RunContext

from survey.tools import crosstab


@dataclass
class Study:
    name: str
    wave: int


agent = Agent("openai:gpt-4o", deps_type=Study, tools=[crosstab])


@agent.system_prompt
def survey_rules(ctx: RunContext[Study]) -> str:
    return (
        f"You are the survey analyst for the {ctx.deps.name} study, wave {ctx.deps.wave}.\n"
        "When a tool refuses, explain the rule:\n"
        "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.\n"
        "- invalid-cut: That demographic cut is not defined for this study.\n"
    )
