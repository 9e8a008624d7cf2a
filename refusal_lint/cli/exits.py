"""Exit statuses (DESIGN §1): 1 for error findings, 2 for bad usage or an internal fault."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from refusal_lint.codes import is_error
from refusal_lint.core.errors import UsageError


def guarded(fn: Callable[..., int]) -> Callable[..., None]:
    """Exit 2 with one line for bad usage or an internal fault; never a raw traceback."""

    def wrapper(*args: Any, verbose: bool = False, **kwargs: Any) -> None:
        try:
            code = fn(*args, **kwargs)
        except UsageError as exc:
            click.echo(f"refusal-lint: error: {exc}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("refusal-lint: interrupted", err=True)
            sys.exit(2)
        except Exception as exc:  # an internal fault: one line, the trace only on request
            if verbose:
                import traceback  # here: start-up is part of every run's time

                traceback.print_exc()
            click.echo(
                f"refusal-lint: internal error: {type(exc).__name__}: {exc} "
                "(run with --verbose for the trace)",
                err=True,
            )
            sys.exit(2)
        sys.exit(code)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


def status(findings: list[Any], exit_zero: bool) -> int:
    has_errors = any(is_error(f.code) for f in findings)
    return 1 if has_errors and not exit_zero else 0
