"""Serve the Survey Analyst over A2A v1.0 (JSON-RPC)."""

import os

import uvicorn
from a2a.server.apps import A2AStarletteApplication
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentSkill,
)

from .executor import SurveyExecutor
from .rules import REFUSAL_RULES, REFUSALS_URI


def build_card(base_url: str) -> AgentCard:
    card = AgentCard(
        name="Survey Analyst",
        description="Crosstabs and segment profiles for the 2026 media-habits survey.",
        version="2.0.0",
        supported_interfaces=[AgentInterface(url=f"{base_url}/a2a", protocol_binding="JSONRPC")],
        capabilities=AgentCapabilities(
            streaming=False,
            extensions=[
                AgentExtension(
                    uri=REFUSALS_URI,
                    required=False,
                    description="Rules this agent will not compute; it refuses with a typed Part.",
                    params=REFUSAL_RULES,
                )
            ],
        ),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain", "application/json"],
        skills=[AgentSkill(id="crosstab", name="Crosstab", description="Cross a question by a cut.", tags=[])],
    )
    # A second declaration, added by a plugin that did not check the card already has one.
    card.capabilities.extensions.append(AgentExtension(uri=REFUSALS_URI, params=REFUSAL_RULES))
    return card


def main() -> None:
    host, port = os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "9999"))
    handler = DefaultRequestHandler(agent_executor=SurveyExecutor(), task_store=InMemoryTaskStore())
    app = A2AStarletteApplication(agent_card=build_card(f"http://{host}:{port}"), http_handler=handler)
    uvicorn.run(app.build(), host=host, port=port)


if __name__ == "__main__":
    main()
