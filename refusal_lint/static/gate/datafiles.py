"""Which job a data or text file gets in the first stage (schedule.py's read_data): read
as a card candidate or a configured prompt file now, remembered as prompt-only for the
second stage (a prompt file matters only where a card does), or passed over."""

from __future__ import annotations

from refusal_lint.config import Config
from refusal_lint.core.facts import FileFacts
from refusal_lint.core.filekinds import kind_of, no_prompt_by_content
from refusal_lint.core.kinds import FileKind
from refusal_lint.static.cache import PROMPT_ONLY
from refusal_lint.static.discover import walk as discover
from refusal_lint.static.discover.roles import Roles
from refusal_lint.static.extract.data import comments
from refusal_lint.static.extract.job import Job
from refusal_lint.static.gate import prefilter
from refusal_lint.static.gate.text import shapes


def wants_card(rel: str, data: bytes, cfg: Config, roles: Roles, exhaustive: bool = False) -> bool:
    """Is this data file read for a card: configured as one, or a candidate by its text?"""
    return rel in roles.cards or (
        not cfg.agents
        and kind_of(rel) != FileKind.TEXT
        and (exhaustive or prefilter.is_card_candidate(rel, data))
    )


def read_again(entry: discover.Entry, facts: FileFacts, roles: Roles) -> bool:
    """A data or text file read with the cards (a card candidate, or for its suppression
    comments), whose prompt candidates were looked for before any card's ids were known:
    it is read again where they are (the prompt stage), for strings that name one; so is
    one the parser rejects that was not needed without them (RL002 where it names one)."""
    unjudged = facts.problem is not None and not facts.problem.needed
    return (
        facts.kind != FileKind.PYTHON
        and bool(facts.prompts or facts.suppressions or unjudged)
        and entry.rel not in roles.prompt_files
        and not no_prompt_by_content(entry.rel)
    )


def job(
    entry: discover.Entry, data: bytes, cfg: Config, roles: Roles, exhaustive: bool = False
) -> Job | str | None:
    """A job to read the file now, PROMPT_ONLY (the second stage's), or None (passed over)."""
    kind = kind_of(entry.rel)
    if kind is None:
        return None
    want_card = wants_card(entry.rel, data, cfg, roles, exhaustive)
    want_prompt = entry.rel in roles.prompt_files or (
        not cfg.agents and shapes.is_prompt_file(entry.rel, kind, data)
    )
    # A suppression comment is read where it stands, in both modes alike: unused, it is RL003.
    noted = comments.may_hold(kind, data)
    if want_prompt and not want_card and not noted and entry.rel not in roles.prompt_files:
        return PROMPT_ONLY  # a prompt file matters only where a card does: read in the second stage
    if (
        noted
        or (kind == FileKind.TEXT and want_prompt)
        or (kind != FileKind.TEXT and (want_card or want_prompt))
    ):
        return Job(
            entry.rel,
            kind,
            data,
            want_card,
            want_prompt,
            roles.prompt_files.get(entry.rel),
            read_whole=entry.rel in roles.cards,  # configured: RL100 when unreadable, whatever it says
            exhaustive=exhaustive,
        )
    if not cfg.agents and not no_prompt_by_content(entry.rel):
        return PROMPT_ONLY  # strings under prompt keys, or that name a card rule, in an agent's scope
    return None
