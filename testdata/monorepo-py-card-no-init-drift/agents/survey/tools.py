from refusals import refuse


def crosstab(cut, families):
    if len(families) > 1:
        return refuse("seg-mix")
    if cut not in ("age", "region"):
        return refuse("long-range")
