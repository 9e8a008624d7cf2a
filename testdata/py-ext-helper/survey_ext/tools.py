"""Crosstab tools; each guard refuses through the extension helper."""

from langchain_core.tools import tool

from survey_ext import agent

DEFINED_CUTS = ("age", "gender", "region")


@tool
def crosstab(question: str, cut: str, segment_family: str | None = None) -> object:
    """Cross a survey question by one demographic cut, optionally within a segment family."""
    if segment_family and cut not in DEFINED_CUTS:
        return agent.refusals.refusal_parts("seg-mix", detail=f"{segment_family} x {cut}")
    if cut not in DEFINED_CUTS:
        return agent.refusals.refusal_parts("invalid-cut", detail=cut)
    return {"question": question, "cut": cut, "rows": []}


TOOLS = [crosstab]
