"""Where a report goes: --format and --output (also from the environment), then the write."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import click

from refusal_lint.core.errors import UsageError
from refusal_lint.report import formats
from refusal_lint.report.base import writable


def report_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--format and --output, also from the environment (a pre-commit hook in CI)."""
    f = click.option(
        "--output",
        "-o",  # as ruff's and most linters' short form
        type=click.Path(),
        envvar="REFUSAL_LINT_OUTPUT_FILE",
        help="Write the report here (or $REFUSAL_LINT_OUTPUT_FILE).",
    )(f)
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(formats.FORMATS)),
        default=None,
        envvar="REFUSAL_LINT_OUTPUT_FORMAT",
        help="Output format (or $REFUSAL_LINT_OUTPUT_FORMAT).",
    )(f)


def emit(report: str | bytes, output: str | None, color: bool) -> None:
    """The report to `output`, else stdout; bytes (a --diff patch, each file in its own
    encoding) as they are, text as UTF-8 (report.base.writable: whatever it holds)."""
    data = report if isinstance(report, bytes) else writable(report)
    if output:
        try:
            # A report's folder is made as ruff makes it (`-o reports/lint.sarif` in a fresh CI checkout).
            os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
            with open(output, "wb") as fh:
                fh.write(data)
        except OSError as exc:
            raise UsageError(f"{output}: cannot write report: {exc.strerror}") from None
    else:
        click.echo(data, nl=False, color=color)
