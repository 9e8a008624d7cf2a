from a2a.types import AgentCapabilities, AgentCard, AgentExtension

BASE = "https://standards.upperhandai.com/ext"

card = AgentCard(
    name="Survey Analyst",
    capabilities=AgentCapabilities(
        extensions=[
            AgentExtension(
                uri=f"{BASE}/refusal/v1",
                required="false",
                params={
                    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
                    "invalid-cut": "That demographic cut is not defined for this study.",
                    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
                },
            ),
        ]
    ),
)
