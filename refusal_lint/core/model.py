"""Plain facts shared by every stage: locations, finding codes, findings, rule sets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from refusal_lint.core.kinds import EditKind, PromptForm, Severity


@dataclass(frozen=True, order=True)
class Loc:
    """A span in a file; lines and columns are 1-based, path relative and '/'-separated."""

    path: str
    line: int = 1
    col: int = 1
    end_line: int = 0
    end_col: int = 0

    def at(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line}

    @property
    def ident(self) -> str:
        """`path:line:col`: names a node (a card, a params dict) across files and runs."""
        return f"{self.path}:{self.line}:{self.col}"


# A path a finding's message names (a folder, a card), relative to the run's root as a Loc's
# is: marked, so that the reports show it as they show the finding's own path, from the
# current folder (report/display.py, the one place paths are rebased). The mark (ASCII's
# unit separator) stands in no path.
PATH_MARK = "\x1f"


def message_path(path: str) -> str:
    """`path` as a finding's message names it."""
    return f"{PATH_MARK}{path}{PATH_MARK}"


@dataclass(frozen=True)
class Edit:
    """What --fix would change for one finding: a Python string literal, or text on a line."""

    path: str
    line: int
    old: str  # the literal's current value, or the text as it stands on the line
    new: str  # the card's reason
    kind: EditKind
    col: int = 0  # literal: its span, 1-based, end exclusive
    end_line: int = 0
    end_col: int = 0


@dataclass(frozen=True)
class Finding:
    code: str
    loc: Loc
    message: str
    rule_id: str | None = None
    agent: str | None = None
    edit: Edit | None = None

    @property
    def fixable(self) -> bool:
        """--fix has an edit for it (RL203, RL303 where the text can be rewritten safely)."""
        return self.edit is not None

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.loc.path, self.loc.line, self.loc.col, self.code, self.rule_id or "")


TOOL = "refusal-lint"
BASELINE_FORMAT = f"{TOOL}-baseline/1"  # a baseline file's "format"
REPO = f"https://github.com/upperhand/{TOOL}"
RULE_PAGES = "docs/rules"  # one page a code, generated from the registry (python -m refusal_lint.rulepages)


@dataclass(frozen=True, kw_only=True)
class Code:
    """One finding code of DESIGN §3, defined beside the check that emits it; `codes.CODES`
    gathers them. `what`, `why` and `fix` keep the line breaks `rule CODE` prints."""

    code: str
    name: str
    severity: Severity
    summary: str
    what: str
    why: str
    fix: str
    # A failing example and its fixed form, runnable (examples.py): the example agent's files
    # each example replaces, or the A2A answer a probe got (RL4xx).
    example: str = ""
    fixed: str = ""
    fixable: bool = False

    def finding(
        self, loc: Loc, message: str, rule_id: str | None = None, edit: Edit | None = None
    ) -> Finding:
        return Finding(self.code, loc, message, rule_id=rule_id, edit=edit)

    @property
    def explanation(self) -> str:
        """What `refusal-lint rule CODE` prints below the title."""
        text = f"What: {self.what}\nWhy: {self.why}"
        if self.example:
            text += "\nExample:" + "".join("\n    " + line for line in shown(self.example))
        text += f"\nFix: {self.fix}"
        if self.fixed:
            text += "".join("\n    " + line for line in shown(self.fixed))
        return text

    @staticmethod
    def one_line(text: str) -> str:
        return " ".join(line.strip() for line in text.splitlines() if line.strip())

    @property
    def url(self) -> str:
        return f"{REPO}/blob/main/{RULE_PAGES}/{self.code}.md"


@dataclass(frozen=True)
class Rule:
    """One advertised rule of a card: its id, its reason (None if not a string), where its key stands."""

    rule_id: str
    reason: str | None
    loc: Loc


@dataclass(frozen=True)
class RuleSet:
    """The rules one card advertises (its refusals extension entry), as the checks read them."""

    loc: Loc  # the extension entry (uri key / AgentExtension( call)
    rules: tuple[Rule, ...]  # empty when the params are unusable
    usable: bool  # False: RL100/RL103/RL104-for-non-object; skip RL2xx/RL3xx
    agent_name: str | None = None
    params_id: str = ""  # identity of the params dict (for derived prompts and RULES[...] lookups)
    broken: bool = False  # a card file no parser reads (RL002): its agent's guards fire against no card
    computed: Loc | None = None  # params only a run computes (`load_rules()`): where; no rules

    def rule_map(self) -> dict[str, Rule]:
        return {r.rule_id: r for r in self.rules}


@dataclass(frozen=True)
class PromptLine:
    text: str  # the prompt's own line (dedented, unquoted, unescaped)
    line: int
    source: str = ""  # the file's line where it differs from `text` (a YAML, JSON or Python string)
    path: str = ""  # the file holding the line, where it is not the prompt's (`BASE + POLICY` imported)


# Text of the items before a list item that may lead it in (`Prompt.lead`), in characters:
# within the reach the text gate gives a word of refusing past its string (listing.py's
# _LEAD_IN bytes), however the items are escaped (at most 10 bytes a character).
LEAD_CHARS = 600


def lead_of(before: list[tuple[PromptLine, ...]]) -> tuple[PromptLine, ...]:
    """The lines of a list's items before an item (`Prompt.lead`): the nearest whole items
    within LEAD_CHARS."""
    out: tuple[PromptLine, ...] = ()
    size = 0
    for lines in reversed(before):
        size += sum(len(pl.text) + 1 for pl in lines)
        if size > LEAD_CHARS:
            break
        out = lines + out
    return out


@dataclass(frozen=True)
class Prompt:
    """One prompt candidate: its text line by line, mapped to real file lines."""

    loc: Loc
    lines: tuple[PromptLine, ...]
    derived: bool = False
    form: PromptForm = PromptForm.FILE
    key: str = ""  # the configured key path it was read under (`prompts.yaml#survey.system`)
    # The lines of the items before it in one list (`instructions=[lead-in, rule line]`, which
    # the framework joins): read for where rules are listed, never checked themselves.
    lead: tuple[PromptLine, ...] = ()

    @cached_property
    def sources(self) -> dict[tuple[str, int], str]:
        """The file's own text of each line by (path, line), the first line that has one:
        looked up once a finding, not searched (a prompt of thousands of rule lines)."""
        out: dict[tuple[str, int], str] = {}
        for pl in self.lines:
            if pl.source:
                out.setdefault((pl.path, pl.line), pl.source)
        return out


def shown(example: str) -> list[str]:
    """An example's lines as a reader sees them: a file section left empty (a card with no
    extension entry, an empty file) says so, where a blank would read as something missing."""
    lines = example.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        last = i + 1 == len(lines) or lines[i + 1].startswith("==> ")
        if line.startswith("==> ") and last and "(deleted)" not in line:
            out.append("(no extension entry)" if "(extensions)" in line else "(empty)")
    return out
