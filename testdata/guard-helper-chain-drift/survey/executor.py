from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater

from survey.refusals import refusal_parts

CUTS = ("age", "gender", "region")


class SurveyExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        cut = context.get_user_input()
        if "+" in cut:
            await self._emit(updater, "seg-mix", cut)
            return
        if cut not in CUTS:
            await self._emit(updater, "invalid_cut", cut)
            return
        await updater.complete()

    async def _emit(self, updater: TaskUpdater, which: str, detail: str) -> None:
        await updater.complete(message=updater.new_agent_message(refusal_parts(which, detail)))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError
