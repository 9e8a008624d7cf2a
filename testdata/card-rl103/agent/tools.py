from agent.policy import refuse

def crosstab(cuts, families):
    if len(families) > 1:
        return refuse("seg-mix", detail="families crossed")
    return refuse("invalid-cut") if "zodiac" in cuts else {"cuts": cuts}
