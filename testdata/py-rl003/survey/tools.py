from survey.policy import refuse


def crosstab(cut, families, pick):
    if len(families) > 1:
        return refuse("seg-mix", detail="families crossed")  # refusal-lint: ignore[RL302]
    if cut not in ("age", "region"):
        return refuse(pick(cut))  # refusal-lint: ignore[RL304]
    return refuse("invalid-cut")  # refusal-lint: ignore
