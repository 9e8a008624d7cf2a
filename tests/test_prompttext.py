"""The prompt reader: precision on ordinary prompts, and properties of the rule-line parser."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import Repo, check_json, fixture_repo
from fixture_repos.builder import SURVEY_RULES, extension
from hypothesis import given, settings
from hypothesis import strategies as st

from refusal_lint.core import prompttext, spec
from refusal_lint.core.model import PromptLine

CARD_IDS = ["seg-mix", "invalid-cut"]


def _lines(text: str) -> tuple[PromptLine, ...]:
    return tuple(PromptLine(t, i + 1) for i, t in enumerate(textwrap.dedent(text).splitlines()))


# Realistic system prompts with no refusal rules in them: hyphenated prose, Note:/Example:
# lines, key: value lists, headings that speak of what not to do.
ORDINARY = [
    """You are a helpful customer-support assistant for Acme's e-commerce store.
    Note: never share order numbers of other customers.
    Example: "Your order #1234 ships on Monday."
    """,
    """# Role
    You are a senior Python code-reviewer. Focus on thread-safety, error-handling and
    performance. Prefer small, self-contained suggestions.

    ## Output format
    - summary: one sentence
    - findings: a bulleted list, most severe first
    - follow-up: questions for the author, if any
    """,
    """You are a travel agent. Tone: warm, up-to-date, to-the-point.
    Steps:
    1. Ask for dates - departure and return.
    2. Suggest two or three options.
    Example: Lisbon, 3-5 May, mid-range hotels.
    """,
    """System: you answer questions about the HR handbook.
    Do not give legal advice. Do not speculate about salaries.
    Format = plain text, no markdown.
    """,
    """You are a state-of-the-art research assistant.
    - real-time data: say when figures may be out of date
    - peer-reviewed sources first; pre-prints are second-tier
    Note - cite with author-year.
    """,
    """## Persona
    A friendly, non-judgmental fitness coach.

    ## Rules of thumb
    * warm-up: always suggest five minutes
    * cool-down: stretching for the major muscle-groups
    """,
    """You help users write SQL for a read-only analytics warehouse.
    Never write DROP, DELETE or UPDATE statements; the connection is read-only anyway.
    Example: SELECT country, count(*) FROM orders GROUP BY 1;
    """,
    """You are Ava, the onboarding bot of a B2B SaaS product.
    Key facts:
    - plan-tiers: Starter, Growth, Enterprise
    - trial-length: 14 days
    - sign-in: SSO or e-mail magic link
    """,
    """Translate the user's text from English to German. Keep brand-names and code-snippets
    unchanged. Output only the translation.""",
    """You are a math tutor for 12-14 year olds. Explain step-by-step; check the answer
    at the end. If the student is stuck, give a hint - not the solution.
    Note: use metric units.
    """,
    """You summarise meeting transcripts.
    Output:
    Summary: three bullet points
    Decisions: a list
    Action-items: owner - task - due date
    """,
    """<instructions>
    You are a legal-document classifier. Labels: NDA, MSA, SOW, DPA.
    Answer with the label only.
    </instructions>""",
    """You write release notes. Sections: New, Improved, Fixed. Use past-tense, user-facing
    language; no internal ticket-ids. Example: "Fixed a crash when exporting to CSV." """,
    """You are the weather assistant. Temperature in °C, wind in km/h.
    When data is unavailable say so - never invent a forecast.
    """,
    """### Guidelines
    - Be concise.
    - Cite the knowledge-base article (kb-1234 style ids) you used.
    - Escalate to a human for billing-disputes.
    """,
    """You classify support tickets by urgency: low, medium, high, critical.
    critical: outage affecting all users
    high: a paying customer is blocked
    low: everything else
    """,
    """You are a product-copy writer. Voice: playful but clear. Avoid buzz-words such as
    "best-in-class" and "cutting-edge". Max 60 words.""",
    """You are an SRE assistant. Read-only access to dashboards. Suggest run-book steps;
    never restart production services yourself. On-call rota: see PagerDuty.
    """,
    """Answer in JSON: {"answer": string, "confidence": 0-1}. No prose outside the JSON.""",
    """You are a recipe assistant. Dietary flags: vegan, gluten-free, nut-free.
    Note: ask about allergies before suggesting a dish.
    Example - "Here is a gluten-free banana bread."
    """,
    """You won't be asked for medical advice; if you are, recommend a doctor.
    Topics you handle:
    - sleep-hygiene tips
    - screen-time habits
    """,
    """Refusal policy: decline requests for personal data politely and offer alternatives.
    Tone: calm and factual.
    """,
]


@pytest.mark.parametrize("text", ORDINARY, ids=[f"prompt{i}" for i in range(len(ORDINARY))])
def test_ordinary_prompts_give_no_prompt_findings(text: str) -> None:
    lines = _lines(text)
    assert prompttext.unknown_ids(lines, CARD_IDS) == []
    assert [r for r in prompttext.rule_lines(lines) if r.rule_id in CARD_IDS] == []
    assert all(not prompttext.mentions(lines, rid) for rid in CARD_IDS)


def test_ordinary_hyphenated_items_of_a_rule_list_are_no_unknown_ids() -> None:
    """A list that states a card rule under words of refusing: its other hyphenated ids
    are RL202 (DESIGN §2 (a)), but an everyday compound or a sentence-case word is prose."""
    lines = _lines(
        """Refuse these, naming the rule:
        - seg-mix: Segmentation families cannot be crossed; ask for one family per cut.
        - follow-up: ask one clarifying question at a time.
        - Month-end: figures are final after the close.
        - geo-drill: Regions cannot be drilled below state level.
        - Seg-mixx: a near miss is one whatever its case.
        """
    )
    assert [u.token for u in prompttext.unknown_ids(lines, CARD_IDS)] == ["geo-drill", "Seg-mixx"]


@pytest.mark.parametrize(
    "slot", ["$seg_mix", "${seg_mix}", "{seg_mix}", "{{ seg_mix }}", "%(seg_mix)s", "{% if seg_mix %}"]
)
def test_a_template_variable_is_no_near_miss(slot: str) -> None:
    """A template's variable (`string.Template`, `.format`, Jinja, `%`) is filled in before
    the model reads the prompt: its name is no rule's near miss; written out, it is."""
    lines = _lines(f"Refuse these, naming the rule:\n- seg-mix: {slot}\n")
    assert prompttext.unknown_ids(lines, CARD_IDS) == []
    assert prompttext.PLACEHOLDER.search(slot)
    written = _lines("Refuse these, naming the rule:\n- seg-mix: never seg_mix two families.\n")
    assert [u.token for u in prompttext.unknown_ids(written, CARD_IDS)] == ["seg_mix"]


