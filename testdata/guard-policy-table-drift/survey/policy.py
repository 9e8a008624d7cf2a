from collections.abc import Callable
from dataclasses import dataclass

from a2a.types import Part

from survey.refusals import refuse

CUTS = frozenset({"age", "gender", "region"})


@dataclass(frozen=True)
class Query:
    text: str
    cut: str
    families: tuple[str, ...]


POLICIES: dict[str, Callable[[Query], bool]] = {
    "seg-mix": lambda q: len(set(q.families)) > 1,
    "invalid-cuts": lambda q: q.cut not in CUTS,
}


def check(query: Query) -> list[Part] | None:
    """The first policy the query breaks, as refusal Parts; None when it may be computed."""
    for rule, hit in POLICIES.items():
        if hit(query):
            return refuse(rule, detail=query.text)
    return None
