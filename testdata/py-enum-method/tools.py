from enum import StrEnum

from policy import RefusalTracker

tracker = RefusalTracker()


class Rule(StrEnum):
    SEG_MIX = "seg-mix"
    INVALID_CUT = "invalid-cut"
    GEO_DRILL = "geo-drill"

    def refuse(self, detail: str = "") -> dict[str, str]:
        return {"rule": self.value, "detail": detail}


def crosstab(cut, families):
    tracker.refuse()
    if len(families) > 1:
        return Rule.SEG_MIX.refuse(detail="families crossed")
    if cut == "zz":
        return Rule.GEO_DRILL.refuse()
    return Rule.INVALID_CUT.refuse(detail=cut)
