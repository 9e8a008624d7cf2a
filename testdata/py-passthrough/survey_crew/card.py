"""The agent card, served as JSON at /.well-known/agent-card.json."""

REFUSAL_RULES = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
}

AGENT_CARD = {
    "protocolVersion": "0.3.0",
    "name": "Survey Analyst (crew)",
    "url": "https://survey.example.com/crew",
    "version": "0.9.0",
    "capabilities": {
        "extensions": [
            {
                "uri": "https://standards.upperhandai.com/ext/refusals/v1",
                "description": "Rules this agent will not compute.",
                "params": REFUSAL_RULES,
            }
        ]
    },
    "skills": [],
}
