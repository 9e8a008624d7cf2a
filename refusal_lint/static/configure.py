"""What a run reads and how, from the command line: targets, the validated config, settings."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from refusal_lint.codes import CODES, expand
from refusal_lint.core.errors import UsageError

if TYPE_CHECKING:
    from refusal_lint.config import Config
    from refusal_lint.static.settings import Settings


def configure(
    paths: tuple[str, ...],
    config_file: str | None,
    select: str | None,
    ignore: str | None,
    no_cache: bool,
    jobs: int | None,
    git_index: bool = False,
) -> tuple[list[str], Config, Settings]:
    """Targets, the validated config and the run settings, from the command line."""
    from refusal_lint import config as config_mod
    from refusal_lint.static import pipeline
    from refusal_lint.static.discover import contents

    targets = list(paths) or ["."]
    source = contents.GitIndex() if git_index else contents.DISK
    cfg = config_mod.load(config_file, targets[0], source.held)
    chosen = _codes(select, "--select")
    selected = frozenset(chosen if chosen is not None else (cfg.select or set(CODES)))
    ignored = frozenset(cfg.ignore | (_codes(ignore, "--ignore") or set()))
    settings = pipeline.Settings(
        selected,
        ignored,
        not no_cache,
        jobs or _cpus(),
        cfg.parse_timeout,
        exhaustive=os.environ.get("REFUSAL_LINT_EXHAUSTIVE") == "1",
        contents=source,
    )
    return targets, cfg, settings


def _codes(value: str | None, option: str) -> set[str] | None:
    if value is None:
        return None
    try:
        return expand([v for v in value.split(",") if v.strip()])
    except KeyError as exc:
        raise UsageError(f"{option}: unknown code `{exc.args[0]}`") from None


def _cpus() -> int:
    if hasattr(os, "sched_getaffinity"):  # the CPUs this process may use (not on macOS or Windows)
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
