from survey.policy import refuse


def crosstab(cut, families):
    if len(families) > 1:
        return refuse("seg-mix", reason="Segments can't be mixed.")
    if cut not in ("age", "region"):
        return refuse("invalid-cut", reason="That demographic cut is not defined for this study.")
    return {"cut": cut}
