from enum import StrEnum


class Rule(StrEnum):
    SEG_MIX = "seg-mix"
    INVALID_CUT = "invalid-cut"


class RefusalError(Exception):
    """Raised by a tool; the executor turns it into the text and data Parts."""

    def __init__(self, rule: Rule, detail: str = "") -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail
