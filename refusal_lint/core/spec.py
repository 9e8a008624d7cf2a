"""Constants of the Refusals v1 spec (../shared/spec/refusals-v1.txt)."""

from __future__ import annotations

import re

URI = "https://standards.upperhandai.com/ext/refusals/v1"
MEDIA_TYPE = "application/vnd.upperhand.refusal+json"
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
PAYLOAD_KEYS = frozenset({"rule", "reason", "detail"})
PROTOCOL_ERRORS = frozenset(
    {"JSONRPCError", "ServerError", "A2AError", "InvalidParamsError", "HTTPException", "McpError"}
)  # McpError: an MCP server's JSON-RPC error (`raise McpError(ErrorData(...))`)


def one_line_reason(reason: str) -> bool:
    """A reason as the spec has it: one line, not blank (RL106 where not; no prompt's or
    guard's reason is compared with one that is not: a card finding never cascades)."""
    return bool(reason.strip()) and "\n" not in reason and "\r" not in reason


def is_kebab(text: str) -> bool:
    return bool(KEBAB.match(text))


def may_be_rule_id(text: str) -> bool:
    """Can this string, fired by a guard, be a rule id? Any string without white space, of
    any length (prose never is one); the one shape binding, the extractor and the gates share,
    so no gate drops an id that binding would report (RL302 for a non-kebab or long one)."""
    return not any(c.isspace() for c in text)


def _fold_uri(uri: str) -> str:
    """Fold what DESIGN's RL102 says a near miss may differ in."""
    text = uri.strip().lower()
    text = re.sub(r"^[a-z][a-z0-9+.-]*://", "", text)
    text = text.rstrip("/")
    text = re.sub(r"/refusals?/", "/refusal/", text + "/").rstrip("/")
    return re.sub(r"/v\d+(?:\.\d+)*$", "/v", text)


_FOLDED_URI = _fold_uri(URI)


def uri_kind(uri: str) -> str | None:
    """'exact', 'near' (RL102) or None when the URI is some other extension."""
    if uri == URI:
        return "exact"
    if _fold_uri(uri) == _FOLDED_URI:
        return "near"
    return None


def media_type_kind(value: str) -> str | None:
    """'exact', 'near' (RL306: the same after folding case and refusal/refusals, or one
    edit away, `+jsn`) or None."""
    if value == MEDIA_TYPE:
        return "exact"
    folded = re.sub(r"[^a-z]", "", value.lower())
    if re.fullmatch(r"applicationvndupperhandrefusals?(json)?", folded) or one_edit(
        value.lower(), MEDIA_TYPE
    ):
        return "near"
    return None


def one_edit(a: str, b: str) -> bool:
    """Are `a` and `b` one insertion, deletion or substitution apart?"""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1 :]


# RL101's word for an extension entry that is the URI alone (`"extensions": ["https://..."]`).
NOT_AN_OBJECT = "extension entry is not an object"
