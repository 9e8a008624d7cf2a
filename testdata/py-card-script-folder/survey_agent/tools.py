from toolset import refuse

FAMILIES = {"polaris", "ideology", "age"}


def crosstab(cuts, families):
    if len(set(families) & FAMILIES) > 1:
        return refuse("seg-mix", detail="families crossed")
    if "zodiac" in cuts:
        return refuse("invalid-cut")
    return {"cuts": cuts}
