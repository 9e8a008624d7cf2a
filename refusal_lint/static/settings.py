"""How one run goes: what the command line asked for beyond the config."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from refusal_lint.static.discover.contents import DISK, Source

if TYPE_CHECKING:
    from refusal_lint.static.cache import Memory


@dataclass
class Settings:
    select: frozenset[str]
    ignore: frozenset[str]
    use_cache: bool = True
    jobs: int = 1
    parse_timeout: float = 20.0
    # Every shortcut off (REFUSAL_LINT_EXHAUSTIVE=1, for tests): no prefilter or pre-check
    # decides, every file is read for everything. Findings must not change.
    exhaustive: bool = False
    baseline: str | None = None  # a baseline file whose findings are hidden (--baseline, `baseline:`)
    # Where files are read from: the disk, git's index (--git-index), an editor's buffers.
    contents: Source = field(default=DISK)
    memory: Memory | None = None  # the cache kept in memory across runs, not in a folder (the server)

    def wants(self, code: str) -> bool:
        """Is the code selected and not ignored?"""
        return code in self.select and code not in self.ignore
