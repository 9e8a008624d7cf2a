"""Command line (DESIGN §1): the `refusal-lint` group. Each command is a module of this
package (options, then a function that runs it); exits.py sets the exit status."""

from __future__ import annotations

import click

from refusal_lint import __version__
from refusal_lint.cli import check, lsp, matrix, probe, rules, stub


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="refusal-lint")
def main() -> None:
    """Check that an A2A agent's refusals card, system prompt and guards agree."""


for _command in (check.check, matrix.matrix, probe.probe, stub.stub, lsp.server, rules.rules, rules.rule):
    main.add_command(_command)
