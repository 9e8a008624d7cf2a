"""Command line (DESIGN §1): the `refusal-lint` group. Each command is a module of this
package (options, then a function that runs it); exits.py sets the exit status."""

from __future__ import annotations

import gc
import os
import sys
import threading
from typing import Any

import click

from refusal_lint import __version__
from refusal_lint.cli import check, lsp, matrix, probe, rules, stub


class _Group(click.Group):
    """click's group, whose usage errors are one line (DESIGN §1: exit 2, one line naming the
    problem), as ours are, instead of click's usage, hint and message."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except click.UsageError as exc:
            where = f"; see `{exc.ctx.command_path} --help`" if exc.ctx is not None else ""
            click.echo(f"refusal-lint: error: {exc.format_message().rstrip('.')}{where}", err=True)
            sys.exit(2)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("refusal-lint: interrupted", err=True)
            sys.exit(2)
        sys.exit(code if isinstance(code, int) else 0)  # --help, --version


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="refusal-lint")
def main() -> None:
    """Check that an A2A agent's refusals card, system prompt and guards agree."""


for _command in (check.check, matrix.matrix, probe.probe, stub.stub, lsp.server, rules.rules, rules.rule):
    main.add_command(_command)


def run() -> None:
    """The console script and `python -m refusal_lint`: `main`, then an exit that skips the
    interpreter's teardown. A run's heap holds the facts of thousands of files, and freeing
    them one by one at exit costs 10-30 ms of every run for nothing (mypy exits so too). The
    ordinary exit stays where it can matter: a thread of ours still running, or an output
    that cannot be flushed (a closed pipe), which Python's own exit reports.

    The cyclic collector stays paused for the whole process, as it is over a run
    (core/nogc.py): re-enabled after the run, its first collection walked every fact of the
    run once more, 35-90 ms of a warm run on a large tree. A command that keeps running
    (the language server, the stub) turns it back on (nogc.long_running)."""
    gc.disable()
    try:
        main()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    status = 0 if code is None else code if isinstance(code, int) else 1
    if isinstance(code, str):
        print(code, file=sys.stderr)
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(status)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(status)
    os._exit(status)
