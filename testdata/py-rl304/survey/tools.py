from survey.policy import refuse, rule_for


def crosstab(cut, kind, families):
    if len(families) > 1:
        return refuse(f"seg-{kind}")
    if cut not in ("age", "region"):
        return refuse(rule_for(cut))
    chosen = "seg-mix" if families else "invalid-cut"
    return refuse(chosen)
