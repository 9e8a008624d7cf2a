"""Constants of the Refusals v1 spec (../shared/spec/refusals-v1.txt)."""

from __future__ import annotations

import re

URI = "https://standards.upperhandai.com/ext/refusals/v1"
MEDIA_TYPE = "application/vnd.upperhand.refusal+json"
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
PAYLOAD_KEYS = frozenset({"rule", "reason", "detail"})
# The errors a refusal must not be sent as: JSON-RPC's and A2A's (a2a-sdk's classes, which
# 1.x executors raise themselves: `raise UnsupportedOperationError(message=...)`), HTTP's,
# and an MCP server's (`raise McpError(ErrorData(...))`).
PROTOCOL_ERRORS = frozenset(
    {"JSONRPCError", "JSONRPCErrorResponse", "ServerError", "A2AError", "HTTPException", "McpError"}
    | {"JSONParseError", "InvalidRequestError", "MethodNotFoundError", "InvalidParamsError", "InternalError"}
    | {"TaskNotFoundError", "TaskNotCancelableError", "PushNotificationNotSupportedError"}
    | {"UnsupportedOperationError", "ContentTypeNotSupportedError", "InvalidAgentResponseError"}
    | {"AuthenticatedExtendedCardNotConfiguredError", "ExtendedAgentCardNotConfiguredError"}
    | {"ExtensionSupportRequiredError", "VersionNotSupportedError"}
)


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


def fold_id(text: str) -> str:
    return text.lower().replace("-", "").replace("_", "")


def near_miss(token: str, rule_id: str) -> bool:
    """A near miss in prose: `misspelt`, and no plural or singular of a one-word id."""
    return misspelt(token, rule_id) and not inflected(token.lower(), rule_id)


def misspelt(token: str, rule_id: str) -> bool:
    """A near miss by DESIGN's letter (as a rule line's id is asked): folds to the id, or is
    one edit from an id of 5+ characters and no longer id's prefix."""
    if token == rule_id:
        return False
    if fold_id(token) == fold_id(rule_id):
        return True
    low = token.lower()
    if low.startswith(rule_id + "-") or low.startswith(rule_id + "_"):
        return False
    return len(rule_id) >= 5 and one_edit(low, rule_id)


def inflected(low: str, rule_id: str) -> bool:
    """Is `low` a plural or singular of a one-word id (`diagnoses` of `diagnosis`)? Prose, not
    a misspelt id; a kebab id's (`refund-limits`) may be a rename the prompt missed."""
    singular = rule_id[:-1] if rule_id.endswith("s") and not rule_id.endswith(("is", "us", "ss")) else ""
    forms = {rule_id + "s", rule_id + "es", singular, rule_id.removesuffix("is") + "es"}
    return rule_id.isalpha() and low in forms - {rule_id, "es"}


def nearest(token: str, ids: list[str]) -> str | None:
    """The card id a token most likely meant, for did-you-mean."""
    import difflib

    for rid in ids:
        if near_miss(token, rid):
            return rid
    close = difflib.get_close_matches(token.lower(), ids, n=1, cutoff=0.6)
    return close[0] if close else None


# RL101's word for an extension entry that is the URI alone (`"extensions": ["https://..."]`).
NOT_AN_OBJECT = "extension entry is not an object"
