from survey.policy import refuse


def crosstab(cut, families):
    if len(families) > 1:
        return refuse("seg-mix", detail="families crossed")
    if cut not in ("age", "region"):
        return refuse("invalid-cut", detail=cut)
    return {"cut": cut}
