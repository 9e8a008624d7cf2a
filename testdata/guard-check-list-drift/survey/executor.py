from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater

from survey.checks import Refusal, guard
from survey.refusals import refuse


class SurveyExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        cut, families = context.get_user_input(), ["polaris"]
        try:
            guard(cut, families)
        except Refusal as exc:
            await updater.complete(message=updater.new_agent_message(refuse(exc.rule, exc.detail)))
            return
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError
