"""The page of each code, `docs/rules/RLnnn.md`, generated from the code table.

    python -m refusal_lint.rulepages [FOLDER]    # write them (default: docs/rules)

A test fails when a page and the table drift apart.
"""

from __future__ import annotations

import os
import sys

from refusal_lint.codes import CODES, RULE_PAGES, Code


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _setting(c: Code) -> str:
    """What an example stands in (examples.py; a test runs every one)."""
    if c.code.startswith("RL5"):
        return (
            "A client sent the refusing stub (`refusal-lint stub` on a card advertising `seg-mix: One"
            " family per cut.`) these messages, in order:"
        )
    if c.code.startswith("RL4"):
        return (
            "The agent answered the probe of `seg-mix` (its card advertises `seg-mix: One family per"
            " cut.`) with these Parts (in a JSON-RPC result), or this whole answer:"
        )
    notes = []
    if "(extensions) <==" in c.example + c.fixed:
        notes.append("`(extensions)`: the card holding these extension entries")
    if "(deleted) <==" in c.example + c.fixed:
        notes.append("`(deleted)`: the file taken away")
    if "<<" in c.example:
        notes.append("`<<text * N>>`: text N times")
    more = "; " + "; ".join(notes) if notes else ""
    return (
        "In the example agent (`agent-card.json` advertising `seg-mix: One family per cut.`, `prompt.md`"
        f" stating it, `tools.py` guarding it), with these files in place (`==> path <==` starts each{more}):"
    )


def page(c: Code) -> str:
    """One code's page: what, why, how to fix, with the example that shows it."""
    fix = "yes, `refusal-lint check --fix`" if c.fixable else "no"
    parts = [
        f"# {c.code} {c.name}",
        "",
        f"Severity: {c.severity}. Fixable: {fix}.",
        "",
        f"{_sentence(c.summary)}.",
        "",
        "## What",
        "",
        _sentence(Code.one_line(c.what)),
        "",
        "## Why",
        "",
        _sentence(Code.one_line(c.why)),
    ]
    if c.example:
        parts += ["", "## Example", "", _setting(c), "", "```", c.example.rstrip("\n"), "```"]
    parts += ["", "## How to fix", "", _sentence(Code.one_line(c.fix))]
    if c.fixed:
        parts += ["", "```", c.fixed.rstrip("\n"), "```"]
    if not c.code.startswith(("RL4", "RL5")):  # live findings: a running agent or client, not a line
        parts += [
            "",
            f"Where it is intended, silence it with `# refusal-lint: ignore[{c.code}]` at the end of",
            f'the line, or with `per-file-ignores` or `ignore: ["{c.code}"]` in the config.',
        ]
    return "\n".join(parts) + "\n"


def listing_text() -> str:
    """`refusal-lint rules`: one line a code."""
    rows = [f"{'code':<6}  {'name':<26}  {'severity':<8}  fixable  summary"]
    for c in CODES.values():
        rows.append(
            f"{c.code:<6}  {c.name:<26}  {c.severity:<8}  {'yes' if c.fixable else 'no':<7}  {c.summary}"
        )
    return "\n".join(rows) + "\n"


def listing_json() -> str:
    """`refusal-lint rules --format json`."""
    import json

    keys = ("code", "name", "severity", "fixable", "summary")
    table = [{k: getattr(c, k) for k in keys} for c in CODES.values()]
    return json.dumps(table, indent=2, ensure_ascii=False) + "\n"


def readme_table() -> str:
    """The README's code table (a test keeps the README's copy equal to this)."""
    rows = ["| code | name | sev | fires when |", "|---|---|---|---|"]
    for c in CODES.values():
        live = {"RL4": "probe: ", "RL5": "stub: "}.get(c.code[:3], "")
        summary = live + c.summary
        rows.append(f"| {c.code} | {c.name} | {c.severity[0].upper()} | {summary} |")
    return "\n".join(rows) + "\n"


def pages() -> dict[str, str]:
    """File name -> text, for every code."""
    return {f"{c.code}.md": page(c) for c in CODES.values()}


def main(argv: list[str]) -> int:
    folder = argv[0] if argv else RULE_PAGES
    os.makedirs(folder, exist_ok=True)
    for name, text in pages().items():
        with open(os.path.join(folder, name), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    print(f"wrote {len(CODES)} pages to {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
