"""Command line (DESIGN §1): parse options, run the pipeline, pick a reporter, set the exit status."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from refusal_lint import __version__
from refusal_lint.codes import CODES, expand, is_error
from refusal_lint.errors import UsageError
from refusal_lint.report import choose

if TYPE_CHECKING:
    from refusal_lint.config import Config
    from refusal_lint.settings import Settings

MATRIX_FORMATS = ("text", "markdown", "json")


def _codes(value: str | None, option: str) -> set[str] | None:
    if value is None:
        return None
    try:
        return expand([v for v in value.split(",") if v.strip()])
    except KeyError as exc:
        raise UsageError(f"{option}: unknown code `{exc.args[0]}`") from None


def _guarded(fn: Callable[..., int]) -> Callable[..., None]:
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


def _report_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--format and --output, also from the environment (a pre-commit hook in CI)."""
    f = click.option(
        "--output",
        type=click.Path(),
        envvar="REFUSAL_LINT_OUTPUT_FILE",
        help="Write the report here (or $REFUSAL_LINT_OUTPUT_FILE).",
    )(f)
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(choose.FORMATS),
        default=None,
        envvar="REFUSAL_LINT_OUTPUT_FORMAT",
        help="Output format (or $REFUSAL_LINT_OUTPUT_FORMAT).",
    )(f)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="refusal-lint")
