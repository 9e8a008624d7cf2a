"""Tools the assistant may call. Guards run before any answer is produced."""

from __future__ import annotations

from .refusals import Refusal

CRISIS_TERMS = {"suicide", "kill myself", "end my life"}
ATTACK_TERMS = {"attack", "hurt", "assault"}
WEAPON_TERMS = {"pipe bomb", "ghost gun", "silencer"}
OVERRIDE_TERMS = {"ignore previous instructions", "developer mode", "dan"}
PII_TERMS = {"home address", "phone number", "social security"}


def lookup_guideline(question: str) -> dict[str, object]:
    """Find the guideline section that answers a question."""
    text = question.lower()
    if any(t in text for t in CRISIS_TERMS):
        raise Refusal("self-harm", detail="Crisis language detected.")
    if any(t in text for t in ATTACK_TERMS):
        raise Refusal("violence", detail="Request to plan harm.")
    if any(t in text for t in WEAPON_TERMS):
        raise Refusal("weapons", detail="Weapon construction request.")
    if any(t in text for t in OVERRIDE_TERMS):
        raise Refusal("jailbreak", detail="Instruction override attempt.")
    if any(t in text for t in PII_TERMS):
        raise Refusal("pii", detail="Request for personal information.")
    return {"question": question, "section": None}
