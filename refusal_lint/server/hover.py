"""The hover of a rule id: the card's reason, and where the card, the prompt and the guards
use it (the matrix's row for it), with the findings that concern it."""

from __future__ import annotations

import os
import re

from pygls.uris import from_fs_path

from refusal_lint.core.model import Loc
from refusal_lint.report.matrix import rows
from refusal_lint.server.lint import Snapshot

_WORD = re.compile(r"[A-Za-z0-9_-]+")
MAX_FINDINGS = 5


def word_at(line: str, col: int) -> tuple[str, int, int] | None:
    """The word under the 1-based code-point column, with its 1-based span (end exclusive)."""
    for m in _WORD.finditer(line):
        if m.start() + 1 <= col <= m.end() + 1:  # on the word, or just after it
            return m.group(), m.start() + 1, m.end() + 1
    return None


def _link(snap: Snapshot, loc: Loc) -> str:
    uri = from_fs_path(snap.absolute(loc.path)) or loc.path
    return f"[{loc.path}:{loc.line}]({uri}#L{loc.line})"


def _links(snap: Snapshot, locs: tuple[Loc, ...], empty: str) -> str:
    return ", ".join(_link(snap, loc) for loc in locs) if locs else empty


def hover_text(snap: Snapshot, path: str, rule_id: str) -> str | None:
    """Markdown about `rule_id` for a hover in `path`; None when no card advertises it."""
    rel = os.path.relpath(os.path.abspath(path), snap.root).replace(os.sep, "/")
    having = [a for a in snap.agents if a.card is not None and rule_id in a.card.rule_map()]
    agents = [a for a in having if rel in a.files] or having
    parts: list[str] = []
    for agent in agents:
        assert agent.card is not None
        rule = agent.card.rule_map()[rule_id]
        row = next(r for r in rows(agent, list(snap.findings)) if r.rule_id == rule_id)
        reason = f'"{rule.reason}"' if rule.reason is not None else "(not a string)"
        prompt = f"derived from the card, {_links(snap, row.prompt, '')}" if row.derived else None
        found = [f for f in snap.findings if f.rule_id == rule_id and f.agent in (agent.name, None)]
        lines = [
            f"**`{rule_id}`**, a refusal rule of agent `{agent.name}`",
            "",
            f"Card reason: {reason}",
            "",
            f"- card: {_link(snap, rule.loc)}",
            f"- prompt: {prompt or _links(snap, row.prompt, 'not mentioned')}",
            f"- guards: {_links(snap, row.guards, 'none fire it')}",
        ]
        if found:
            lines += ["", "Findings:"]
            lines += [f"- {f.code} at {_link(snap, f.loc)}: {f.message}" for f in found[:MAX_FINDINGS]]
            if len(found) > MAX_FINDINGS:
                lines.append(f"- and {len(found) - MAX_FINDINGS} more")
        parts.append("\n".join(lines))
    return "\n\n---\n\n".join(parts) if parts else None
