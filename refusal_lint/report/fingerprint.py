"""One stable identity per finding, for SARIF and GitLab Code Quality (which drops repeats)."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from refusal_lint.model import Finding


def fingerprints(findings: list[Finding]) -> list[str]:
    """Stable across runs and line moves, unique within a run: the code, path and rule, and
    which occurrence of that triple it is."""
    seen: dict[tuple[str, str, str], int] = {}
    out = []
    for f in findings:
        key = (f.code, f.loc.path, f.rule_id or "")
        n = seen.get(key, 0)
        seen[key] = n + 1
        out.append(hashlib.sha256(f"{key}|{n}".encode()).hexdigest()[:32])
    return out
