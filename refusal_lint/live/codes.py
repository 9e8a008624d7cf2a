"""RL400-RL408 (DESIGN §8): a running agent's answers against the spec's "Conformance
(probed)". The conformance library (conformance.py) judges an answer; `probe` (probe.py)
adds what reaching the agent finds (no card, HTTP errors). RL501 (DESIGN §10): the other
side, a client's fault as the refusing stub agent (stub/) sees it. Defined here, apart from
all three, so the registry of codes does not import the judging or serving code."""

from __future__ import annotations

from refusal_lint.core.kinds import Severity
from refusal_lint.core.model import Code

RL400 = Code(
    code="RL400",
    name="probe-unreachable",
    severity=Severity.ERROR,
    summary="the card or the endpoint cannot be fetched",
    what="""`refusal-lint probe` could not fetch the card (both well-known paths) or get an
answer from the agent's JSON-RPC endpoint: connection refused, an HTTP error status, a
timeout, or a body that is not JSON.""",
    why="nothing can be probed; the agent is down, misrouted, or not an A2A agent.",
    fix="""check the URL, that the agent serves /.well-known/agent-card.json, and that its
interface url answers JSON-RPC POSTs.""",
    example="""{"jsonrpc": "2.0", "id": 1}
""",
    fixed="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mix", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
)

RL401 = Code(
    code="RL401",
    name="refusal-as-jsonrpc-error",
    severity=Severity.ERROR,
    summary="the envelope holds `error` instead of `result`",
    what="the provoked request came back as a JSON-RPC error object.",
    why="""the spec makes a refused request a successful exchange: a normal result carrying
the refusal Parts, never a protocol error.""",
    fix="return a message with the text Part and the refusal data Part instead of raising:",
    example="""{"jsonrpc": "2.0", "id": 1,
 "error": {"code": -32602, "message": "One family per cut."}}
""",
    fixed="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mix", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
)

RL402 = Code(
    code="RL402",
    name="refusal-not-fired",
    severity=Severity.ERROR,
    summary="a normal answer came back where the rule should refuse",
    what="the message written to provoke the rule got an ordinary answer, with no refusal Part.",
    why="""a refused computation answered anyway is a fabricated answer, the one thing the
spec forbids outright.""",
    fix="make the tool-level guard fire for this request, or correct the probe message.",
    example="""[
  {"text": "Here is the crosstab of both families: ..."}
]
""",
    fixed="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mix", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
)

RL403 = Code(
    code="RL403",
    name="text-part-missing",
    severity=Severity.ERROR,
    summary="no text/plain Part carrying the reason",
    what="the refusal came with its data Part but no text Part.",
    why="plain clients that ignore data Parts show nothing; the spec asks for both Parts.",
    fix="emit a text Part holding the reason next to the data Part.",
    example="""[
  {"data": {"rule": "seg-mix", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
    fixed="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mix", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
)

RL404 = Code(
    code="RL404",
    name="data-part-malformed",
    severity=Severity.ERROR,
    summary="no data Part with the refusal media type, or its data is not {rule, reason[, detail]}",
    what="""the refusal's data Part is missing, carries another media type, or its data has
other keys or non-string values.""",
    why="""consumers recognise a refusal by the media type application/vnd.upperhand.refusal+json
and read exactly rule, reason and detail.""",
    fix="a data Part whose data is exactly rule, reason and (optionally) detail, with the refusal media"
    " type:",
    example="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mix", "reason": "One family per cut.", "code": 422},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
    fixed="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mix", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
)

RL405 = Code(
    code="RL405",
    name="refused-rule-unadvertised",
    severity=Severity.ERROR,
    summary="the emitted `rule` is not a key of the card's params",
    what="the agent refused with a rule id its card does not advertise.",
    why="""consumers must find the emitted rule in the card's map; an unknown one cannot be
rendered or filtered.""",
    fix="emit the card's id, or add the rule to the card.",
    example="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mixing", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
    fixed="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mix", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
)

RL406 = Code(
    code="RL406",
    name="refused-reason-mismatch",
    severity=Severity.ERROR,
    summary="the emitted reason (or the text Part) is not the advertised one-liner",
    what="""the data Part's `reason`, or the text Part, says something other than the card's
reason for the emitted rule.""",
    why="the reason is the advertised one-liner; callers and evals compare it verbatim.",
    fix="read the reason from the card's params map when building both Parts.",
    example="""[
  {"text": "Families never mix."},
  {"data": {"rule": "seg-mix", "reason": "Families never mix."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
    fixed="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mix", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
)

RL407 = Code(
    code="RL407",
    name="refusal-mixed-with-content",
    severity=Severity.ERROR,
    summary="other Parts sit beside the refusal Parts",
    what="""besides the refusal's text and data Parts, the answer holds other text, data or
file Parts.""",
    why="""the refusal Parts must replace the result entirely; anything beside them is an
answer the agent said it would not give.""",
    fix="return only the two refusal Parts.",
    example="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mix", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"},
  {"text": "Meanwhile, here is the crosstab: ..."}
]
""",
    fixed="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mix", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
)

RL408 = Code(
    code="RL408",
    name="media-type-untransported",
    severity=Severity.WARNING,
    summary="a v0.3 agent: data Parts carry no media type",
    what="""the agent was probed over A2A v0.3, where data Parts have no media type, so the
refusal Part was recognised by its keys.""",
    why="consumers on v0.3 cannot tell a refusal from other data by its type.",
    fix="""serve A2A v1.0 (the a2a-sdk serves both on one endpoint), or put the media type in
the Part's metadata.""",
    example="""{"jsonrpc": "2.0", "id": 1, "result": {"kind": "message", "role": "agent", "parts": [
  {"kind": "text", "text": "One family per cut."},
  {"kind": "data", "data": {"rule": "seg-mix", "reason": "One family per cut."}}
]}}
""",
    fixed="""[
  {"text": "One family per cut."},
  {"data": {"rule": "seg-mix", "reason": "One family per cut."},
   "mediaType": "application/vnd.upperhand.refusal+json"}
]
""",
)

RL501 = Code(
    code="RL501",
    name="retried-unchanged",
    severity=Severity.ERROR,
    summary="a client sent again, unchanged, a request the agent refused",
    what="""`refusal-lint stub` (or the `refusing_agent` fixture) received the same call again: a
message sent by the same kind of method as one it had already refused (`send`: SendMessage,
message/send, message:send; `stream`: SendStreamingMessage, message/stream, message:stream;
binding and protocol version aside) whose Parts equal that message's Parts. The same Parts
over the other kind (once plainly, once streaming, as `refusal-lint probe` asks a streaming
agent) are not a retry.""",
    why="""the spec's consumer requirement 2: a client MUST NOT retry a refused request
unchanged; the same request gets the same refusal, and a loop of retries is load for nothing.""",
    fix="""show the refusal (naming its rule, `rc.render_text`) and let the user change the
request; never resend it as it was, not even on a timeout or a reconnect.""",
    example="""[
  {"method": "SendMessage", "parts": [{"text": "Cross the two families, please."}]},
  {"method": "SendMessage", "parts": [{"text": "Cross the two families, please."}]}
]
""",
    fixed="""[
  {"method": "SendMessage", "parts": [{"text": "Cross the two families, please."}]},
  {"method": "SendMessage", "parts": [{"text": "Then one family: the age bands."}]}
]
""",
)

# The live codes (DESIGN §8, §10): the probe's, then the stub's consumer faults.
CODES = (RL400, RL401, RL402, RL403, RL404, RL405, RL406, RL407, RL408, RL501)
