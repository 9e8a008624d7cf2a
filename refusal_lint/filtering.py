"""After the checks: findings placed on their file's real column, then selected,
per-file-ignored and suppressed (unused suppressions are RL003)."""

from __future__ import annotations

import dataclasses
import os
import re
from typing import TYPE_CHECKING

from refusal_lint import discover
from refusal_lint.checks.files import RL003
from refusal_lint.checks.prompt import RL202, RL203
from refusal_lint.config import Config
from refusal_lint.filekinds import FileKind, kind_of
from refusal_lint.settings import Settings

if TYPE_CHECKING:
    from refusal_lint.baseline import Entry
    from refusal_lint.facts import FileFacts
    from refusal_lint.model import Finding


def file_columns(findings: list[Finding], root: str) -> list[Finding]:
    """RL202/RL203 in a YAML or Python prompt: the column where the id stands in the file.

    Checks see a prompt line as text (dedented, unquoted), so their column is the one in
    that text; the file's own line says where the id really is."""
    lines: dict[str, list[str]] = {}
    out = []
    for f in findings:
        if (
            f.code in (RL202.code, RL203.code)
            and f.rule_id
            and kind_of(f.loc.path) in (FileKind.PYTHON, FileKind.YAML, FileKind.JSON)
        ):
            if f.loc.path not in lines:
                try:
                    with open(os.path.join(root, f.loc.path), encoding="utf-8-sig", errors="replace") as fh:
                        lines[f.loc.path] = fh.read().splitlines()
                except OSError:
                    lines[f.loc.path] = []
            source = lines[f.loc.path]
            if 0 < f.loc.line <= len(source):
                m = re.search(r"(?<![\w-])" + re.escape(f.rule_id) + r"(?![\w-])", source[f.loc.line - 1])
                if m is not None:
                    loc = dataclasses.replace(
                        f.loc, col=m.start() + 1, end_line=f.loc.line, end_col=m.end() + 1
                    )
                    f = dataclasses.replace(f, loc=loc)
        out.append(f)
    return out


# ---- selection, per-file ignores, suppressions -----------------------------------------------


def select_and_suppress(
    findings: list[Finding], facts: dict[str, FileFacts], cfg: Config, settings: Settings, root: str
) -> list[Finding]:
    kept = [f for f in findings if f.code in settings.select and f.code not in settings.ignore]
    if cfg.per_file_ignores:
        specs = [(discover.gitignore_spec([glob]), codes) for glob, codes in cfg.per_file_ignores]
        base = cfg.base if cfg.source else root

        def ignored(f: Finding) -> bool:
            sub = os.path.relpath(os.path.join(root, f.loc.path), base).replace(os.sep, "/")
            return any(f.code in codes and spec.match_file(sub) for spec, codes in specs)

        kept = [f for f in kept if not ignored(f)]
    used: set[tuple[str, int]] = set()
    out = []
    own = {(p, s.line): s for p, f in facts.items() for s in f.suppressions}
    # Each line a comment covers: its own, or a YAML block scalar under its key.
    sup = {(p, ln): s for (p, _), s in own.items() for ln in range(s.line, max(s.line, s.end_line) + 1)}
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
    if RL003.code in settings.select and RL003.code not in settings.ignore and len(used) < len(own):
        for (path, line), s in sorted(own.items()):
            if (path, line) not in used:
                what = f"[{','.join(s.codes)}]" if s.codes else ""
                out.append(RL003.finding(s.loc, f"unused suppression `refusal-lint: ignore{what}`"))
    return sorted(out, key=lambda f: f.sort_key())


def unrecorded(
    findings: list[Finding], recorded: list[Entry], baseline_path: str, settings: Settings, root: str
) -> list[Finding]:
    """The findings a baseline does not hide, and (RL003) its entries that hide nothing."""
    from refusal_lint import baseline

    where = os.path.relpath(os.path.abspath(baseline_path), root).replace(os.sep, "/")
    kept, stale = baseline.apply(findings, recorded, baseline.LineTexts(root), where)
    if RL003.code in settings.select and RL003.code not in settings.ignore:
        kept += stale
    return sorted(kept, key=lambda f: f.sort_key())
