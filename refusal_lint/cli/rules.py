"""`refusal-lint rules` and `rule CODE`: the codes, listed and explained."""

from __future__ import annotations

import sys

import click

from refusal_lint.codes import CODES


@click.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format.")
def rules(fmt: str) -> None:
    """List every code with its name, default severity and whether --fix can fix it."""
    from refusal_lint import rulepages

    click.echo(rulepages.listing_json() if fmt == "json" else rulepages.listing_text(), nl=False)


@click.command("rule")
@click.argument("code")
def rule(code: str) -> None:
    """Explain one code: what, why, an example and how to fix it."""
    c = CODES.get(code.upper())
    if c is None:
        import difflib

        near = difflib.get_close_matches(code.upper(), list(CODES), n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        click.echo(f"refusal-lint: error: unknown code `{code}`{hint}", err=True)
        sys.exit(2)
    click.echo(f"{c.code} {c.name} ({c.severity}{', fixable' if c.fixable else ''})\n")
    click.echo(c.explanation)
