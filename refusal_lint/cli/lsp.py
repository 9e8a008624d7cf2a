"""`refusal-lint server`: the language server (refusal_lint/server/), started over stdio."""

from __future__ import annotations

import sys

import click

from refusal_lint.core import nogc


@click.command()
def server() -> None:
    """Language server for editors: LSP over stdio (needs the `lsp` extra: pygls)."""
    try:
        from refusal_lint.server import app  # pygls only here: `check` never pays for it
    except ImportError as exc:
        click.echo(
            f"refusal-lint: error: server needs pygls (the `lsp` extra): pip install 'pygls>=2,<3' ({exc})",
            err=True,
        )
        sys.exit(2)
    nogc.long_running()
    app.serve()
