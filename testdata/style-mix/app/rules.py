class Rule:
    SEG_MIX = "seg-mix"
    INVALID_CUT = "invalid-cut"


REASONS = {
    Rule.SEG_MIX: "Segmentation families cannot be crossed; ask for one family per cut.",
    Rule.INVALID_CUT: "That demographic cut is not defined for this study.",
}


class RefusalError(Exception):
    def __init__(self, rule: str, detail: str = "") -> None:
        super().__init__(rule)
        self.rule, self.detail = rule, detail
