from survey_enum.rules import RefusalError, Rule

SEGMENTS = {"pathfinder": "polaris", "anchor": "polaris", "left": "ideology", "right": "ideology"}
CUTS = {"age", "gender", "region"}


def crosstab(question: str, by: list[str]) -> dict[str, object]:
    families = {SEGMENTS[b] for b in by if b in SEGMENTS}
    if len(families) > 1:
        raise RefusalError(rule=Rule.SEG_MIX, detail=" x ".join(sorted(families)))
    unknown = [b for b in by if b not in SEGMENTS and b not in CUTS]
    if unknown:
        raise RefusalError(Rule.INVALID_CUT.value, detail=unknown[0])
    return {"question": question, "by": by, "rows": []}
