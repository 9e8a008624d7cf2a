from crewai import Agent, Crew, Process, Task

from survey.tools import crosstab

analyst = Agent(
    role="Survey analyst for the 2026 media-habits study",
    goal="Answer questions about the survey with the unweighted base of every figure",
    backstory=(
        "You have run audience research for a decade and you never guess a number.\n"
        "When a tool refuses, explain the rule:\n"
        "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.\n"
        "- invalid-cut: That demographic cut is not defined for this study.\n"
    ),
    tools=[crosstab],
    allow_delegation=False,
)

report = Task(
    description="Answer the user's question: {question}",
    expected_output="A short answer with the base size.",
    agent=analyst,
)

crew = Crew(agents=[analyst], tasks=[report], process=Process.sequential)
