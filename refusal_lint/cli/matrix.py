"""`refusal-lint matrix`: the agreement table of each agent's rules."""

from __future__ import annotations

from typing import Any

import click

from refusal_lint.cli import options
from refusal_lint.cli.exits import guarded
from refusal_lint.cli.output import emit
from refusal_lint.report import formats
from refusal_lint.report.base import Report
from refusal_lint.static.configure import configure


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--config", "config_file", type=click.Path(), help="Config file (default: found upward).")
@click.option("--format", "fmt", type=click.Choice(formats.TABLES), default="text", help="Output format.")
@click.option("--output", type=click.Path(), help="Write the table to this file.")
@options.NO_CACHE
@click.option("--git-index", is_flag=True, help="Read only the files in git's index.")
@options.JOBS
@options.VERBOSE
def matrix(**kw: Any) -> None:
    """The agreement table: per agent, each rule x (card, prompt, guards). Exits 0 unless it cannot run."""
    guarded(_matrix)(**kw)


def _matrix(
    paths: tuple[str, ...],
    config_file: str | None,
    fmt: str,
    output: str | None,
    no_cache: bool,
    jobs: int | None,
    git_index: bool = False,
) -> int:
    from refusal_lint.report import display
    from refusal_lint.static import pipeline

    targets, cfg, settings = configure(paths, config_file, None, None, no_cache, jobs, git_index)
    result = pipeline.run(targets, cfg, settings)
    show = display.from_cwd(result.root)
    run = Report(display.findings(result.findings, show), tuple(display.relocate(result.agents, show)))
    emit(formats.FORMATS[fmt].render_table(run), output, False)
    return 0