@pytest.mark.parametrize(
    "text",
    [
        "- seg-mix: **Never cross families.**",
        "- **seg-mix**: **Never cross families.**",
        "- seg-mix: *Never cross families.*",
        "- seg-mix: _Never cross families._",
        "- seg-mix: ***Never cross families.***",
        "**seg-mix:** Never cross families.",
        "- **seg-mix: Never cross families.**",
        "- ***seg-mix***: Never cross families.",
        "- __seg-mix__: Never cross families.",
        "*seg-mix*: *Never cross families.*",
        "- seg-mix: Never cross families. <!-- keep in sync -->",
    ],
)
def test_emphasis_around_the_whole_reason_is_not_part_of_it(text: str) -> None:
    [stated] = prompttext.rule_lines(_lines(text))
    assert (stated.rule_id, stated.reason) == ("seg-mix", "Never cross families.")


@pytest.mark.parametrize(
    "text", ["- seg-mix: **Never** cross families.", "- seg-mix: Never cross *two* families, ever."]
)
def test_emphasis_inside_a_reason_stays(text: str) -> None:
    [stated] = prompttext.rule_lines(_lines(text))
    assert stated.reason == text.split(": ", 1)[1]


def test_a_commented_rule_line_is_no_rule_line() -> None:
    """A comment a renderer drops (Jinja `{# #}`, HTML `<!-- -->`), on one line or several,
    states and mentions nothing; the text around it keeps its columns."""
    lines = _lines(
        "{# old:\n- seg-mix: Old reason.\n#}\n"
        "<!-- - invalid-cut: Old. --> - invalid-cut: New.\n"
        "<!--\n- geo-drill: Gone.\n-->\n- seg-mix: New."
    )
    assert [(r.rule_id, r.reason, r.line, r.col) for r in prompttext.rule_lines(lines)] == [
        ("invalid-cut", "New.", 4, 32),
        ("seg-mix", "New.", 8, 3),
    ]
    assert [pl.line for pl in prompttext.mentions(lines, "seg-mix")] == [8]
    assert prompttext.unknown_ids(lines, CARD_IDS) == []
    # A comment never closed is none: a stray `{#` or `<!--` in prose hides nothing after it.
    stray = _lines("Link sections with {#anchors} or <!-- markers.\n- seg-mix: New.")
    assert [(r.rule_id, r.reason) for r in prompttext.rule_lines(stray)] == [("seg-mix", "New.")]


