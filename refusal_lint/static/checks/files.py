"""RL002-RL005 and RL100: files whose facts are unknown, and findings about the run itself
(suppressions that silence nothing, files no agent claims). The stages record what they
met as facts (extraction a file's problem, scoping the files no agent claims, filtering
the suppressions and baseline entries nothing used); this module turns them into findings."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from refusal_lint.core import spec
from refusal_lint.core.kinds import ProblemKind, Severity
from refusal_lint.core.model import Code, Finding, Loc
from refusal_lint.static.checks.base import Check, Run

if TYPE_CHECKING:
    from refusal_lint.core.facts import Suppression
    from refusal_lint.static.baseline import Entry
    from refusal_lint.static.bind.agent import Agent


RL002 = Code(
    code="RL002",
    name="syntax-error",
    severity=Severity.WARNING,
    summary="a Python, JSON or YAML file in scope cannot be parsed by the standard parser",
    what="""a file that may hold a card, a prompt or a guard is rejected by the standard parser
(`ast.parse` for Python, `json` for JSON, PyYAML for YAML), or is not valid UTF-8. The
file is skipped and the run goes on.""",
    why="facts in that file are invisible, so other findings may be missing.",
    fix="correct the syntax at the reported line, e.g. a trailing comma in JSON:",
    example="""==> refusals.json <==
{"refusals": {"seg-mix": "One family per cut.",}}
""",
    fixed="""==> refusals.json <==
{"refusals": {"seg-mix": "One family per cut."}}
""",
)

RL003 = Code(
    code="RL003",
    name="unused-suppression",
    severity=Severity.WARNING,
    summary="a `# refusal-lint: ignore[...]` that silences nothing",
    what="a suppression comment whose codes match no finding on its line.",
    why="stale suppressions hide future problems and mislead readers.",
    fix="delete the comment, or narrow it to the code that really fires there:",
    example="""==> tools.py <==
from policy import refuse

def crosstab(families):
    return refuse("seg-mix") if families else None  # refusal-lint: ignore[RL304]
""",
    fixed="""==> tools.py <==
from policy import refuse

def crosstab(families):
    return refuse("seg-mix") if families else None
""",
)

RL004 = Code(
    code="RL004",
    name="agent-ambiguous",
    severity=Severity.ERROR,
    summary="a file in scope belongs to no agent or to two",
    what="""the tree holds several cards, and a file that yields facts (a prompt, a guard, a
card) sits under no agent root, or under two equally near ones.""",
    why="each agent is checked against its own card only; refusal-lint cannot guess which.",
    fix="say which files belong to which agent in the config:",
    example="""==> agent-card.json (deleted) <==
