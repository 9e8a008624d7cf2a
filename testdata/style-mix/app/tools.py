from app.rules import REASONS, RefusalError, Rule

CUTS = {"age", "region"}


def crosstab(cut: str, families: list[str]) -> dict[str, object]:
    if len(set(families)) > 1:
        return dict(rule=Rule.SEG_MIX, reason=REASONS[Rule.SEG_MIX], detail="+".join(families))
    if cut not in CUTS:
        raise RefusalError(Rule.INVALID_CUT, detail=cut)
    return {"cut": cut, "rows": []}
