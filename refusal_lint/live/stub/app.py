"""The refusing stub as a real A2A server: the official a2a-sdk's JSON-RPC (v1.0 and v0.3 on
one endpoint) and HTTP+JSON (v1.0, v0.3 under /v1) routes, plain and streaming, in front of
an executor that refuses every message conformantly (DESIGN §10).

The SDK can refuse the way the spec wants: an executor that answers with a Message holding
the text Part and the refusal data Part makes a successful envelope on every binding, and
its own serialisation is what real clients parse. Only the card is served by hand: the
user's card as written (unknown fields included), with the stub's interfaces.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from typing import Any

from a2a.helpers.proto_helpers import new_data_part, new_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_jsonrpc_routes, create_rest_routes
from a2a.server.routes.common import DefaultServerCallContextBuilder
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from refusal_lint.core import spec
from refusal_lint.live import answers
from refusal_lint.live.stub.core import CARD_PATHS, JSONRPC_PATH, Recorder


class _CallContext(DefaultServerCallContextBuilder):
    """The SDK's call context (headers, activated extensions), plus the HTTP path: the
    binding and version of a request are read from it."""

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        context.state["path"] = request.url.path
        return context


def _how(state: Mapping[str, Any]) -> tuple[str, str, str]:
    """(method, path, version) of a request: JSON-RPC's method name (v0.3's are paths,
    `message/send`), else HTTP+JSON's route (v0.3's under /v1)."""
    path = str(state.get("path", ""))
    method = state.get("method")
    if isinstance(method, str) and method:
        return method, path, "0.3" if "/" in method else "1.0"
    return f"POST {path}", path, "0.3" if path.startswith("/v1/") else "1.0"


class Refuser(AgentExecutor):
    """Refuses every message with the rule the card's map gives it (StubCard.choose)."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        call = context.call_context
        method, path, version = _how(call.state)
        sent = context.message
        parts = answers.plain(list(sent.parts)) if sent is not None else []  # v1.0 JSON, whatever was sent
        request, why = self.recorder.message(
            method, path, version, call.state.get("headers", {}), parts, call.requested_extensions
        )
        rule = request.rule or ""
        reason = self.recorder.card.rules[rule]
        detail = f"refusal-lint stub: request {request.index} refused with `{rule}` ({why})"
        data = new_data_part({"rule": rule, "reason": reason, "detail": detail}, media_type=spec.MEDIA_TYPE)
        if version == "0.3":
            # v0.3 Parts have no media type field: the SDK drops it, so it travels in metadata.
            data.metadata.update({"mediaType": spec.MEDIA_TYPE})
        # Both Parts whether or not the client activated the extension: a plain client
        # still shows the text, a Refusals-aware one reads the data.
        answer = new_message(
            [new_text_part(reason, media_type="text/plain"), data],
            context_id=context.context_id,
            task_id=context.task_id,
        )
        answer.extensions.append(spec.URI)
        await event_queue.enqueue_event(answer)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        return None  # it never starts a task, so there is nothing to cancel


class _Handler(DefaultRequestHandler):
    """The SDK's handler, taking a message that names a task the stub does not keep as a new
    one: the stub answers with Messages and keeps no task, so a client continuing the task
    its refusal named (or any task) would get the SDK's "task not found" JSON-RPC error, and
    the stub refuses whatever the client sends, never with a protocol error (DESIGN §10)."""

    def __init__(self, executor: AgentExecutor, card: AgentCard) -> None:
        self.store = InMemoryTaskStore()
        super().__init__(agent_executor=executor, task_store=self.store, agent_card=card)

    async def _as_new(self, params: Any, context: ServerCallContext) -> None:
        if params.message.task_id and await self.store.get(params.message.task_id, context) is None:
            params.message.task_id = ""

    async def on_message_send(self, params: Any, context: ServerCallContext) -> Any:
        await self._as_new(params, context)
        return await super().on_message_send(params, context)

    async def on_message_send_stream(
        self, params: Any, context: ServerCallContext
    ) -> AsyncGenerator[Any, None]:
        await self._as_new(params, context)
        async for event in super().on_message_send_stream(params, context):
            yield event


def _sdk_card(recorder: Recorder) -> AgentCard:
    """The card the SDK's handler consults: streaming on (input modes are not validated:
    every message is taken, and refused)."""
    base = recorder.base
    return AgentCard(
        name=recorder.card.name,
        description="refusal-lint's refusing stub agent.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=base + JSONRPC_PATH, protocol_binding="JSONRPC", protocol_version="1.0"),
            AgentInterface(url=base, protocol_binding="HTTP+JSON", protocol_version="1.0"),
        ],
        capabilities=AgentCapabilities(
            streaming=True,
            extensions=[AgentExtension(uri=spec.URI, required=False, params=recorder.card.rules)],
        ),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain", "application/json"],
        skills=[AgentSkill(id="refuse", name="Refuse", description="Refuses every request.", tags=["stub"])],
    )


def build_app(recorder: Recorder) -> Starlette:
    """The stub's ASGI app, serving at `recorder.base`."""
    served = recorder.card.served(recorder.base)

    async def card(request: Request) -> JSONResponse:
        recorder.card_fetch(request.url.path, request.headers)
        return JSONResponse(served)

    handler = _Handler(Refuser(recorder), _sdk_card(recorder))
    context = _CallContext()
    # Order matters: the card and JSON-RPC routes before the HTTP+JSON ones, whose
    # /{tenant} mount would take any one-segment prefix.
    routes: list[BaseRoute] = [Route(path, card, methods=["GET"]) for path in CARD_PATHS]
    routes += create_jsonrpc_routes(handler, JSONRPC_PATH, context_builder=context, enable_v0_3_compat=True)
    routes += create_rest_routes(handler, context_builder=context, enable_v0_3_compat=True)
    return Starlette(routes=routes)
