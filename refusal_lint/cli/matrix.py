"""`refusal-lint matrix`: the agreement table of each agent's rules."""

from __future__ import annotations

from typing import Any

import click

from refusal_lint.cli.configure import configure
from refusal_lint.cli.exits import guarded
from refusal_lint.cli.output import emit

MATRIX_FORMATS = ("text", "markdown", "json")


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--config", "config_file", type=click.Path(), help="Config file (default: found upward).")
@click.option("--format", "fmt", type=click.Choice(MATRIX_FORMATS), default="text", help="Output format.")
@click.option("--output", type=click.Path(), help="Write the table to this file.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write .refusal_lint_cache/.")
@click.option("--git-index", is_flag=True, help="Read only the files in git's index.")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Parser processes (default: CPUs).")
@click.option("--verbose", is_flag=True, help="Show the trace of an internal error.")
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
    from refusal_lint import display, pipeline
    from refusal_lint.report import matrix as matrix_report

    targets, cfg, settings = configure(paths, config_file, None, None, no_cache, jobs, git_index)
    result = pipeline.run(targets, cfg, settings)
    render = {
        "text": matrix_report.render_text,
        "markdown": matrix_report.render_markdown,
        "json": matrix_report.render_json,
    }[fmt]
    show = display.from_cwd(result.root)
    emit(
        render(display.relocate(result.agents, show), display.relocate(result.findings, show)), output, False
    )
    return 0
