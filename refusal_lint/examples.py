"""Each code's failing example and its fix (`Code.example`, `Code.fixed`), runnable, as
Fixit runs its VALID/INVALID snippets: the example must give exactly its code, the fix
must not (tests/test_examples.py runs them all).

A static example is a few files of the example agent below, each after a `==> path <==`
line, put in place of (or beside) the agent's own; the fix is applied over the example the
same way. `<<text * N>>` stands for `text` N times (a file too big to print). A probe
example (RL4xx) is the A2A answer an agent gave to the probe of `seg-mix`.
"""

from __future__ import annotations

import json
import os
import re
import tempfile

CARD = """{
  "name": "Survey Analyst",
  "capabilities": {"extensions": [{
    "uri": "https://standards.upperhandai.com/ext/refusals/v1",
    "params": {"seg-mix": "One family per cut."}
  }]}
}
"""

AGENT = {
    "agent-card.json": CARD,
    "prompt.md": "Refuse by these rules, naming the rule:\n- seg-mix: One family per cut.\n",
    "tools.py": """from policy import refuse


def crosstab(families):
    if len(families) > 1:
        return refuse("seg-mix")
    return {"families": families}
""",
}

_HEADER = re.compile(r"^==> (.+?) <==$", re.M)
DELETED = " (deleted)"  # `==> prompt.md (deleted) <==`: the example agent's file is not there
_REPEAT = re.compile(r"<<(.*?) \* (\d+)>>", re.S)


def files(example: str) -> dict[str, str | None]:
    """The files an example gives, by path (None: a file of the example agent taken away)."""
    parts = _HEADER.split(example)
    out: dict[str, str | None] = {}
    for path, text in zip(parts[1::2], parts[2::2], strict=True):
        if path.endswith(DELETED):
            out[path.removesuffix(DELETED)] = None
        else:
            out[path] = _REPEAT.sub(lambda m: m.group(1) * int(m.group(2)), text.lstrip("\n"))
    return out


def tree(example: str, fixed: str = "") -> dict[str, str]:
    """The example agent with the example's files in place, and the fix's over them."""
    merged: dict[str, str | None] = {**AGENT, **files(example), **files(fixed)}
    return {path: text for path, text in merged.items() if text is not None}


def codes_of(code: str, example: str, fixed: str = "") -> list[str]:
    """The codes refusal-lint reports for an example (with its fix applied, if given)."""
    if code.startswith("RL4"):
        from refusal_lint import conformance

        answer = json.loads(fixed or example)
        return [f.code for f in conformance.judge(answer, json.loads(CARD), "seg-mix")]
    from refusal_lint import config, pipeline
    from refusal_lint.codes import CODES

    with tempfile.TemporaryDirectory(prefix="refusal-lint-example-") as root:
        for path, text in tree(example, fixed).items():
            target = os.path.join(root, *path.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        cfg = config.load(None, root)
        settings = pipeline.Settings(frozenset(CODES), frozenset(), use_cache=False, jobs=1)
        return [f.code for f in pipeline.run([root], cfg, settings).findings]
