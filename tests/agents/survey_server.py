"""A deterministic survey-analytics A2A agent on the official a2a-sdk server, for probe tests.

    python tests/agents/survey_server.py PORT VARIANT

VARIANT is `conforming`, or a broken variant that violates one thing: `jsonrpc-error`,
`no-text`, `no-data` (the text Part only, as an agent that drops the data Part for a client
that did not activate the extension), `wrong-media`, `unadvertised`, `drifted`, `mixed`,
`no-refusal`.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

import uvicorn
from a2a.helpers.proto_helpers import new_data_part, new_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill
from a2a.utils.errors import InvalidParamsError
from starlette.applications import Starlette
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

URI = "https://standards.upperhandai.com/ext/refusals/v1"
MEDIA_TYPE = "application/vnd.upperhand.refusal+json"
RULES = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
}


def _rule_for(text: str) -> str | None:
    words = text.lower()
    if "polaris" in words and "ideology" in words:
        return "seg-mix"
    if "zodiac" in words:
        return "invalid-cut"
    return None


class SurveyExecutor(AgentExecutor):
    def __init__(self, variant: str) -> None:
        self.variant = variant

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        rule = _rule_for(text)
        v = self.variant
        if rule is None or v == "no-refusal":
            answer = "Crosstab: 62% of 18-34s stream news daily (n=812)."
            await event_queue.enqueue_event(
                new_message([new_text_part(answer)], context_id=context.context_id)
            )
            return
        if v == "jsonrpc-error":
            raise InvalidParamsError(message=RULES[rule], data={"rule": rule, "reason": RULES[rule]})
        emitted = "geo-drill" if v == "unadvertised" else rule
        reason = "Segments can't be mixed." if v == "drifted" else RULES.get(rule, "")
        payload = {"rule": emitted, "reason": reason, "detail": f"asked: {text}"}
        parts = []
        if v != "no-text":
            parts.append(new_text_part(reason))
        if v != "no-data":
            parts.append(
                new_data_part(payload, media_type="application/json" if v == "wrong-media" else MEDIA_TYPE)
            )
        if v == "mixed":
            parts.append(new_text_part("Anyway, my best estimate is 41%."))
        await event_queue.enqueue_event(new_message(parts, context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


TRACE_URI = "https://example.com/ext/traceability/v1"
TOKEN = "s3cret-probe-token"


def build_app(port: int, variant: str) -> Starlette:
    """The agent of one variant. Reach variants (DESIGN §8): `rest` (HTTP+JSON only),
    `streaming`/`streaming-drifted`, `requires-trace` (a second required extension),
    `bearer` (a token on every request), `grpc-only`, `v03-interface` (a v1.0-shaped card
    advertising a 0.3 JSON-RPC interface)."""
    base = f"http://127.0.0.1:{port}"
    binding, version, path = "JSONRPC", "1.0", "/a2a"
    if variant.startswith("rest"):
        binding, path = "HTTP+JSON", ""
    elif variant == "grpc-only":
        binding = "GRPC"
    elif variant == "v03-interface":
        version = "0.3"
    extensions = [AgentExtension(uri=URI, required=False, description="Refusals.", params=RULES)]
    if variant == "requires-trace":
        extensions.append(AgentExtension(uri=TRACE_URI, required=True, description="Traceability."))
    # `requires-trace-silently`: the agent requires the extension but its card does not say so.
    card = AgentCard(
        name="Survey Analyst",
        description="Crosstabs for the 2026 media-habits survey.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=f"{base}{path}", protocol_binding=binding, protocol_version=version)
        ],
        capabilities=AgentCapabilities(streaming=variant.startswith("streaming"), extensions=extensions),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain", "application/json"],
        skills=[
            AgentSkill(
                id="crosstab", name="Crosstab", description="Cross a question by a cut.", tags=["survey"]
            )
        ],
    )
    behaviour = {"streaming-drifted": "drifted", "rest-error": "jsonrpc-error"}.get(variant, variant)
    handler = DefaultRequestHandler(
        agent_executor=SurveyExecutor(behaviour), task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = create_agent_card_routes(card)
    if variant.startswith("rest"):
        routes += create_rest_routes(handler)
    else:
        routes += create_jsonrpc_routes(handler, "/a2a", enable_v0_3_compat=True)
    app = Starlette(routes=routes)
    if variant.startswith("requires-trace"):
        app.add_middleware(_RequireExtension)
    if variant == "bearer":
        app.add_middleware(_RequireToken)
    return app


class _RequireExtension(BaseHTTPMiddleware):
    """A2A capability validation: a required extension not activated is -32008."""

    async def dispatch(self, request: Request, call_next: Any) -> Response:
        active = request.headers.get("A2A-Extensions", "") + request.headers.get("X-A2A-Extensions", "")
        if request.method == "POST" and TRACE_URI not in active:
            error = {"code": -32008, "message": f"extension {TRACE_URI} is required"}
            return JSONResponse({"jsonrpc": "2.0", "id": None, "error": error})
        response: Response = await call_next(request)
        return response


class _RequireToken(BaseHTTPMiddleware):
    async def dispatch(self, request: Request, call_next: Any) -> Response:
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return JSONResponse({"detail": "Not authenticated"}, status_code=401)
        response: Response = await call_next(request)
        return response


if __name__ == "__main__":
    # The server binds its own port (0: the kernel picks a free one) and says which, so no
    # two servers can ever meet on a port guessed for them beforehand.
    variant = sys.argv[1]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    print(port, flush=True)
    config = uvicorn.Config(build_app(port, variant), log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])
