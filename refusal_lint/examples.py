"""Each code's failing example and its fix (`Code.example`, `Code.fixed`), runnable, as
Fixit runs its VALID/INVALID snippets: the example must give exactly its code, the fix
must not (tests/test_examples.py runs them all).

A static example is a few files of the example agent below, each after a `==> path <==`
line, put in place of (or beside) the agent's own; the fix is applied over the example the
same way. `==> path (deleted) <==` takes a file away; `==> path (extensions) <==` is a card
whose extension list holds the entries given; `<<text * N>>` stands for `text` N times (a
file too big to print). A probe example (RL4xx) is the answer an agent gave to the probe
of `seg-mix`: its Parts (in a JSON-RPC result), or the whole JSON-RPC answer. A client
example (RL5xx) is the messages a client sent the refusing stub (`refusal-lint stub`) of the
example card, in order.
"""

from __future__ import annotations

import json
import os
import re
import tempfile

ENTRY = """{"uri": "https://standards.upperhandai.com/ext/refusals/v1",
 "params": {"seg-mix": "One family per cut."}}
"""


def card(extensions: str) -> str:
    """The example agent's card, holding these extension entries."""
    return '{"name": "Survey Analyst",\n "capabilities": {"extensions": [\n' + extensions + "]}}\n"


CARD = card(ENTRY)

AGENT = {
    "agent-card.json": CARD,
    "prompt.md": "Refuse by these rules, naming the rule:\n- seg-mix: One family per cut.\n",
    "tools.py": """from policy import refuse

def crosstab(families):
    return refuse("seg-mix") if len(families) > 1 else families
""",
}

_HEADER = re.compile(r"^==> (.+?) <==$", re.M)
DELETED = " (deleted)"  # `==> prompt.md (deleted) <==`: the example agent's file is not there
EXTENSIONS = " (extensions)"  # `==> agent-card.json (extensions) <==`: a card holding these entries
_REPEAT = re.compile(r"<<(.*?) \* (\d+)>>", re.S)


def files(example: str) -> dict[str, str | None]:
    """The files an example gives, by path (None: a file of the example agent taken away)."""
    parts = _HEADER.split(example)
    out: dict[str, str | None] = {}
    for path, text in zip(parts[1::2], parts[2::2], strict=True):
        body = _REPEAT.sub(lambda m: m.group(1) * int(m.group(2)), text.lstrip("\n"))
        if path.endswith(DELETED):
            out[path.removesuffix(DELETED)] = None
        elif path.endswith(EXTENSIONS):
            out[path.removesuffix(EXTENSIONS)] = card(body)
        else:
            out[path] = body
    return out


def tree(example: str, fixed: str = "") -> dict[str, str]:
    """The example agent with the example's files in place, and the fix's over them."""
    merged: dict[str, str | None] = {**AGENT, **files(example), **files(fixed)}
    return {path: text for path, text in merged.items() if text is not None}


def answer(example: str) -> object:
    """A probe example as the A2A answer it stands for: a list of Parts is the message of a
    v1.0 JSON-RPC result; anything else is the whole answer."""
    value = json.loads(example)
    if isinstance(value, list):
        return {"jsonrpc": "2.0", "id": 1, "result": {"message": {"role": "agent", "parts": value}}}
    return value


def codes_of(code: str, example: str, fixed: str = "") -> list[str]:
    """The codes refusal-lint reports for an example (with its fix applied, if given)."""
    if code.startswith("RL5"):
        from refusal_lint.live.stub.core import Recorder, stub_card

        recorder = Recorder(stub_card(json.loads(CARD)), "http://127.0.0.1:9999")
        for sent in json.loads(fixed or example):
            recorder.message(sent["method"], "/", "1.0", {}, sent["parts"])
        return [f.code for f in recorder.faults]
    if code.startswith("RL4"):
        from refusal_lint import conformance

        got = conformance.judge(answer(fixed or example), json.loads(CARD), "seg-mix")
        return [f.code for f in got]
    from refusal_lint import config
    from refusal_lint.codes import CODES
    from refusal_lint.static import pipeline

    with tempfile.TemporaryDirectory(prefix="refusal-lint-example-") as root:
        for path, text in tree(example, fixed).items():
            target = os.path.join(root, *path.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        cfg = config.load(None, root)
        settings = pipeline.Settings(frozenset(CODES), frozenset(), use_cache=False, jobs=1)
        return [f.code for f in pipeline.run([root], cfg, settings).findings]