def test_the_line_above_a_refusing_heading_is_not_in_its_section() -> None:
    """A heading starts a block: `cross-tab` above `## Refusals` (no blank line between) is
    no listed id, while one below it still is."""
    text = (
        "Answer with a `cross-tab` table and the base size.\n"
        "## Refusals\n"
        "- seg-mix: Segmentation families cannot be crossed; ask for one family per cut.\n"
        "- geo-drill: Regions are not drilled below the state.\n"
    )
    assert [u.token for u in prompttext.unknown_ids(_lines(text), CARD_IDS)] == ["geo-drill"]


def test_rule_line_forms() -> None:
    forms = [
        "- seg-mix: Reason.",
        "* **seg-mix** — Reason.",
        "1. `seg-mix` - Reason.",
        "seg-mix = Reason.",
        '  "seg-mix": "Reason.",',
        "- **seg-mix:** Reason.",
        "- 'seg-mix' – Reason.",
        "| seg-mix | Reason. |",
        "| `seg-mix` | Reason. | since v2 |",
    ]
    for form in forms:
        [rl] = prompttext.rule_lines(_lines(form))
        assert (rl.rule_id, rl.reason) == ("seg-mix", "Reason."), form


def test_whole_token_mentions() -> None:
    lines = _lines("Avoid seg-mixing.\nThe seg-mix-v2 rule.\nUse seg-mix, please.")
    assert [pl.line for pl in prompttext.mentions(lines, "seg-mix")] == [3]


@pytest.mark.parametrize(
    ("token", "near"),
    [
        ("seg_mix", True),
        ("segmix", True),
        ("Seg-Mix", True),
        ("seg-mixx", True),
        ("seg-mixing", False),
        ("seg-mix-v2", False),
        ("sex-mix", True),
        ("pii", False),
    ],
)
def test_near_miss(token: str, near: bool) -> None:
    assert spec.near_miss(token, "seg-mix") is near


def test_an_id_capitalised_at_a_sentence_start_is_prose() -> None:
    """The card's own reason, `Seg-mix ...`, copied into the prompt names no unknown rule;
    other spellings of the id still do."""
    lines = _lines("- seg-mix: Seg-mix requests cross families.\nAlso Seg-Mix, SEG-MIX and Seg_mix.")
    found = [u.token for u in prompttext.unknown_ids(lines, ["seg-mix"])]
    assert found == ["Seg-Mix", "SEG-MIX", "Seg_mix"]


@pytest.mark.parametrize("indent", ["  ", ""])
def test_wrapped_reason_is_accepted(indent: str) -> None:
    """Wrapped onto an indented line, or onto one that is not (Markdown's lazy continuation,
    a YAML folded block's next line: the model reads one line)."""
    lines = _lines(f"- invalid-cut: That demographic cut is not defined\n{indent}for this study.\n")
    [rl] = prompttext.rule_lines(lines)
    assert rl.states("That demographic cut is not defined for this study.")


@pytest.mark.parametrize(
    "after",
    ["invalid-cut: cannot be crossed", "# cannot be crossed", "- cannot be crossed", '"""', "</rules>"],
)
def test_a_wrap_stops_at_an_item_heading_rule_line_or_closing(after: str) -> None:
    first, *_ = prompttext.rule_lines(_lines(f"- seg-mix: Families\n{after}\n"))
    assert first.wrapped == ""


