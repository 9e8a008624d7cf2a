"""`refusal-lint check`: lint the paths. `run` reads its steps in order: the baseline to
write (or to hide), the fix or its diff, the re-run after a fix, the report."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from refusal_lint.cli import options
from refusal_lint.cli.exits import guarded, status
from refusal_lint.cli.output import emit, report_options
from refusal_lint.core.errors import UsageError
from refusal_lint.report import formats
from refusal_lint.report.base import Report
from refusal_lint.static.configure import configure

if TYPE_CHECKING:
    from refusal_lint.config import Config
    from refusal_lint.static.fix import Plan
    from refusal_lint.static.pipeline import Result
    from refusal_lint.static.settings import Settings


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--config", "config_file", type=click.Path(), help="Config file (default: found upward).")
@report_options
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
@options.NO_CACHE
@click.option(
    "--git-index", is_flag=True, help="Read only the files in git's index, as the commit will hold them."
)
@options.JOBS
@click.option("--statistics", is_flag=True, help="Print a count per code instead of the findings.")
@click.option(
    "--quiet", "-q", is_flag=True, help="Print the findings (or the --statistics table) only: no summary."
)
@options.COLOR
@options.VERBOSE
def check(**kw: Any) -> None:
    """Lint PATHS (default: the current folder)."""
    guarded(run)(**kw)


def run(
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
    from refusal_lint.report import display
    from refusal_lint.static import pipeline

    extra = [_also(a) for a in also]  # a bad one stops the run before any work
    targets, cfg, settings = configure(paths, config_file, select, ignore, no_cache, jobs, git_index)
    if fix and show_diff:
        raise UsageError("--fix and --diff: choose one")
    if write_baseline is not None:
        return _write_baseline(targets, cfg, settings, write_baseline)
    settings = _hide_baseline(settings, baseline_file or cfg.baseline)
    result = pipeline.run(targets, cfg, settings)
    show = display.from_cwd(result.root)
    fixed = 0
    if fix or show_diff:
        plan = _plan(result, settings, show, quiet)
        if show_diff:
            code = _diff(plan, show, output, result.root)
            return 0 if exit_zero else code  # --exit-zero turns 1 into 0 here too
        fixed = _fix(plan, result, show, settings)
        result = _rerun(targets, cfg, settings, plan, result)
    fmt = _with_statistics(fmt, statistics)
    style = formats.Style(fmt, color, to_file=output is not None, statistics=statistics, quiet=quiet)
    _render(result, show, fixed, style, output, extra, settings.contents.read)
    if git_index and fixed:
        # The fix is in the work tree; the commit holds the index, drift and all, until staged.
        click.echo(
            "refusal-lint: note: fixed in the work tree, not in git's index: `git add` the files", err=True
        )
        return 0 if exit_zero else 1
    return status(result.findings, exit_zero)


def _with_statistics(fmt: str | None, statistics: bool) -> str | None:
    """--statistics is a text table: asked for on GitHub Actions, it is printed rather than
    the default annotations; with another format asked for, that report is whole (a note)."""
    if not statistics or formats.chosen(fmt) == "text":
        return fmt
    if fmt is None:
        return "text"
    click.echo(f"refusal-lint: note: --statistics is a text table; the {fmt} report is whole", err=True)
    return fmt


def _also(value: str) -> tuple[str, str]:
    """--also FORMAT=FILE."""
    fmt, sep, path = value.partition("=")
    if not sep or not path or fmt not in formats.FORMATS:
        raise UsageError(f"--also {value}: give FORMAT=FILE, FORMAT one of {', '.join(formats.FORMATS)}")
    return fmt, path


def _write_baseline(targets: list[str], cfg: Config, settings: Settings, path: str) -> int:
    """--write-baseline: record the findings of a run with no baseline applied, and exit 0."""
    from refusal_lint.static import baseline, pipeline
    from refusal_lint.static.discover.roots import project_of

    result = pipeline.run(targets, cfg, settings)
    anchor = project_of(result.root, cfg)  # paths inside the project, wherever run from
    count = baseline.write(path, result.findings, result.root, anchor, settings.contents.read)
    click.echo(f"refusal-lint: wrote {count} finding(s) to the baseline {path}", err=True)
    return 0


def _hide_baseline(settings: Settings, path: str | None) -> Settings:
    """--baseline, else the config's `baseline`: the findings recorded there are hidden."""
    return settings if path is None else dataclasses.replace(settings, baseline=path)


