"""The options several commands take, declared once so their names and help stay alike."""

from __future__ import annotations

import click

VERBOSE = click.option("--verbose", is_flag=True, help="Show the trace of an internal error.")
COLOR = click.option(
    "--color/--no-color",
    default=None,
    help="Colour the text (default: at a terminal; NO_COLOR, FORCE_COLOR).",
)
NO_CACHE = click.option("--no-cache", is_flag=True, help="Neither read nor write .refusal_lint_cache/.")
JOBS = click.option(
    "--jobs", type=click.IntRange(min=1), default=None, help="Parser processes (default: CPUs)."
)
