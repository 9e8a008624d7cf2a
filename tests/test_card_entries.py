"""RL101-RL107 on the survey agent whose card differs in one extension entry (the builder in
conftest.py writes the rest): each entry, and the exact report."""

from __future__ import annotations

import pytest
from conftest import ABSENT, SURVEY_RULES, Repo, extension

CARD = ".well-known/agent-card.json"
ONE_ERROR = "\nFound 1 error and 0 warnings.\n"

CASES = [
    (
        "required-not-bool",
        extension(required="no"),
        f"{CARD}:11:9: RL101 extension entry malformed: `required` is string, not a boolean",
    ),
    (
        "uri-not-string",
        extension(uri=42),
        f"{CARD}:11:9: RL101 extension entry malformed: `uri` is number, not a string",
    ),
    (
        "params-absent",
        extension(description=ABSENT, params=ABSENT),
        f"{CARD}:11:9: RL103 no params: the extension advertises no rules",
    ),
    (
        "params-a-list",
        extension(params=["seg-mix", "invalid-cut"]),
        f"{CARD}:14:9: RL104 params is not an object of rule id -> reason",
    ),
    (
        "reason-an-object",
        extension(params={**SURVEY_RULES, "seg-mix": {"reason": SURVEY_RULES["seg-mix"]}}),
        f"{CARD}:15:11: RL104 [seg-mix] the reason of `seg-mix` is an object, not a string",
    ),
    (
        "reason-on-two-lines",
        extension(
            params={
                **SURVEY_RULES,
                "seg-mix": "Segmentation families cannot be crossed;\nask for one family per cut.",
            }
        ),
        f"{CARD}:15:11: RL106 [seg-mix] the reason of `seg-mix` is more than one line",
    ),
]


@pytest.mark.parametrize(("why", "entry", "want"), CASES, ids=[c[0] for c in CASES])
def test_entry(repo: Repo, why: str, entry: dict[str, object], want: str) -> None:
    assert repo.agent(entry).check() == want + "\n" + ONE_ERROR


def test_rule_id_not_kebab_case(repo: Repo) -> None:
    """The prompt and the guard use the card's id as written: RL105 alone."""
    params = {"Seg_Mix": "Segmentation families cannot be crossed; ask for one family per cut."}
    params["invalid-cut"] = "That demographic cut is not defined for this study."
    repo.agent(extension(params=params), ids=("Seg_Mix", "invalid-cut"))
    assert repo.check() == (
        f"{CARD}:15:11: RL105 [Seg_Mix] rule id `Seg_Mix` is not kebab-case\n" + ONE_ERROR
    )


def test_the_survey_agent_is_clean(repo: Repo) -> None:
    assert repo.agent().check() == "All checks passed!\n"
