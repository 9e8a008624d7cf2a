"""After the checks: findings selected, per-file-ignored and suppressed, and those a
baseline records left out; the suppressions and baseline entries that hid nothing are
RL003 (checks/files.py makes them findings)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from refusal_lint.config import Config
from refusal_lint.static.checks import files as file_checks
from refusal_lint.static.discover import walk as discover
from refusal_lint.static.discover.roles import config_relative
from refusal_lint.static.settings import Settings

if TYPE_CHECKING:
    from refusal_lint.core.facts import FileFacts
    from refusal_lint.core.model import Finding
    from refusal_lint.static.baseline import Entry


# ---- selection, per-file ignores, suppressions -----------------------------------------------


def select_and_suppress(
    findings: list[Finding],
    facts: dict[str, FileFacts],
    cfg: Config,
    settings: Settings,
    root: str,
    unchecked: frozenset[str] = frozenset(),
) -> list[Finding]:
    """`unchecked`: the files of agents whose RL2xx/RL3xx checks did not run (no usable
    card): a suppression there that may be meant for one hid nothing only because of that,
    and is no RL003 (a card finding never cascades into others)."""
    kept = [f for f in findings if settings.wants(f.code)]
    if cfg.per_file_ignores:
        specs = [(discover.gitignore_spec([glob]), codes) for glob, codes in cfg.per_file_ignores]

        def ignored(f: Finding) -> bool:
            sub = config_relative(root, cfg, f.loc.path)
            return any(f.code in codes and spec.match_file(sub) for spec, codes in specs)

        kept = [f for f in kept if not ignored(f)]
    used: set[tuple[str, int]] = set()
    out = []
    own = {(p, s.line): s for p, f in facts.items() for s in f.suppressions}
    # Each line a comment covers: its own, a YAML block scalar under its key, or a Python
    # string over several lines ending on its line.
    sup = {
        (p, ln): s
        for (p, _), s in own.items()
        for ln in range(min(s.line, s.first_line or s.line), max(s.line, s.end_line) + 1)
    }
    for f in kept:
        # The comment may end any line of the finding's span (a call written over several lines).
        lines = range(f.loc.line, max(f.loc.line, f.loc.end_line) + 1)
        hit = next(
            (s for ln in lines if (s := sup.get((f.loc.path, ln))) and (not s.codes or f.code in s.codes)),
            None,
        )
        if hit is not None:
            used.add((f.loc.path, hit.line))
            continue
        out.append(f)
    if settings.wants(file_checks.RL003.code) and len(used) < len(own):
        out += file_checks.unused_suppressions(
            s
            for key, s in sorted(own.items())
            if key not in used and not (key[0] in unchecked and _for_agent_checks(s.codes))
        )
    return sorted(out, key=lambda f: f.sort_key())


def _for_agent_checks(codes: tuple[str, ...]) -> bool:
    """May a suppression be meant for an agent's RL2xx/RL3xx findings (every code: maybe)?"""
    return not codes or any(c.startswith(("RL2", "RL3")) for c in codes)


def unrecorded(
    findings: list[Finding], recorded: list[Entry], baseline_path: str, settings: Settings, root: str
) -> list[Finding]:
    """The findings a baseline does not hide, and (RL003) its entries that hide nothing."""
    from refusal_lint.static import baseline

    where = os.path.relpath(os.path.abspath(baseline_path), root).replace(os.sep, "/")
    kept, stale = baseline.apply(findings, recorded, baseline.LineTexts(root, settings.contents.read))
    if settings.wants(file_checks.RL003.code):
        kept += file_checks.stale_entries(stale, where)
    return sorted(kept, key=lambda f: f.sort_key())
