"""`refusal-lint probe`: a running agent (a URL, or an ASGI app in this process) against its card."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import click

from refusal_lint.cli import options
from refusal_lint.cli.exits import guarded, status
from refusal_lint.cli.output import emit, report_options
from refusal_lint.core.errors import UsageError
from refusal_lint.report import formats
from refusal_lint.report.base import Report


@click.command()
@click.argument("url", required=False)
@click.option(
    "--app",
    "app_spec",
    help="Probe this ASGI app in-process instead of a URL (module:attribute; this imports it).",
)
@click.option(
    "--probes", "probes_file", type=click.Path(), help="YAML/JSON map rule-id -> provoking message."
)
@click.option(
    "--header",
    "headers",
    multiple=True,
    help="'Name: value' sent with every request (repeatable); values are never printed.",
)
@click.option(
    "--extension", "extensions", multiple=True, help="Also activate this extension URI (repeatable)."
)
@click.option(
    "--binding", type=click.Choice(["jsonrpc", "http-json"]), default=None, help="Default: from the card."
)
@click.option("--no-stream", is_flag=True, help="No second probe over streaming, even if the card streams.")
@click.option("--protocol", type=click.Choice(["1.0", "0.3"]), default=None, help="Default: from the card.")
@click.option(
    "--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True, help="Seconds a request."
)
@click.option(
    "--config", "config_file", type=click.Path(), help="Config file with `probes:` (default: found upward)."
)
@report_options
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when errors are found.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings only.")
@options.COLOR
@options.VERBOSE
def probe(**kw: Any) -> None:
    """Probe a running agent: its card, and one provoked refusal per rule (RL400-RL408)."""
    guarded(_probe)(**kw)


def _probe(
    url: str | None,
    app_spec: str | None,
    probes_file: str | None,
    headers: tuple[str, ...],
    extensions: tuple[str, ...],
    binding: str | None,
    no_stream: bool,
    protocol: str | None,
    timeout: float,
    config_file: str | None,
    fmt: str | None,
    output: str | None,
    exit_zero: bool,
    quiet: bool,
    color: bool | None,
) -> int:
    from refusal_lint import config as config_mod
    from refusal_lint.live import probe as prober
    from refusal_lint.static.bind.agent import Agent

    cfg = config_mod.load(config_file, os.getcwd())
    probes = dict(cfg.probes)
    if probes_file is not None:
        probes = read_probes(probes_file)
    url, transport = _target(url, app_spec)
    reach = prober.Reach(
        headers=tuple(header(h) for h in headers),
        extensions=extensions,
        binding=binding,
        stream=not no_stream,
    )
    result = prober.probe(url, probes, protocol, timeout, transport=transport, reach=reach)
    findings = sorted(result.findings, key=lambda f: f.sort_key())
    agents = [Agent(result.agent_name, "", result.card)] if result.card else []
    if result.card:  # each finding names the agent probed, as a static run's do
        findings = [dataclasses.replace(f, agent=f.agent or result.agent_name) for f in findings]
    probed = ", ".join(probes) or "none (no probes configured)"
    head = f"probed {result.card_url} over A2A {result.protocol or '?'}; rules: {probed}\n"
    # The rules a message was sent for: all the probes, once an interface was picked.
    sent = tuple(probes) if result.protocol else ()
    run = Report(tuple(findings), tuple(agents), files=1, head=head, command="probe", probed=sent)
    report, use_color = formats.render(
        run, formats.Style(fmt, color, to_file=output is not None, quiet=quiet)
    )
    emit(report, output, use_color)
    return status(findings, exit_zero)


def _target(url: str | None, app_spec: str | None) -> tuple[str, Any]:
    """The URL to probe and the transport to it: None (the network), or into the --app."""
    transport = None
    if app_spec is not None:
        try:
            from refusal_lint.live import inprocess
        except ImportError:
            raise UsageError("probe needs httpx: pip install 'refusal-lint[probe]'") from None

        if url is not None:
            raise UsageError("probe: give a URL or --app, not both")
        url, transport = inprocess.BASE_URL, inprocess.transport_for(inprocess.load_app(app_spec))
    if url is None:
        raise UsageError("probe: give the agent's URL, or --app module:attribute")
    return url, transport


# ---- the command line's inputs -------------------------------------------------------------


def header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not name.strip() or any(c.isspace() for c in name.strip()):
        # It may be a secret pasted without its name: none of it is shown.
        raise UsageError("--header: give it as 'Name: value' (its text is not shown: it may hold a secret)")
    name, value = name.strip(), value.strip()
    if not name.isascii() or not value.isascii() or not value.isprintable():
        # A token file pasted with its line end (CR LF), or a character HTTP cannot send: said
        # here, where no HTTP library echoes the value into a finding.
        raise UsageError(
            f"--header {name}: the value holds a line break or a character HTTP headers cannot carry"
            " (its text is not shown: it may hold a secret)"
        )
    return name, value


def read_probes(path: str) -> dict[str, str]:
    from refusal_lint.static.extract.data.yamlsafe import YamlError, load_plain

    try:
        with open(path, encoding="utf-8-sig") as fh:
            data = load_plain(fh.read())
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read probes: {exc}") from None
    except YamlError as exc:
        raise UsageError(f"{path}: invalid probes file: {exc}") from None
    if data is None:
        return {}  # an empty file, as `{}`: the card alone is checked
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise UsageError(f"{path}: probes must map rule ids to message texts")
    return dict(data)
