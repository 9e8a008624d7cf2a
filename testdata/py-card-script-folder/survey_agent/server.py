"""The agent's HTTP face: its card and one JSON-RPC endpoint."""

import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from executor import answer
from toolset import RULES, URI

CARD = {
    "protocolVersion": "0.3.0",
    "name": "Survey Analyst",
    "description": "Crosstabs and segment profiles for the 2026 media-habits survey.",
    "url": "http://127.0.0.1:9999/",
    "version": "1.4.2",
    "capabilities": {
        "streaming": False,
        "extensions": [{"uri": URI, "required": False, "params": RULES}],
    },
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [],
}


async def card(request):
    return JSONResponse(CARD)


async def rpc(request):
    body = await request.json()
    return JSONResponse({"jsonrpc": "2.0", "id": body.get("id"), "result": answer(body["params"])})


app = Starlette(routes=[Route("/.well-known/agent-card.json", card), Route("/", rpc, methods=["POST"])])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=9999)
