from survey.refusals import refuse

CUTS = ("age", "gender", "region")


def crosstab(question: str, cut: str, families: list[str]) -> dict[str, object]:
    """Cross a survey question by a demographic cut."""
    if len(set(families)) > 1:
        return refuse("seg-mix", detail=" x ".join(families))
    if cut not in CUTS:
        return refuse("invalid-cut", detail=cut)
    return {"question": question, "cut": cut}
