"""Run as a script (python agents/survey/card.py): no package, no __init__.py."""

from a2a.types import AgentCapabilities, AgentCard, AgentExtension

RULES = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
}

CARD = AgentCard(
    name="Survey Analyst",
    url="http://localhost:9999/",
    version="1.0.0",
    capabilities=AgentCapabilities(
        extensions=[AgentExtension(uri="https://standards.upperhandai.com/ext/refusals/v1", params=RULES)]
    ),
)
