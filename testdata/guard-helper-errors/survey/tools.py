from survey.errors import refuse, reject

CUTS = ("age", "gender", "region")


def crosstab(cut: str, families: list[str]) -> object:
    if len(set(families)) > 1:
        reject("seg-mix", " x ".join(families))
    if cut not in CUTS:
        return refuse("invalid-cut", cut)
    return {"cut": cut}
