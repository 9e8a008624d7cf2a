"""Billing Support agent card (A2A v1.0), built in code."""

from a2a.types import AgentCapabilities, AgentCard, AgentExtension

REFUSALS = {
    "refund-over-limit": "Refunds above 500 EUR need a human agent; I have opened a ticket.",
    "pii-export": "I cannot export personal data; use the privacy portal instead.",
}

CARD = AgentCard(
    name="Billing Support",
    description="Answers invoice questions and issues small refunds.",
    version="3.2.0",
    capabilities=AgentCapabilities(
        extensions=[
            AgentExtension(
                uri="https://standards.upperhandai.com/ext/refusals/v1",
                required=False,
                params=REFUSALS,
            )
        ]
    ),
    skills=[],
)
