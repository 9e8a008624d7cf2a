from crewai.tools import tool

from survey_crew.refusal import refuse

CUTS = ("age", "gender", "region")


@tool("crosstab")
def crosstab(question: str, cut: str, families: list[str]) -> object:
    """Cross a question by a cut."""
    if len(set(families)) > 1:
        return refuse("seg-mix", f"{' x '.join(families)}")
    if cut not in CUTS:
        return refuse("invalid-cut", detail=cut)
    return {"question": question, "cut": cut}
