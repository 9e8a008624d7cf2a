"""`refusal-lint stub`: serve a refusing agent built from a card, to test a client against."""

from __future__ import annotations

from typing import Any

import click

from refusal_lint.cli import options
from refusal_lint.cli.exits import guarded, status
from refusal_lint.core import nogc
from refusal_lint.core.errors import UsageError


@click.command()
@click.argument("card", type=click.Path())
@click.option("--host", default="127.0.0.1", show_default=True, help="Listen on this address.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="0: a free port it picks."
)
@click.option(
    "--rule-for",
    "rule_for",
    multiple=True,
    metavar="TEXT=RULE",
    help="Refuse a message containing TEXT with RULE (repeatable; before the card rule ids it names).",
)
@click.option(
    "--record", "record_file", type=click.Path(), help="At exit, write the requests and faults here (JSON)."
)
@options.VERBOSE
def stub(**kw: Any) -> None:
    """Serve a refusing A2A agent built from CARD, to test a client against (RL501 at exit)."""
    guarded(_stub)(**kw)


def _stub(card: str, host: str, port: int, rule_for: tuple[str, ...], record_file: str | None) -> int:
    from refusal_lint.live.stub import core

    try:  # the server libraries, only now: start-up of every other command stays light
        from refusal_lint.live.stub import app, serve  # noqa: F401
    except ImportError:
        raise UsageError("stub needs the a2a-sdk server: pip install 'refusal-lint[stub]'") from None
    agent = core.stub_card(core.read_card(card), [core.rule_for_option(t) for t in rule_for], card)
    sock, url = serve.bind(host, port)
    record = None
    if record_file is not None:
        try:  # opened now: a path that cannot be written fails before serving, not at exit
            record = open(record_file, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            sock.close()
            raise UsageError(f"{record_file}: cannot write the record: {exc.strerror}") from None

    def ready() -> None:
        click.echo(url)  # the first line on stdout: what a script reads
        rules = ", ".join(agent.rules)
        click.echo(
            f"refusal-lint stub: {agent.name} refuses every message ({rules}); Ctrl-C ends it", err=True
        )

    nogc.long_running()
    recorder = serve.run(agent, sock, url, ready)
    if record is not None:
        import json

        with record:
            json.dump(recorder.record(), record, indent=2, ensure_ascii=False)
            record.write("\n")
    from refusal_lint.report.base import Report
    from refusal_lint.report.formats import FORMATS

    requests = recorder.requests
    refused = sum(r.refused for r in requests)
    click.echo(f"refusal-lint stub: {len(requests)} request(s), {refused} refused")
    click.echo(FORMATS["text"].render(Report(tuple(recorder.faults))), nl=False)
    return status(recorder.faults, False)
