#!/usr/bin/env python3
"""Time the text gates on hostile inputs of about 1 MB (one long line, runs of quotes,
unterminated strings), where a search back to each line's start made one of them cost 20 s:

    python bench/hostile.py [--budget 1.0]

Each gate must stay within BUDGET CPU seconds an input (generated code and minified files
are real; a pre-commit hook must not hang on them). Exits 1 if one does not.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from refusal_lint.static.gate import imports, prefilter, relevance
from refusal_lint.static.gate.composed import leadins, reach
from refusal_lint.static.gate.text import listing, shapes
from refusal_lint.static.gate.text.pystrings import strings

_IDS = relevance.Relevance(["seg-mix", "invalid-cut"])
_NEEDLES = (b"seg-mix",)
GATES: dict[str, Callable[[bytes], object]] = {
    "python_worth_parsing": lambda d: prefilter.python_worth_parsing(d, _NEEDLES, frozenset({"seg-mix"})),
    "python_prompt_candidate": shapes.python_prompt_candidate,
    "prompt_words": shapes.prompt_words,
    "names_ids": _IDS.names_ids,
    "lists_rules": listing.lists_rules,
    "python_lists_rules": listing.python_lists_rules,
    "imports_of": imports.imports_of,
    "bindings_of": imports.bindings_of,
    "top_names": reach.top_names,
    "leads": lambda d: leadins.leads(d, listing.refusing_spans(d)),
    "rule_keyword": prefilter.rule_keyword,
    "pystrings": strings,
}
INPUTS = {
    "import words on one line": b"x = 1; " + b"import " * 140_000,
    "from-imports on one line": b"x = 1; " + b"from a import b " * 60_000,
    "prompt words on one line": b"x = 1; " + b"prompt " * 140_000,
    "refusing words on one line": b"refuse a-b " * 90_000,
    "slots on one line": b"won't {x} " * 90_000,
    "quotes": b"SYSTEM_PROMPT = 'never - a-b: c d'\n" + b"'" * 900_000,
    "unterminated triple quotes": b'x = """' * 140_000,
    "literal seams": b'P = ("seg"' + b' "-mix"' * 120_000 + b")\n",
    "an id's half, repeated": b"seg " * 240_000,
    "blanks, then imports": b" " * 500_000 + b"import " * 60_000,
    "blank-spaced calls on one line": b"x = 1; " + b"refuse (a) AgentExtension (b) " * 30_000,
    "indented assignments": b"if x:\n" + b"    a = b = c = 1\n" * 60_000,
    "many short lines": b'P = "refuse - a-b: c d"\n' * 40_000,
    "rule keywords in blanks": b"f(" + b" \n rule =" * 100_000,
    "relative imports": b"from . import x\n" * 60_000,
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=1.0, help="CPU seconds a gate may take on one input")
    args = ap.parse_args()
    worst = 0.0
    for name, data in INPUTS.items():
        times = {}
        for gate, fn in GATES.items():
            start = time.process_time()
            fn(data)
            times[gate] = time.process_time() - start
        gate, slowest = max(times.items(), key=lambda kv: kv[1])
        worst = max(worst, slowest)
        print(f"{name:30} {len(data) / 1e6:.2f} MB  slowest {gate} {slowest:.3f} s")
    if worst > args.budget:
        print(f"a gate took {worst:.2f} s, over the {args.budget:g} s budget")
        sys.exit(1)
    print(f"all within {args.budget:g} s (worst {worst:.2f} s)")


if __name__ == "__main__":
    main()