@pytest.mark.parametrize("comment", ["<!-- keep in sync with the card -->", "{# from the card #}"])
def test_a_comment_ending_the_line_is_no_part_of_the_reason(comment: str) -> None:
    [rl] = prompttext.rule_lines(_lines(f"- seg-mix: Families cannot be crossed. {comment}\n"))
    assert rl.reason == "Families cannot be crossed." and rl.states("Families cannot be crossed.")


def test_a_sentence_ended_is_not_continued_by_the_next_line() -> None:
    [rl] = prompttext.rule_lines(_lines("- seg-mix: Families cannot be crossed.\nBe polite.\n"))
    assert rl.wrapped == ""


_ids = st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}", fullmatch=True)
_reason_chars = st.characters(
    codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp"), exclude_characters="`*_\"'“”‘’"
)
_reasons = (
    st.text(_reason_chars, min_size=1, max_size=80)
    .map(str.strip)
    .filter(lambda r: any(c.isalpha() for c in r))
)  # a reason has a word (a number alone is data: see test_a_line_whose_reason_has_no_word_states_no_rule)
_prompt_lines = st.lists(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60), max_size=12
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_parser_never_raises(text: str) -> None:
    lines = tuple(PromptLine(t, i + 1) for i, t in enumerate(text.splitlines()))
    prompttext.rule_lines(lines)
    prompttext.unknown_ids(lines, CARD_IDS)
    for pl in lines:
        prompttext.rule_line(pl.text)


@settings(max_examples=300, deadline=None)
@given(
    _prompt_lines,
    _ids,
    _reasons,
    st.integers(min_value=0, max_value=12),
    st.sampled_from(["- ", "* ", "", "1. "]),
)
def test_inserted_rule_line_is_mentioned_with_its_reason(
    prompt: list[str], rule_id: str, reason: str, where: int, marker: str
) -> None:
    lines = [ln for text in prompt for ln in text.splitlines() or [""]]
    where = min(where, len(lines))
    lines.insert(where, f"{marker}{rule_id}: {reason}")
    numbered = tuple(PromptLine(t, i + 1) for i, t in enumerate(lines))
    assert where + 1 in [pl.line for pl in prompttext.mentions(numbered, rule_id)]
    stated = [rl for rl in prompttext.rule_lines(numbered) if rl.line == where + 1]
    assert len(stated) == 1 and stated[0].rule_id == rule_id and stated[0].states(reason)


def test_placeholder_reasons_are_not_compared(tmp_path: object) -> None:
    from refusal_lint.core.model import Loc, Prompt, Rule, RuleSet
    from refusal_lint.static.checks.prompt import check_prompts as check

    card = RuleSet(Loc("c.json"), (Rule("seg-mix", "Real reason.", Loc("c.json", 2)),), usable=True)
    for line in ['- seg-mix: {{ reasons["seg-mix"] }}', "- seg-mix: {SEG_REASON}", "- seg-mix: {…}"]:
        prompt = Prompt(Loc("p.j2"), (PromptLine(line, 1),))
        assert check(card, [prompt]) == []
    drifted = Prompt(Loc("p.md"), (PromptLine("- seg-mix: Other reason.", 1),))
    assert [f.code for f in check(card, [drifted])] == ["RL203"]


FOLDED = """analyst:
  role: >
    Survey analyst
  backstory: >
    You never guess a number.

    Refuse these and name the rule:

    - seg-mix: Mixing is refused.
  goal: "Answer with crosstabs.\\n- invalid-cut: Quoted."
"""


def test_yaml_prompt_lines_are_real_file_lines() -> None:
    from refusal_lint.static.extract.job import Job
    from refusal_lint.static.extract.run import extract

    facts = extract(Job("config/agents.yaml", "yaml", FOLDED.encode(), want_prompt=True))
    stated = {
        rl.rule_id: rl.line
        for p in facts.prompts
        for rl in prompttext.rule_lines(p.lines)
        if "-" in rl.rule_id
    }
    assert stated == {"seg-mix": 9, "invalid-cut": 10}


def test_python_prompt_lines_are_real_file_lines(tmp_path: Path) -> None:
    import shutil

    shutil.copy(fixture_repo("py-rl301") / "agent-card.json", tmp_path / "agent-card.json")
    (tmp_path / "prompt.py").write_text(
        'SYSTEM_PROMPT = "\\n".join(\n    [\n        "You are the survey analyst.",\n'
        '        "- seg-mix: Wrong reason here.",\n    ]\n)\n\n'
        'OTHER_PROMPT = (\n    "Line one.\\n"\n    "- invalid-cut: Also wrong.\\n"\n)\n'
    )
    data = check_json(tmp_path, "--select", "RL203")
    assert [(f["line"], f["rule_id"]) for f in data["findings"]] == [(4, "seg-mix"), (10, "invalid-cut")]


_TOKENS = [
    "seg-mix", "seg_mix", "SegMix", "seg-mixx", "seg-mi", "segmix", "seg-mixing", "invalid-cut",
    "invalid_cutt", "invalidcut", "inval-cut", "s-e-g-m-i-x", "follow-up", "cut", "- ", ": ", "\n",
]  # fmt: skip


def _plain_near_misses(lines: tuple[PromptLine, ...], card_ids: list[str]) -> set[tuple[str, int]]:
    """Every token tried against every id, as near_miss says (no length bound)."""
    return {
        (m[0], pl.line)
        for pl in lines
        for m in prompttext.TOKEN.finditer(pl.text)
        if m[0] not in card_ids
        and not prompttext.capitalised(m[0], set(card_ids))
        and any(spec.near_miss(m[0], r) for r in card_ids)
    }


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=30), st.sampled_from([CARD_IDS, ["ab-cd"], ["s-e-g"]]))
def test_near_misses_are_every_token_near_miss_says(pieces: list[str], ids: list[str]) -> None:
    lines = tuple(PromptLine(t, i + 1) for i, t in enumerate(" ".join(pieces).splitlines()))
    found = {(u.token, u.line) for u in prompttext.unknown_ids(lines, ids)}
    assert _plain_near_misses(lines, ids) <= found


@pytest.mark.parametrize(
    ("text", "card_id", "found"),
    [
        ("You may explain diagnoses a clinician already made.", "diagnosis", []),
        ("Never handle terminations yourself.", "termination", []),
        ("Summarise the termination notice only.", "terminations", []),
        ("Refuse every diagnosys request.", "diagnosis", ["diagnosys"]),
        ("Refuse refund-limits requests.", "refund-limit", ["refund-limits"]),
        ("Refuse these:\n- diagnoses: I can't diagnose; see a clinician.", "diagnosis", ["diagnoses"]),
        ("Refuse these:\n- malwares: I can't write malware.", "malware", ["malwares"]),
        ("Refuse these:\n- malwares are refused: I can't write malware.", "malware", []),
        ("You can help with:\n- passwords: resetting them by email.", "password", []),
        ("Refuse these:\nmalwares: I can't write malware.", "malware", []),
    ],
)
def test_a_plural_of_a_one_word_id_is_prose_not_a_near_miss(
    text: str, card_id: str, found: list[str]
) -> None:
    """Inflections of an id that is one plain word are ordinary English (DESIGN §2: precision
    first); a misspelling still is a near miss, and so is a kebab id's variant, which may be
    a rename the prompt missed, and so is a plural that is the id of a list item where rules
    are listed (audit N2 6); not of a list of what the agent does (audit R)."""
    assert [u.token for u in prompttext.unknown_ids(_lines(text), [card_id])] == found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Never share PII, and refuse VIOLENCE in any form.", []),
        ("Violence is refused; so are JailBreak prompts.", []),
        ("- PII: I can't reveal personal information.", ["PII"]),
        ("- pii: I can't reveal personal information. Never share PII.", []),
        ("Refuse SELF-HARM requests.", ["SELF-HARM"]),
        ("Refuse self_harm and violance requests.", ["self_harm", "violance"]),
    ],
)
def test_a_one_word_id_in_other_case_is_prose_unless_it_states_a_rule(text: str, found: list[str]) -> None:
    """An acronym (`PII`), emphasis (`VIOLENCE`) or a name (`JailBreak`) in prose is no
    misspelt rule; the same token as a rule line's id is one, and so is a kebab id's
    (`SELF-HARM`) or a misspelling."""
    ids = ["jailbreak", "pii", "self-harm", "violence"]
    assert [u.token for u in prompttext.unknown_ids(_lines(text), ids)] == found


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("Never share PII with anyone.", ""),
        ("- PII: I can't reveal personal information.", "RL202 [PII] the prompt names rule `PII`"),
    ],
)
def test_an_acronym_id_in_capitals_through_the_cli(repo: Repo, line: str, found: str) -> None:
    ids = ("pii", "seg-mix")
    repo.card(extension(params=dict(zip(ids, SURVEY_RULES.values(), strict=True))))
    repo.tools(ids)
    prompt = repo.prompt(ids)
    prompt.write_text(prompt.read_text() + line + "\n")
    report = repo.check()
    assert (found in report) if found else report.startswith("All checks passed!"), report


@pytest.mark.parametrize(
    ("prompt", "found"),
    [
        ("Refuse malwares of any kind.\n", ""),
        ("Refuse these:\n- malwares: I can't write that code.\n", "RL202 [malwares]"),
        ("You can help with:\n- malwares: scanning uploads for them.\n", ""),
    ],
)
def test_a_plural_as_a_rule_lines_id_through_the_cli(
    repo: Repo, prompt: str, found: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prompt file names no card id but the plural (so only a gate that reads DESIGN's
    near miss, inflections too, reads it), in both modes: RL201 for the rule either way."""
    ids = ("malware", "seg-mix")
    repo.card(extension(params=dict(zip(ids, SURVEY_RULES.values(), strict=True))))
    repo.tools(ids)
    repo.prompt(ids).write_text(prompt)
    for exhaustive in ("", "1"):
        monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", exhaustive)
        report = repo.check()
        assert "RL201 [malware]" in report, report
        assert (found in report) if found else "RL202" not in report, report


@pytest.mark.parametrize(
    ("line", "states"),
    [
        ("    'toxicity': 0.00044308538781479,", False),
        ("- toxicity: 0.5", False),
        ("| toxicity | 3 |", False),
        ("- toxicity: No scores over 0.5.", True),
        ("| toxicity | No scores. |", True),
    ],
)
def test_a_line_whose_reason_has_no_word_states_no_rule(line: str, states: bool) -> None:
    """A record in a docstring (`'toxicity': 0.0004,`) or a table of numbers is data: no
    reason to compare with the card's (RL203), and none for --fix to write over."""
    assert (prompttext.rule_line(line) is not None) is states


def test_a_near_miss_inside_a_link_is_no_finding() -> None:
    """A page's path (`.../policies/seg_mix`) names a page, not a rule; the same token in the
    text still is a near miss."""
    lines = _lines("Our policy: https://wiki.example.com/policies/seg_mix (see seg_mix there).")
    assert [(u.token, u.col) for u in prompttext.unknown_ids(lines, CARD_IDS)] == [("seg_mix", 60)]


@pytest.mark.parametrize(
    ("line", "unknown"),
    [
        # a tool named for the rule it guards, named as a tool: no near miss
        ("Call the invalid_cut tool when a cut is asked for.", []),
        ("Use `invalid_cut()` first.", []),
        ("Use the `invalid_cut` function first.", []),
        ("The tool invalid_cut checks the cut.", []),
        ("Tools: invalid_cut, crosstab.", []),
        ("Use invalid_cut to check a cut.", []),
        ("The invalid_cut and crosstab tools are read-only.", []),
        ("Call invalid_cut when a cut is asked for.", []),
        ("See tools.invalid_cut for the list.", []),
        # the same token as prose, or as a rule line's id, is one
        ("Never accept an invalid_cut.", ["invalid_cut"]),
        ("Never accept an invalid_cut. Our tools check cuts.", ["invalid_cut"]),
        ("- invalid_cut: That cut is not defined.", ["invalid_cut"]),
        ("Call the InvalidCut tool.", ["InvalidCut"]),  # no snake-case tool name
    ],
)
def test_a_tool_named_for_its_rule_is_no_near_miss(line: str, unknown: list[str]) -> None:
    lines = _lines(f"Refuse these, naming the rule:\n- seg-mix: No.\n{line}\n")
    assert [u.token for u in prompttext.unknown_ids(lines, CARD_IDS)] == unknown
