"""The registry of finding codes (DESIGN §3; §8 and §10 for the live ones): a static family's
codes are defined in the check module that emits them (checks/registry.py lists those), the
live ones in live/codes.py (apart from the judging and serving code: start-up); this
gathers them in code order for `rule`, `rules`, the reporters, the rule pages and the README
table. Adding a code: its `Code` entry and its finding in its family's module, its name in
that module's `CODES` (a new static family: its line in checks/registry.py)."""

from __future__ import annotations

from refusal_lint.core.kinds import Severity
from refusal_lint.core.model import REPO, RULE_PAGES, Code
from refusal_lint.live import codes as probe
from refusal_lint.static.checks.registry import CHECKS

__all__ = ["CODES", "REPO", "RULE_PAGES", "Code", "expand", "is_error"]

CODES: dict[str, Code] = {
    c.code: c
    for c in sorted((*(c for check in CHECKS for c in check.codes), *probe.CODES), key=lambda c: c.code)
}


def is_error(code: str) -> bool:
    return CODES[code].severity == Severity.ERROR


def expand(patterns: list[str]) -> set[str]:
    """Codes named by `patterns`: full codes or prefixes (`RL3`, `RL30`, `ALL`)."""
    out: set[str] = set()
    for pattern in patterns:
        pat = pattern.strip().upper()
        if pat == "ALL":
            out |= set(CODES)
            continue
        hits = {c for c in CODES if c.startswith(pat)} if pat else set()
        if not hits:
            raise KeyError(pattern)
        out |= hits
    return out