def _plan(result: Result, settings: Settings, show: Callable[[str], str], quiet: bool) -> Plan:
    """What --fix would rewrite; what it cannot is said in a note (unless --quiet)."""
    from refusal_lint.static import fix as fixer

    plan = fixer.plan(result.findings, result.root, settings.contents.read)
    if not quiet:
        for line in dict.fromkeys([*result.unfixable, *plan.skipped]):
            _note(line, result, show)
    return plan


def _diff(plan: Plan, show: Callable[[str], str], output: str | None, root: str) -> int:
    """--diff: the plan as a unified diff (to --output, else stdout), no file of the tree
    written; 1 when there is something to fix. Its paths are the current folder's, so
    `git apply` takes it there; where a file lies outside it (a run from a subfolder, the
    prompt above), no tool applies a path out of the folder it runs in (`git apply` and
    `patch` refuse `..`), so every path is the run's root's, and a note says to apply it there."""
    from refusal_lint.report import display
    from refusal_lint.static import fix as fixer

    if any(os.path.isabs(show(f.path)) for f in plan.files):
        show = display.from_cwd(root, cwd=root)
        click.echo(f"refusal-lint: note: the diff names files from {root}: apply it there", err=True)
    for f in plan.files:
        if fixer.is_wide(f.encoding):
            click.echo(
                f"refusal-lint: note: {show(f.path)} is {f.encoding.upper()}: the diff shows its lines as"
                " UTF-8 and will not apply to it; --fix rewrites it in its own encoding",
                err=True,
            )
    emit(fixer.diff(plan, show), output, color=False)  # bytes: each file's own encoding
    return 1 if plan.files else 0


def _fix(plan: Plan, result: Result, show: Callable[[str], str], settings: Settings) -> int:
    """--fix: write the plan (a file that cannot be written is a note); the count fixed."""
    from refusal_lint.static import fix as fixer
    from refusal_lint.static.discover.contents import GitIndex

    for line in fixer.write(plan, staged=isinstance(settings.contents, GitIndex)):
        _note(line, result, show)
    return plan.count


def _rerun(targets: list[str], cfg: Config, settings: Settings, plan: Plan, result: Result) -> Result:
    """After --fix: what remains, exactly as a fresh run sees it (reading the rewritten files
    where it reads from, the disk even for --git-index); `result` itself when nothing was fixed."""
    from refusal_lint.static import pipeline

    settings.contents.wrote(f.abs for f in plan.files if f.fixed)
    return pipeline.run(targets, cfg, settings) if plan.count else result


def _render(
    result: Result,
    show: Callable[[str], str],
    fixed: int,
    style: formats.Style,
    output: str | None,
    extra: list[tuple[str, str]],
    read: Callable[[str], bytes],
) -> None:
    """The report to --output (or stdout), each --also format to its file, the run's notes."""
    from refusal_lint.report import display

    findings = display.findings(result.findings, show)
    bytewise = "rdjson" in {formats.chosen(style.fmt), *(f for f, _ in extra)}
    run = Report(
        findings,
        tuple(display.relocate(result.agents, show)),
        files=result.files_scanned,
        fixed=fixed,
        nothing=not result.facts_found and not result.findings,
        lines=_lines(result, read, show) if bytewise else {},
    )
    report, use_color = formats.render(run, style)
    if not style.quiet:
        for note in result.notes:
            _note(note, result, show)
    for other_fmt, path in extra:
        emit(formats.render(run, formats.Style(other_fmt, False, to_file=True))[0], path, False)
    emit(report, output, use_color)


def _lines(
    result: Result, read: Callable[[str], bytes], show: Callable[[str], str]
) -> dict[tuple[str, int], str]:
    """The text of the lines the findings stand on, by (path as shown, line), where it holds
    more than ASCII (rdjson's byte columns); a file that cannot be read gives none."""
    from refusal_lint.core import sourcetext

    out: dict[tuple[str, int], str] = {}
    wanted: dict[str, set[int]] = {}
    for f in result.findings:
        wanted.setdefault(f.loc.path, set()).update({f.loc.line, f.loc.end_line})
    for path, numbers in wanted.items():
        try:
            text = sourcetext.decode(read(os.path.join(result.root, path)), errors="replace").text
        except (OSError, ValueError, SyntaxError, LookupError):
            continue
        lines = text.split("\n")
        for n in numbers:
            if 0 < n <= len(lines) and not lines[n - 1].isascii():
                out[(show(path), n)] = lines[n - 1]
    return out


def _note(line: str, result: Result, show: Callable[[str], str]) -> None:
    from refusal_lint.report import display

    click.echo(f"refusal-lint: note: {display.note(line, result.root, show)}", err=True)
