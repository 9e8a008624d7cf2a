from survey.policy import refuse


def crosstab(cut, families):
    if len(families) > 1:
        return refuse("seg_mix", detail="families crossed")
    if cut == "zodiac":
        return refuse("astro-cut")
    return refuse("invalid-cut", detail=cut) if cut not in ("age",) else {"cut": cut}