==> prompt.md (deleted) <==
==> tools.py (deleted) <==
==> survey/agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
==> survey/prompt.md <==
- seg-mix: One family per cut.
==> survey/tools.py <==
from policy import refuse
crosstab = lambda families: refuse("seg-mix") if len(families) > 1 else families
==> media/agent-card.json (extensions) <==
{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
==> media/prompt.md <==
- seg-mix: One family per cut.
==> media/tools.py <==
from policy import refuse
reach = lambda families: refuse("seg-mix") if len(families) > 1 else families
==> shared/cuts.py <==
from policy import refuse
cut = lambda families: refuse("seg-mix") if len(families) > 1 else families
""",
    fixed="""==> .refusal-lint.yaml <==
agents:
  - name: survey
    card: survey/agent-card.json
    prompt: survey/prompt.md
    guards: ["survey/*.py", "shared/*.py"]
  - {name: media, card: media/agent-card.json, prompt: media/prompt.md, guards: ["media/*.py"]}
""",
)

RL005 = Code(
    code="RL005",
    name="file-unchecked",
    severity=Severity.WARNING,
    summary="a valid file could not be analysed within the limits; its facts are unknown",
    what="""the standard parser accepts the file, but refusal-lint could not analyse it within
its limits: the parser used up its CPU time (`parse-timeout`, CPU seconds per file), ran
out of memory, crashed, or met nesting deeper than it reads.""",
    why="""whatever card, prompt or guard the file holds is invisible, so other findings may be
missing or wrong. The limits are CPU time and memory, never wall-clock time, so the same
tree gives the same findings under any load.""",
    fix="raise the limit if the file is worth reading, or leave it out:",
    example="""==> data/agent-card.json <==
<<[ * 20000>><<] * 20000>>
""",
    fixed="""==> .refusal-lint.yaml <==
exclude: ["data/"]
""",
)

RL100 = Code(
    code="RL100",
    name="card-unreadable",
    severity=Severity.ERROR,
    summary="the configured card file is missing or is not valid JSON/YAML",
    what="""the `card:` of an `agents:` entry names a file that does not exist or cannot be parsed
(the line and column where parsing stopped are given).""",
    why="without the card there is nothing to check the prompt and guards against.",
    fix="correct the path in the config, or the file's syntax.",
    example="""==> .refusal-lint.yaml <==
agents:
  - {name: survey, card: cards/survey.json, prompt: prompt.md, guards: ["*.py"]}
""",
    fixed="""==> .refusal-lint.yaml <==
agents:
  - {name: survey, card: agent-card.json, prompt: prompt.md, guards: ["*.py"]}
""",
)

CODES = (RL002, RL003, RL004, RL005, RL100)


# Findings about the run, not about one agent's line: they name no agent.
RUN_WIDE = frozenset({RL002.code, RL003.code, RL004.code})


def check(agent: Agent | None, run: Run) -> list[Finding]:
    """A finding for each file a parser rejected or a limit stopped (for a configured card,
    an unreadable or missing file is RL100), then for each file no agent, or two, claim."""
    findings = []
    cards = run.configured_cards
    for path in sorted(run.facts):
        problem = run.facts[path].problem
        if problem is not None and (problem.needed or _the_only_prompt(path, run)):
            unchecked = problem.kind == ProblemKind.UNCHECKED
            code = RL005.code if unchecked else RL100.code if path in cards else RL002.code
            findings.append(Finding(code, problem.loc, problem.message))
    # A configured card read whole that gave its agent no card (a Python module that builds
    # none, or no longer): as a data file without the extension.
    cardless = {a.card_path for a in run.bound.agents if a.card_path and a.card is None}
    for card_path in sorted(cards):
        if card_path in run.facts and (card_path not in cardless or run.facts[card_path].problem is not None):
            continue
        if card_path in run.walked:
            message = f"configured card `{card_path}` advertises no Refusals v1 extension (`{spec.URI}`)"
        else:
            message = f"configured card `{card_path}` not found"
        findings.append(RL100.finding(Loc(card_path), message))
    for u in run.bound.unclaimed:
        findings.append(
            RL004.finding(
                Loc(u.path),
                (
                    "this file belongs to two agents equally: their cards share its folder"
                    if u.shared
                    else "this file belongs to no agent: several cards were found and none is above it"
                )
                + "; say which agent it belongs to with `agents:` in the config (`guards:` globs)",
            )
        )
    return findings


def _the_only_prompt(path: str, run: Run) -> bool:
    """Is an unread file that may hold a prompt all that an agent of it has for one?"""
    return any(a.prompt_missing and a.under_root(path) for a in run.bound.agents)


def unused_suppressions(unused: Iterable[Suppression]) -> list[Finding]:
    """RL003 for each suppression comment that silenced no finding."""
    out = []
    for s in unused:
        what = f"[{','.join(s.codes)}]" if s.codes else ""
        out.append(RL003.finding(s.loc, f"unused suppression `refusal-lint: ignore{what}`"))
    return out


def stale_entries(entries: Iterable[Entry], where: str) -> list[Finding]:
    """RL003 for each baseline entry (in the baseline file `where`) that hid no finding."""
    out = []
    for e in entries:
        rule = f" [{e.rule_id}]" if e.rule_id else ""
        out.append(
            RL003.finding(
                Loc(where, e.line),
                f"baseline entry {e.code}{rule} in {e.path} matches no finding now: drop it "
                "(--write-baseline rewrites the file)",
            )
        )
    return out


CHECK = Check("files", CODES, check, per_agent=False)
