"""The executor: parses the request, runs the guards, answers or refuses with both Parts."""

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.utils import new_agent_parts_message, new_data_part, new_text_part

from .rules import REFUSAL_MEDIA_TYPE, REFUSAL_RULES

FAMILIES = {"polaris": {"pathfinder", "anchor"}, "ideology": {"left", "right"}}
CUTS = {"age", "gender", "region"}


class SurveyExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        cuts = context.get_user_input().lower().split()
        crossed = {f for f, members in FAMILIES.items() if members & set(cuts)}
        if len(crossed) > 1:
            parts = [
                new_text_part(REFUSAL_RULES["seg-mix"]),
                new_data_part(
                    {"rule": "seg-mix", "reason": REFUSAL_RULES["seg-mix"], "detail": " x ".join(sorted(crossed))},
                    media_type=REFUSAL_MEDIA_TYPE,
                ),
            ]
        elif unknown := [c for c in cuts if c not in CUTS and not any(c in m for m in FAMILIES.values())]:
            parts = [
                new_text_part(REFUSAL_RULES["invalid-cut"]),
                new_data_part(
                    {"rule": "invalid-cut", "reason": REFUSAL_RULES["invalid-cut"], "detail": unknown[0]},
                    media_type=REFUSAL_MEDIA_TYPE,
                ),
            ]
        else:
            parts = [new_text_part(f"Crosstab by {', '.join(cuts)}: see table.")]
        await event_queue.enqueue_event(new_agent_parts_message(parts))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError
