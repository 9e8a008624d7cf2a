"""Tools the analyst model may call. Guards run before any number is computed."""

from __future__ import annotations

from survey_agent.refusals import Refusal

SEGMENT_FAMILIES = {
    "polaris": {"pathfinder", "anchor", "drifter"},
    "ideology": {"left", "centre", "right"},
}
DEFINED_CUTS = {"age", "gender", "region", "income", "education"}


def _family(segment: str) -> str | None:
    for family, members in SEGMENT_FAMILIES.items():
        if segment in members:
            return family
    return None


def crosstab(question: str, cuts: list[str]) -> dict[str, object]:
    """Cross one question by one or more cuts."""
    families = {f for f in (_family(c) for c in cuts) if f is not None}
    if len(families) > 1:
        raise Refusal("seg-mix", detail=f"Requested cut combined {' and '.join(sorted(families))}.")
    for cut in cuts:
        if _family(cut) is None and cut not in DEFINED_CUTS:
            raise Refusal("invalid-cut", detail=f"`{cut}` is not a cut of this study.")
    return {"question": question, "cuts": cuts, "table": []}
