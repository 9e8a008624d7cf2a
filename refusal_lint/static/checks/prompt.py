"""RL200-RL203: the agent's prompt against its card."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from refusal_lint.core import prompttext, spec
from refusal_lint.core.filekinds import prompt_by_name
from refusal_lint.core.kinds import EditKind, Severity
from refusal_lint.core.model import Code, Edit, Finding, Loc, Prompt, Rule, RuleSet, message_path
from refusal_lint.static.checks.base import Check, Run, one_line

if TYPE_CHECKING:
    from refusal_lint.static.bind.agent import Agent

RL200 = Code(
    code="RL200",
    name="prompt-missing",
    severity=Severity.ERROR,
    summary="an agent with refusal rules has no prompt found or configured",
    what="no system prompt was found for an agent whose card advertises rules.",
    why="the model must know the rules to refuse consistently with the card and guards.",
    fix="""set `prompt:` in the agent's config (file, file.yaml#key.path or module.py:NAME), or
keep the prompt where it is discovered (a prompt*.md file, SYSTEM_PROMPT, instruction=...).""",
    example="""==> prompt.md (deleted) <==
""",
    fixed="""==> prompt.md <==
- seg-mix: One family per cut.
""",
)

RL201 = Code(
    code="RL201",
    name="rule-not-in-prompt",
    severity=Severity.ERROR,
    summary="a card rule the prompt never mentions",
    what="the card advertises a rule whose id appears nowhere in the agent's prompt.",
    why="the model cannot refuse by a rule it was never told about.",
    fix="add a rule line to the prompt:",
    example="""==> prompt.md <==
Answer from the survey tables only, and refuse what the rules forbid.
""",
    fixed="""==> prompt.md <==
Answer from the survey tables only, and refuse what the rules forbid:
- seg-mix: One family per cut.
""",
)

RL202 = Code(
    code="RL202",
    name="prompt-unknown-rule",
    severity=Severity.ERROR,
    summary="the prompt names a rule the card does not advertise (did-you-mean)",
    what="""a rule line (or a near miss of a card id, such as `seg_mix`) in the prompt names a
rule the card does not have. The message suggests the nearest card rule. A card id with
only its first letter capitalised (`Seg-mix requests ...`, a sentence that starts with it)
is prose, not a near miss; nor is a tool's snake_case name said as one (`Call the
seg_mix tool`, `seg_mix()`).""",
    why="the model will refuse with a rule no caller can look up.",
    fix="rename it to the card's id, or add the rule to the card.",
    example="""==> prompt.md <==
- seg-mix: One family per cut.
- astro-cut: No zodiac cuts.
""",
    fixed="""==> prompt.md <==
- seg-mix: One family per cut.
""",
)

RL203 = Code(
    code="RL203",
    name="prompt-reason-mismatch",
    severity=Severity.ERROR,
    fixable=True,
    summary="a prompt rule line states another reason than the card",
    what="""the prompt's line `seg-mix: <reason>` states a reason that differs from the card's
(white space folded).""",
    why="users see one wording in refusals and another in the card; evals asserting the reason fail.",
    fix="`refusal-lint check --fix` rewrites the prompt's reason to the card's.",
    example="""==> prompt.md <==
- seg-mix: Never cross two families.
""",
    fixed="""==> prompt.md <==
- seg-mix: One family per cut.
""",
)

CODES = (RL200, RL201, RL202, RL203)


# An f-string's or a template's field (`{Rule.X}`, `{}`, `%s`, `%(rule)s`), on a line as written.
_FIELD = re.compile(r"\{[^{}\n]*\}|%(?:\(\w+\))?s")


def _on_file_line(loc: Loc, rule_id: str, prompt: Prompt) -> Loc:
    """Where the id stands on the file's own line: a prompt line taken from a YAML, JSON or
    Python string is dedented and unquoted, so its column is not the file's."""
    path = "" if loc.path == prompt.loc.path else loc.path
    source = prompt.sources.get((path, loc.line), "")
    found = _written_at(source, rule_id)
    if found is not None:
        k, m = found
        return Loc(loc.path, loc.line + k, m.start() + 1, loc.line + k, m.end() + 1)
    # Filled in by a field of the line (`- {Rule.SEG_MIX.value}: ...`): that field.
    field = _FIELD.search(source.split("\n", 1)[0])
    if field is not None:
        return Loc(loc.path, loc.line, field.start() + 1, loc.line, field.end() + 1)
    # Spelled by an escape (`seg\\x2dmix`): this line, as counted in the decoded text. Or a
    # line joined from strings on other lines (`BASE + " " + RULES`, each a constant): the id
    # is not on the line the joined text starts on, and the column counted in it is no
    # column of that line; the prompt's own place says where it was built.
    return loc if not source or "\\" in source else prompt.loc


def _written_at(source: str, token: str) -> tuple[int, re.Match[str]] | None:
    """Where `token` stands in a prompt line's source: (lines below its own, the match). A
    text line written in pieces over several lines of the file (bind/prompts._source) is looked
    for on its own line first, then on the next."""
    for k, text in enumerate(source.split("\n")):
        m = re.search(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])", text)
        if m is not None:
            return k, m
    return None


def mention_lines(prompts: list[Prompt], rule_id: str) -> list[Loc]:
    """Where the prompt candidates mention the rule, each place once (two candidates may
    hold the same line: a constant that names the rule, and a prompt built from it)."""
    out: dict[Loc, None] = {}
    for p in prompts:
        if p.derived:
            out[p.loc] = None
            continue
        for pl in prompttext.mentions(p.lines, rule_id):
            found = _written_at(pl.source, rule_id)
            out[Loc(pl.path or p.loc.path, pl.line + (found[0] if found else 0))] = None
    return list(out)


def _missing(card: RuleSet, configured: str | None, root: str) -> Finding:
    """RL200: no prompt found, or the configured one is not there."""
    why = (
        f"the configured prompt `{configured}` was not found"
        if configured
        else f"no system prompt found for this agent under `{message_path(root or '.')}/` (looked for prompt "
        "files, YAML/JSON prompt keys, Python prompt arguments, assignments, chat messages and "
        "prompt functions); point `prompt:` in the config at it: `file`, `file.yaml#key.path` "
        "or `module.py:NAME`"
    )
    return RL200.finding(card.loc, why)


