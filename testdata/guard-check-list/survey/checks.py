from collections.abc import Callable
from typing import NamedTuple

CUTS = ("age", "gender", "region")


class Check(NamedTuple):
    rule: str
    hit: Callable[[str, list[str]], bool]


class Refusal(Exception):
    """Raised by a tool; the executor turns it into the two refusal Parts."""

    def __init__(self, rule: str, detail: str = "") -> None:
        super().__init__(rule)
        self.rule = rule
        self.detail = detail


CHECKS = [
    Check("seg-mix", lambda cut, families: len(set(families)) > 1),
    Check("invalid-cut", lambda cut, families: cut not in CUTS),
]


def guard(cut: str, families: list[str]) -> None:
    for c in CHECKS:
        if c.hit(cut, families):
            raise Refusal(c.rule, detail=f"{cut}: {', '.join(families)}")