def main() -> None:
    """Check that an A2A agent's refusals card, system prompt and guards agree."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--config", "config_file", type=click.Path(), help="Config file (default: found upward).")
@_report_options
@click.option("--select", help="Only these codes (comma-separated; prefixes like RL3 allowed).")
@click.option("--ignore", help="Never these codes.")
@click.option("--fix", is_flag=True, help="Rewrite drifted reasons (RL203, RL303) to the card's.")
@click.option("--diff", "show_diff", is_flag=True, help="Print the diff --fix would apply; write nothing.")
@click.option(
    "--baseline", "baseline_file", type=click.Path(), help="Hide the findings recorded in this baseline."
)
@click.option(
    "--write-baseline", type=click.Path(), help="Record today's findings in this baseline file, and exit 0."
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when errors are found (never turns 2 into 0).")
@click.option(
    "--also",
    "also",
    multiple=True,
    metavar="FORMAT=FILE",
    help="Also write the report in FORMAT to FILE, from the same run (repeatable; the action uses it).",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write .refusal_lint_cache/.")
@click.option(
    "--git-index", is_flag=True, help="Read only the files in git's index, as the commit will hold them."
)
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Parser processes (default: CPUs).")
@click.option("--statistics", is_flag=True, help="Print a count per code instead of the findings.")
@click.option(
    "--quiet", "-q", is_flag=True, help="Print the findings (or the --statistics table) only: no summary."
)
@click.option(
    "--color/--no-color",
    default=None,
    help="Colour the text (default: at a terminal; NO_COLOR, FORCE_COLOR).",
)
@click.option("--verbose", is_flag=True, help="Show the trace of an internal error.")
def check(**kw: Any) -> None:
    """Lint PATHS (default: the current folder)."""
    _guarded(_check)(**kw)


def _check(
    paths: tuple[str, ...],
    config_file: str | None,
    fmt: str | None,
    output: str | None,
    select: str | None,
    ignore: str | None,
    exit_zero: bool,
    no_cache: bool,
    jobs: int | None,
    statistics: bool,
    quiet: bool,
    color: bool | None,
    fix: bool = False,
    show_diff: bool = False,
    baseline_file: str | None = None,
    write_baseline: str | None = None,
    git_index: bool = False,
    also: tuple[str, ...] = (),
) -> int:
    import dataclasses

    from refusal_lint import display, pipeline

    extra = [_also(a) for a in also]  # a bad one stops the run before any work
    targets, cfg, settings = _setup(paths, config_file, select, ignore, no_cache, jobs, git_index)
    if fix and show_diff:
        raise UsageError("--fix and --diff: choose one")
    if write_baseline is not None:
        from refusal_lint import baseline

        result = pipeline.run(targets, cfg, settings)
        count = baseline.write(write_baseline, result.findings, result.root, settings.contents.read)
        click.echo(f"refusal-lint: wrote {count} finding(s) to the baseline {write_baseline}", err=True)
        return 0
    if baseline_file is not None or cfg.baseline is not None:
        settings = dataclasses.replace(settings, baseline=baseline_file or cfg.baseline)
    result = pipeline.run(targets, cfg, settings)
    show = display.from_cwd(result.root)
    fixed = 0
    if fix or show_diff:
        from refusal_lint import fix as fixer

        plan = fixer.plan(result.findings, result.root, settings.contents.read)
        if not quiet:
            for line in plan.skipped:
                click.echo(f"refusal-lint: note: {display.note(line, result.root, show)}", err=True)
        if show_diff:
            click.echo(fixer.diff(plan, show), nl=False)
            return 1 if plan.files else 0
        for line in fixer.write(plan):
            click.echo(f"refusal-lint: note: {display.note(line, result.root, show)}", err=True)
        fixed = plan.count
        settings.contents.wrote(f.abs for f in plan.files if f.fixed)
        if fixed:
            result = pipeline.run(targets, cfg, settings)  # what remains, exactly as a fresh run sees it
    run = choose.Run(
        display.relocate(result.findings, show),
        display.relocate(result.agents, show),
        files=result.files_scanned,
        fixed=fixed,
        nothing=not result.facts_found and not result.findings,
    )
    report, use_color = choose.render(
        run, choose.Style(fmt, color, to_file=output is not None, statistics=statistics, quiet=quiet)
    )
    if not quiet:
        for note in result.notes:
            click.echo(f"refusal-lint: note: {display.note(note, result.root, show)}", err=True)
    for other_fmt, path in extra:
        _emit(choose.render(run, choose.Style(other_fmt, False, to_file=True))[0], path, False)
    _emit(report, output, use_color)
    return _status(result.findings, exit_zero)


def _also(value: str) -> tuple[str, str]:
    """--also FORMAT=FILE."""
    fmt, sep, path = value.partition("=")
    if not sep or not path or fmt not in choose.FORMATS:
        raise UsageError(f"--also {value}: give FORMAT=FILE, FORMAT one of {', '.join(choose.FORMATS)}")
    return fmt, path


def _cpus() -> int:
    if hasattr(os, "sched_getaffinity"):  # the CPUs this process may use (not on macOS or Windows)
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _status(findings: list[Any], exit_zero: bool) -> int:
    has_errors = any(is_error(f.code) for f in findings)
    return 1 if has_errors and not exit_zero else 0


def _setup(
    paths: tuple[str, ...],
    config_file: str | None,
    select: str | None,
    ignore: str | None,
    no_cache: bool,
    jobs: int | None,
    git_index: bool = False,
) -> tuple[list[str], Config, Settings]:
    """Targets, the validated config and the run settings, from the command line."""
    from refusal_lint import config as config_mod
    from refusal_lint import contents, pipeline

    targets = list(paths) or ["."]
    source = contents.GitIndex() if git_index else contents.DISK
    cfg = config_mod.load(config_file, targets[0], source.held)
    chosen = _codes(select, "--select")
    selected = frozenset(chosen if chosen is not None else (cfg.select or set(CODES)))
    ignored = frozenset(cfg.ignore | (_codes(ignore, "--ignore") or set()))
    settings = pipeline.Settings(
        selected,
        ignored,
        not no_cache,
        jobs or _cpus(),
        cfg.parse_timeout,
        exhaustive=os.environ.get("REFUSAL_LINT_EXHAUSTIVE") == "1",
        contents=source,
    )
    return targets, cfg, settings


@main.command()
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
    _guarded(_matrix)(**kw)


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

    targets, cfg, settings = _setup(paths, config_file, None, None, no_cache, jobs, git_index)
    result = pipeline.run(targets, cfg, settings)
    render = {
        "text": matrix_report.render_text,
        "markdown": matrix_report.render_markdown,
        "json": matrix_report.render_json,
    }[fmt]
    show = display.from_cwd(result.root)
    _emit(
        render(display.relocate(result.agents, show), display.relocate(result.findings, show)), output, False
    )
    return 0


def _emit(report: str, output: str | None, color: bool) -> None:
    if output:
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(report)
        except OSError as exc:
            raise UsageError(f"{output}: cannot write report: {exc.strerror}") from None
    else:
        click.echo(report, nl=False, color=color)


@main.command()
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
@_report_options
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when errors are found.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings only.")
@click.option(
    "--color/--no-color",
    default=None,
    help="Colour the text (default: at a terminal; NO_COLOR, FORCE_COLOR).",
)
@click.option("--verbose", is_flag=True, help="Show the trace of an internal error.")
def probe(**kw: Any) -> None:
    """Probe a running agent: its card, and one provoked refusal per rule (RL400-RL408)."""
    _guarded(_probe)(**kw)


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
    from refusal_lint import probe as prober
    from refusal_lint.bind import Agent

    cfg = config_mod.load(config_file, os.getcwd())
    probes = dict(cfg.probes)
    if probes_file is not None:
        probes = prober.read_probes(probes_file)
    transport = None
    if app_spec is not None:
        try:
            from refusal_lint import inprocess
        except ImportError:
            raise UsageError("probe needs httpx: pip install 'refusal-lint[probe]'") from None

        if url is not None:
            raise UsageError("probe: give a URL or --app, not both")
        url, transport = inprocess.BASE_URL, inprocess.transport_for(inprocess.load_app(app_spec))
    if url is None:
        raise UsageError("probe: give the agent's URL, or --app module:attribute")
    reach = prober.Reach(
        headers=tuple(prober.header(h) for h in headers),
        extensions=extensions,
        binding=binding,
        stream=not no_stream,
    )
    result = prober.probe(url, probes, protocol, timeout, transport=transport, reach=reach)
    findings = sorted(result.findings, key=lambda f: f.sort_key())
    agents = [Agent(result.agent_name, "", result.card)] if result.card else []
    probed = ", ".join(probes) or "none (no probes configured)"
    head = f"probed {result.card_url} over A2A {result.protocol or '?'}; rules: {probed}\n"
    run = choose.Run(findings, agents, files=1, head=head, command="probe")
    report, use_color = choose.render(run, choose.Style(fmt, color, to_file=output is not None, quiet=quiet))
    _emit(report, output, use_color)
    return _status(findings, exit_zero)


@main.command()
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
    help="Refuse a message containing TEXT with RULE (repeatable; card rule ids named in it come first).",
)
@click.option(
    "--record", "record_file", type=click.Path(), help="At exit, write the requests and faults here (JSON)."
)
@click.option("--verbose", is_flag=True, help="Show the trace of an internal error.")
def stub(**kw: Any) -> None:
    """Serve a refusing A2A agent built from CARD, to test a client against (RL501 at exit)."""
    _guarded(_stub)(**kw)


def _stub(card: str, host: str, port: int, rule_for: tuple[str, ...], record_file: str | None) -> int:
    from refusal_lint.stub import core

    try:  # the server libraries, only now: start-up of every other command stays light
        from refusal_lint.stub import app, serve  # noqa: F401
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

    recorder = serve.run(agent, sock, url, ready)
    if record is not None:
        import json

        with record:
            json.dump(recorder.record(), record, indent=2, ensure_ascii=False)
            record.write("\n")
    from refusal_lint.report import text

    requests = recorder.requests
    refused = sum(r.refused for r in requests)
    click.echo(f"refusal-lint stub: {len(requests)} request(s), {refused} refused")
    click.echo(text.render(recorder.faults, False), nl=False)
    return _status(recorder.faults, False)


@main.command()
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
    app.serve()


@main.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format.")
def rules_cmd(fmt: str) -> None:
    """List every code with its name, default severity and whether --fix can fix it."""
    from refusal_lint import rulepages

    click.echo(rulepages.listing_json() if fmt == "json" else rulepages.listing_text(), nl=False)


@main.command("rule")
@click.argument("code")
def rule_cmd(code: str) -> None:
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