def _unmentioned(card: RuleSet, prompts: list[Prompt]) -> list[Finding]:
    """RL201: each card rule no prompt mentions."""
    return [
        RL201.finding(
            rule.loc, f"rule `{rule.rule_id}` is never mentioned in the prompt", rule_id=rule.rule_id
        )
        for rule in card.rules
        if not mention_lines(prompts, rule.rule_id)
    ]


def _unknown(p: Prompt, ids: list[str]) -> list[Finding]:
    """RL202: each rule the prompt names that the card does not advertise."""
    out = []
    for u in prompttext.unknown_ids(p.lines, ids, p.lead):
        hint = f"; did you mean `{u.suggestion}`?" if u.suggestion else ""
        out.append(
            RL202.finding(
                _on_file_line(
                    Loc(u.path or p.loc.path, u.line, u.col, u.line, u.col + len(u.token)), u.token, p
                ),
                f"the prompt names rule `{u.token}`, which the card does not advertise{hint}",
                rule_id=u.token,
            )
        )
    return out


def _reasons(p: Prompt, rules: dict[str, Rule]) -> list[Finding]:
    """RL203: each rule line stating another reason than the card's."""
    out = []
    for rl in prompttext.rule_lines(p.lines):
        stated = rules.get(rl.rule_id)
        if stated is None or stated.reason is None or not spec.one_line_reason(stated.reason):
            continue  # the card's reason is RL106 (or RL104): nothing to compare with
        if prompttext.PLACEHOLDER.search(rl.wrapped or rl.reason):
            continue  # a reason filled in at run time ({{ reasons[...] }}, f"{...}") is not stated here
        if rl.states(stated.reason):
            continue
        path = rl.path or p.loc.path
        loc = _on_file_line(Loc(path, rl.line, rl.col, rl.line, rl.col + len(rl.rule_id)), rl.rule_id, p)
        # A reason wrapped over several lines is not rewritten: that is a judgement call. The
        # id's column tells which reason a line stating the old one twice means (`"...\n- a: X\n- b: X"`).
        col = loc.col if (loc.path, loc.line) == (path, rl.line) else 0
        edit = (
            None
            if rl.wrapped
            else Edit(path=path, line=rl.line, old=rl.reason, new=stated.reason, kind=EditKind.TEXT, col=col)
        )
        out.append(
            RL203.finding(
                loc,
                f'the prompt gives `{rl.rule_id}` the reason "{one_line(rl.wrapped or rl.reason)}"; '
                f'the card says "{one_line(stated.reason)}"',
                rule_id=rl.rule_id,
                edit=edit,
            )
        )
    return out


def check_prompts(
    card: RuleSet, prompts: list[Prompt], configured: str | None = None, root: str = ""
) -> list[Finding]:
    """The agent's prompt candidates that count against its card. A derived one mentions
    every rule (the map is interpolated), but what it states in its own words, beside the
    interpolation, is checked like any other prompt's lines (RL202, RL203)."""
    if not card.usable or not card.rules:
        return []
    if not prompts:
        return [_missing(card, configured, root)]
    out = _unmentioned(card, prompts)
    ids = [r.rule_id for r in card.rules]
    rules = card.rule_map()
    for p in prompts:
        out += _unknown(p, ids) + _reasons(p, rules)
    return out


def check(agent: Agent | None, run: Run) -> list[Finding]:
    if agent is None or agent.card is None:
        return []
    if agent.prompt_missing and _unread_prompt(agent, run):
        return []  # its prompt file could not be read (RL002, RL005): unknown, not missing
    return check_prompts(agent.card, agent.prompts, agent.prompt_spec, agent.root)


def _unread_prompt(agent: Agent, run: Run) -> bool:
    """A file in the agent's folder that may hold its prompt, whose facts are unknown: a
    prompt by its name over max-file-size or past a limit (RL005), or one the parser
    rejects (RL002: by its name, or Python with a prompt shape)."""
    return any(
        f.problem is not None
        and (f.problem.prompt or (f.unchecked() and prompt_by_name(path)))
        and agent.under_root(path)
        for path, f in run.facts.items()
    )


CHECK = Check("prompt", CODES, check)
