"""Every shortcut (text gates, `ast` gates, scope limits) only saves work: with
REFUSAL_LINT_EXHAUSTIVE=1 (every shortcut off) `check --format json` prints the same bytes
(DESIGN §2 "What is read, and soundness"; issue 20 item 4).

(a) every fixture case (testdata repos and the variants of tests/fixture_repos); (b) generated
agent repos (tests/agentgen.py) and the explicit cases issue 20 names; (c) under `slow`, the
shared real repositories bare and with the bench's example agent copied into their root.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import agentgen
import pytest
from agentgen import LONG_ID, Spec
from conftest import ROOT, TESTDATA, fixture_repo, names, pending_marked, run_cli
from hypothesis import HealthCheck, example, given, settings

CASES = names()
BENCH = ROOT.parent / "shared" / "bench"
SHARED = [BENCH / "real-repos.tar.xz", BENCH / "vocab-repos.tar.xz"]
EXAMPLE = TESTDATA / "survey-agent"  # what bench/bench.py plants in each repository
# One whose ids are words the repositories use (violence, jailbreak, pii): bench.py --agent.
SAFETY = TESTDATA / "safety-agent"


def check_json(path: Path, exhaustive: bool) -> str:
    """The JSON report of one in-process run, shortcuts on or off."""
    with mock.patch.dict(os.environ):
        os.environ.pop("REFUSAL_LINT_EXHAUSTIVE", None)
        if exhaustive:
            os.environ["REFUSAL_LINT_EXHAUSTIVE"] = "1"
        result = run_cli("check", ".", "--no-cache", "--format", "json", cwd=path)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def check_json_process(path: Path, exhaustive: bool, *pre: str) -> str:
    """The same in a fresh interpreter (big trees; or `pre`: statements run before the CLI is imported)."""
    env = {k: v for k, v in os.environ.items() if k != "REFUSAL_LINT_EXHAUSTIVE"}
    if exhaustive:
        env["REFUSAL_LINT_EXHAUSTIVE"] = "1"
    code = "; ".join([*pre, "from refusal_lint.cli import main", "main()"])
    args = [sys.executable, "-c", code, "check", ".", "--no-cache", "--format", "json"]
    done = subprocess.run(args, cwd=path, capture_output=True, text=True, env=env, check=False)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def summary(out: str) -> list[tuple[str, str, str | None, int]]:
    """What a disagreement report shows: the findings."""
    return sorted((f["code"], f["path"], f["rule_id"], f["line"]) for f in json.loads(out)["findings"])


def assert_same(default: str, exhaustive: str) -> None:
    if default != exhaustive:
        pytest.fail(
            "default and exhaustive differ:\n"
            f"  default    {summary(default)}\n  exhaustive {summary(exhaustive)}\n"
            f"  prompts    {[a['prompts'] for a in json.loads(default)['agents']]}\n"
            f"  exhaustive {[a['prompts'] for a in json.loads(exhaustive)['agents']]}"
        )


def differential(root: Path) -> None:
    assert_same(check_json(root, False), check_json(root, True))


# ---- (a) every fixture case ---------------------------------------------------------------


@pytest.mark.parametrize("name", pending_marked(CASES))
def test_testdata_same_with_shortcuts_off(name: str) -> None:
    differential(fixture_repo(name))


# ---- (b) explicit shapes ----------------------------------------------------------------

BOTH = ("seg-mix", "invalid-cut")
FULL = (("md", BOTH),)
GUARDED = (("literal", BOTH),)


DIFFERING_NOISE = {"vscode-jsonc", "vscode-jsonc-prompt-word", "empty-json"}  # their cases: below
AGREEING_PROMPTS = [p for p in sorted(agentgen.PROMPTS) if p != "system-message-const"]  # below, alone
AGREEING_NOISE = tuple(n for n in sorted(agentgen.NOISE) if n not in DIFFERING_NOISE)


def _with_files(name: str, *files: tuple[str, str]) -> object:
    """The whole agent (both rules, prompt file, guards) with `files` added verbatim."""
    return pytest.param(Spec("json", BOTH, FULL, GUARDED, extra=files), id=name)


def _xfail(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=f"issue 20: {reason}")


_AGENT_LIST = "from agents import Agent\n\nanalyst = Agent(name='analyst', instructions=[%s])\n"
_POLICY = ("bot/policy.py", 'POLICY = "Refuse these requests:\\n- zodiac-sign: No star signs.\\n"\n')
_IMPORTS = (
    "import textwrap\n\nfrom agents import Agent\nfrom langchain_core.messages import SystemMessage\n"
    "from bot.policy import POLICY\n\n"
)

EXPLICIT = [
    pytest.param(Spec("json", BOTH, FULL, GUARDED), id="json-card-md-literal"),
    pytest.param(Spec("py-sibling", BOTH, FULL, GUARDED), id="card-from-sibling-script-module"),
    pytest.param(Spec("py-star", BOTH, FULL, GUARDED), id="card-from-star-import"),
    pytest.param(Spec("py-parenthesised", BOTH, FULL, GUARDED), id="card-from-parenthesised-import"),
    pytest.param(Spec("py-continued", BOTH, FULL, GUARDED), id="card-from-continued-import"),
    pytest.param(Spec("py-package", BOTH, FULL, GUARDED), id="card-from-package-constants"),
    pytest.param(Spec("py-class-attr", BOTH, FULL, GUARDED), id="card-uri-a-class-attribute"),
    pytest.param(Spec("py-ctor-params", BOTH, FULL, GUARDED), id="card-params-from-the-constructor"),
    pytest.param(Spec("py-uri-chosen", BOTH, FULL, GUARDED), id="card-uri-chosen-in-a-module-level-if"),
    pytest.param(Spec("py-aliased", BOTH, FULL, GUARDED), id="card-class-imported-under-another-name"),
    pytest.param(Spec("json", BOTH, FULL, (("genexp", BOTH),)), id="genexp-id"),
    pytest.param(Spec("json", BOTH, FULL, (("literal", (*BOTH, LONG_ID)),)), id="guard-fires-82-char-id"),
    pytest.param(
        Spec("json", (*BOTH, LONG_ID), (("md", (*BOTH, LONG_ID)),), GUARDED), id="card-has-82-char-id"
    ),
    pytest.param(Spec("json", BOTH, FULL, (("enum-helper", BOTH),)), id="enum-through-helper"),
    pytest.param(Spec("json", BOTH, FULL, (("enum-loop", BOTH),)), id="enum-class-loop"),
    pytest.param(Spec("json", BOTH, FULL, (("error-envelope", BOTH),)), id="error-envelope"),
    pytest.param(Spec("json", BOTH, FULL, (("local-into-error", BOTH),)), id="local-into-error"),
    pytest.param(Spec("json", BOTH, FULL, (("caught-as-error", BOTH),)), id="caught-as-error"),
    pytest.param(
        Spec("json", BOTH, FULL, (("method-unknown-receiver", BOTH),)), id="method-unknown-receiver"
    ),
    pytest.param(Spec("py-sibling", BOTH, FULL, (("script-folder", BOTH),)), id="script-folder-guards"),
    pytest.param(Spec("json", BOTH, FULL, (("exception-classes", BOTH),)), id="exception-class-rules"),
    pytest.param(
        Spec("json", BOTH, (("helper-arguments", ("seg-mix", "pii-export")),), GUARDED),
        id="prompt-composed-by-helper-arguments",
    ),
    pytest.param(Spec("py-package", BOTH, FULL, (("rules-subscript", BOTH),)), id="rules-subscript"),
    pytest.param(Spec("py-merged", BOTH, FULL, (("rules-subscript", BOTH),)), id="card-params-merged"),
    pytest.param(
        Spec("py-comprehension", BOTH, FULL, (("rules-subscript", BOTH),)), id="card-params-comprehension"
    ),
    *(
        pytest.param(Spec("json", BOTH, ((shape, BOTH),), GUARDED), id=f"prompt-{shape}")
        for shape in AGREEING_PROMPTS
    ),
    *(
        pytest.param(Spec("json", BOTH, ((shape, ("seg-mix",)),), GUARDED), id=f"prompt-{shape}-one-rule")
        for shape in AGREEING_PROMPTS
    ),
    pytest.param(Spec("json", BOTH, (), GUARDED), id="no-prompt"),
    *(
        pytest.param(Spec("json", BOTH, FULL, GUARDED, noise=(name,)), id=f"noise-{name}")
        for name in AGREEING_NOISE
    ),
    pytest.param(Spec("json", BOTH, (), GUARDED, noise=AGREEING_NOISE), id="noise-all-no-prompt"),
    # Disagreements issue 20 names or the generator and the real repositories found: those that
    # still disagree on main are strict xfail (and kept out of the generator by
    # agentgen.KNOWN_DIFFERENT); the rest stay as cases.
    pytest.param(
        Spec("py-dict-sibling", BOTH, FULL, GUARDED),
        id="dict-card-from-sibling-script-module",
    ),
    *(
        pytest.param(
            Spec("py-inline", BOTH, FULL, ((shape, BOTH),)),
            id=f"{shape}-id-python-card",
        )
        for shape in ("genexp", "genexp-inline", "genexp-imported")
    ),
    pytest.param(
        Spec("py-inline", BOTH, FULL, GUARDED, noise=("local-import-refusal-helper",)),
        id="nested-import-refusal-helper-python-card",
    ),
    pytest.param(
        Spec("json", BOTH, FULL, (*GUARDED, ("raise-class", (LONG_ID,)))),
        id="82-char-id-alone-in-guard-file",
    ),
    pytest.param(
        Spec("py-inline", (LONG_ID,), (("md", (LONG_ID,)),), (("literal", (LONG_ID,)),)),
        id="82-char-id-on-python-card",
    ),
    pytest.param(
        Spec("py-inline", BOTH, (*FULL, ("kwarg", (LONG_ID,))), GUARDED),
        id="82-char-id-in-python-prompt",
    ),
    pytest.param(
        Spec("json", BOTH, FULL, GUARDED, noise=("vscode-jsonc",)),
        id="noise-vscode-jsonc",
    ),
    pytest.param(
        Spec("json", BOTH, (("system-message-const", BOTH),), GUARDED),
        id="prompt-system-message-const",
    ),
    pytest.param(
        Spec("json", BOTH, FULL, GUARDED, noise=("vscode-jsonc-prompt-word",)),
        id="noise-vscode-jsonc-prompt-word",
    ),
    pytest.param(
        Spec("json", BOTH, FULL, GUARDED, noise=("empty-json",)),
        id="noise-empty-json",
    ),
    pytest.param(
        Spec("json", BOTH, FULL, GUARDED, noise=("json-goal-refusal-word",)),
        id="noise-json-goal-refusal-word",
    ),
    pytest.param(
        Spec("py-inline", BOTH, (("kwarg", ("seg-mix",)), ("md", ("invalid-cut",))), GUARDED),
        id="python-prompt-beside-prompt-file-python-card",
    ),
    # Found by the 400-example run: an id picked by `next(...)` from a table whose keys are
    # no card's; the text stage dropped the call, binding reports it RL304.
    pytest.param(
        Spec("json", ("invalid-cut",), (), (("genexp-inline", (LONG_ID,)),)),
        id="genexp-inline-over-foreign-ids",
    ),
    # A prompt listing a rule no card has (RL202) after a lead-in and a run-time value, in a
    # file that names no card id: the text stage read its strings breadth first, the rule
    # lines before the lead-in, and passed the file over.
    pytest.param(
        Spec(
            "json",
            ("invalid-cut",),
            (("md", ("invalid-cut",)), ("lead-then-extra", ("pii-export",))),
            GUARDED,
        ),
        id="unknown-rule-after-a-run-time-value",
    ),
    # A near miss of a card id written in pieces: the text stage joins a token across literals.
    _with_files(
        "near-miss-written-in-pieces",
        ("bot/rules.py", 'SYSTEM_PROMPT = "Refuse these:\\n- seg" + "-mixx: Segments cannot mix."\n'),
    ),
    # A prompt file's refusing heading reaches its whole section: a rule list more than the
    # lead-in's reach below it is read (and its unknown id is RL202) in both modes.
    _with_files(
        "rule-list-far-below-a-refusing-heading",
        ("prompts/extra.md", "## Refusals\n\n" + "x " * 4100 + "\n\n- weights-off: Weights stay on.\n"),
    ),
    # A card id as a string's value reads it, written with an escape or across an escaped
    # line break: the text stage asked the bytes as written only (the audit's a2-a4).
    _with_files(
        "card-id-spelled-by-escapes",
        ("bot/notes.py", 'NOTES = "Refuse these:\\n- seg\\N{HYPHEN-MINUS}mix: Mix them freely.\\n"\n'),
        ("bot/config.json", '{"assistant": {"notes": "Refuse these:\\n- invalid\\u002dcut: Any cut.\\n"}}\n'),
        ("bot/assistant.yaml", 'notes: "Refuse these:\\n- seg-\\\n    mix: Mix them freely.\\n"\n'),
    ),
    # A near miss between escaped quotes (`\u201csag-mix\u201d`, as json.dumps writes them):
    # the text stage ran the token back over the escape's body (`201csag-mix`).
    _with_files(
        "near-miss-between-escaped-quotes",
        (
            "bot/settings.json",
            '{"system_prompt": "Crossing families is out (the \\u201csag-mix\\u201d rule)."}\n',
        ),
        ("bot/quoted.py", 'SYSTEM_PROMPT = "Out (the \\U0001F449seg-mixx\\x21 rule)."\n'),
    ),
    # A lead-in reaches its whole block (a paragraph of 8 KB before the list), a code token
    # before the refusing word of its block counts, and one on the line above a refusing
    # heading is outside its section: the text stage looked 8 KB after a refusing word only.
    _with_files(
        "a-lead-in-far-above-its-list",
        (
            "prompts/extra.md",
            "You must never guess. " + "Answer from the tables. " * 400 + "\n- tool-use: One at a time.\n",
        ),
        ("bot/extra.py", 'SYSTEM_PROMPT = "Refuse these: ' + "x " * 4200 + '\\n- geo-drill: No drilling."\n'),
    ),
    _with_files(
        "a-code-token-before-the-refusing-word",
        ("prompts/extra.md", "Use `geo-drill` for regions; refuse the rest.\n"),
    ),
    _with_files(
        "a-code-token-above-a-refusing-heading",
        ("prompts/extra.md", "Always answer with `one-table` output.\n## Refusals\nSay no politely.\n"),
    ),
    # A rule listed with a one-word reason (`- zodiac-sign: No.`): prompttext reads any reason,
    # the text stage wanted two words and passed the file over.
    _with_files(
        "unknown-rule-with-a-one-word-reason",
        ("bot/terse.py", 'SYSTEM_PROMPT = "You must refuse:\\n- zodiac-sign: No.\\n"\n'),
    ),
    # An instructions list whose lead-in is one item and whose rule lines are the next
    # (Agno joins them): the rule item is read as led in (Prompt.lead), by the item, by an
    # imported constant, past the lead's reach, and through escapes that make the items'
    # bytes ten times their text.
    _with_files(
        "unknown-rule-item-led-in-by-an-earlier-item",
        ("bot/items.py", _AGENT_LIST % "'You are a bot.', 'Refuse these:', '- zodiac-sign: No star signs.'"),
    ),
    _with_files(
        "unknown-rule-item-led-in-by-an-imported-item",
        ("bot/lead.py", 'REFUSE = "Refuse these:"\n'),
        (
            "bot/items.py",
            "from bot.lead import REFUSE\n" + _AGENT_LIST % "REFUSE, '- zodiac-sign: No star signs.'",
        ),
    ),
    _with_files(
        "unknown-rule-item-past-the-leads-reach",
        (
            "bot/items.py",
            _AGENT_LIST
            % ", ".join(
                [
                    "'Refuse these:'",
                    *[f"'Note {i}: answer from the published tables only, never guess.'" for i in range(12)],
                    "'- zodiac-sign: No star signs.'",
                ]
            ),
        ),
    ),
    _with_files(
        "unknown-rule-item-led-in-through-escaped-items",
        (
            "bot/items.py",
            _AGENT_LIST
            % ", ".join(
                ["'Refuse these:'", *["'" + "\\U0001f600" * 54 + " x'"] * 10, "'- zodiac-sign: No.'"]
            ),
        ),
    ),
    # A prompt built from a package's constant imported from inside it with a bare relative
    # import (`from . import POLICY`): its text names no module, so the text stage, which
    # followed only imports that name a module, passed the prompt over.
    _with_files(
        "prompt-from-a-bare-relative-import",
        ("bot/__init__.py", 'POLICY = "Refuse these:\\n- seg-mix: Segments cannot mix.\\n"\n'),
        ("bot/persona.py", 'from . import POLICY\n\nSYSTEM_PROMPT = "You are a bot. " + POLICY\n'),
    ),
    # Code not formatted by black: a space before a call's parenthesis, a chat message's role
    # on the line after its key. The text gates looked for `name(` and `"role": "system"`
    # on one line, so the guard, the card or the only prompt was passed over.
    _with_files(
        "guard-call-with-a-space-before-its-parenthesis",
        ("bot/ids.py", 'SEG = "seg-mixx"\n'),
        (
            "bot/late.py",
            "from acme import refuse\nfrom bot.ids import SEG\n\n\ndef f():\n    return refuse (SEG)\n",
        ),
    ),
    # A local bound to a call of a repo `refusal` helper that binding finds no guard: alone,
    # such a call waits for binding (gate/deferred.py) and its file is passed over; sent
    # inside a protocol error, the file is read (RL305 whatever the callee) in both modes.
    _with_files(
        "local-bound-to-a-refusal-call-inside-an-error",
        ("bot/__init__.py", ""),
        ("bot/helpers.py", "def refusal(model, token=None):\n    return {'model': model, 'token': token}\n"),
        (
            "bot/handler.py",
            "from fastapi import HTTPException\n\nfrom bot.helpers import refusal\n\n\n"
            "def handle(model):\n    payload = refusal(model)\n"
            "    raise HTTPException(status_code=422, detail=payload)\n",
        ),
    ),
    _with_files(
        "card-call-with-a-space-before-its-parenthesis",
        ("bot/consts.py", f'URI = "{agentgen.URI}"\nRULES = {{"seg-mix": "Families cannot be crossed."}}\n'),
        (
            "bot/card.py",
            "from a2a.types import AgentExtension\nfrom bot.consts import RULES, URI\n\n"
            "EXT = AgentExtension (uri=URI, params=RULES)\n",
        ),
    ),
    *(
        pytest.param(Spec("json", BOTH, (), GUARDED, extra=(("bot/agent.py", code),)), id=name)
        for name, code in (
            (
                "only-prompt-a-system-message-with-a-space-before-its-parenthesis",
                "from langchain_core.messages import SystemMessage\n\n"
                'MSGS = [SystemMessage (content="You are the survey analyst.")]\n',
            ),
            (
                "only-prompt-a-mirascope-system-message",
                "from mirascope.core import Messages\n\n\ndef tips():\n"
                '    return [Messages.System("You are the survey analyst.")]\n',
            ),
            (
                "only-prompt-a-role-on-the-line-after-its-key",
                'MSGS = [{"role":\n    "system", "content": "You are the survey analyst."}]\n',
            ),
            (
                "only-prompt-added-with-a-space-before-its-parenthesis",
                'chat.add_system_message ("You are the analyst.")\n',
            ),
        )
    ),
    # A prompt that lists only ids the card lacks, under a lead-in that refuses, composed
    # through names (gate/composed.py): the rule lines written before their lead-in, or
    # imported from another module. The text stage read strings in source order and
    # followed imports for card ids only; it now follows the names read after a lead-in.
    *(
        pytest.param(
            Spec("json", ("invalid-cut",), (("md", ("invalid-cut",)),), GUARDED, extra=files), id=name
        )
        for name, files in (
            (
                "unknown-rules-written-before-their-lead-in",
                (
                    (
                        "bot/late_lead.py",
                        'RULES = "- zodiac-sign: No star signs.\\n"\nSYSTEM_PROMPT = "Refuse:\\n" + RULES\n',
                    ),
                ),
            ),
            (
                "unknown-rules-filled-in-after-a-named-lead-in",
                (
                    (
                        "bot/fields.py",
                        'RULES = "- zodiac-sign: No star signs.\\n"\nLEAD = "Refuse these:\\n"\n'
                        'SYSTEM_PROMPT = f"{LEAD}{RULES}"\n',
                    ),
                ),
            ),
            (
                "unknown-rules-bound-in-a-module-level-try",
                (
                    (
                        "bot/fallback.py",
                        "try:\n    from bot.local_rules import RULES\nexcept ImportError:\n"
                        '    RULES = "- zodiac-sign: No star signs.\\n"\n\n'
                        'SYSTEM_PROMPT = "Refuse:\\n" + RULES\n',
                    ),
                ),
            ),
            (
                "unknown-rules-after-a-lead-in-bound-in-a-module-level-if-after-a-def",
                (
                    (
                        "bot/lead.py",
                        'RULES = "- zodiac-sign: No star signs.\\n"\n\ndef helper():\n    return 1\n\n'
                        'if True:\n    LEAD = "Refuse these:\\n"\n\nSYSTEM_PROMPT = LEAD + RULES\n',
                    ),
                ),
            ),
            (
                "unknown-rules-bound-under-a-module-level-if-after-a-def",
                (
                    (
                        "bot/flagged.py",
                        "import os\n\ndef helper():\n    return 1\n\nif os.environ.get('STRICT'):\n"
                        '    RULES = ""\nelse:\n    RULES = "- zodiac-sign: No star signs.\\n"\n'
                        'SYSTEM_PROMPT = "Refuse:\\n" + RULES\n',
                    ),
                ),
            ),
            (
                "unknown-rules-in-a-class-attribute-read-in-its-body",
                (
                    (
                        "bot/helper.py",
                        "class Helper:\n"
                        '    RULES = "- zodiac-sign: No star signs.\\n"\n'
                        '    system_prompt = "You refuse the following, naming the rule:\\n" + RULES\n',
                    ),
                ),
            ),
            (
                "unknown-rules-in-a-class-attribute-of-a-class-whose-header-spans-lines",
                (
                    (
                        "bot/persona.py",
                        "class Persona(\n    object,\n):\n"
                        '    RULES = "- zodiac-sign: No star signs.\\n"\n\n'
                        "    def __init__(self) -> None:\n"
                        '        self.system_prompt = "Refuse:\\n" + self.RULES\n',
                    ),
                ),
            ),
            (
                "unknown-rules-imported-under-a-lead-in",
                (
                    ("bot/lines.py", 'RULES = "- zodiac-sign: No star signs.\\n"\n'),
                    (
                        "bot/late_lead.py",
                        'from bot.lines import RULES\n\nSYSTEM_PROMPT = "Refuse:\\n" + RULES\n',
                    ),
                ),
            ),
        )
    ),
    # A prompt passed whole from a name (gate/composed/passed.py) that lists only ids the
    # card lacks: the file passing it holds no word of refusing, or no rule line.
    *(
        pytest.param(
            spec := Spec(
                "json", ("invalid-cut",), (("md", ("invalid-cut",)),), GUARDED, extra=(_POLICY, *files)
            ),
            id=f"unknown-rules-passed-{name}",
            marks=[_xfail(n) for n in agentgen.known_different(spec)],
        )
        for name, files in (
            ("whole", (("bot/agent.py", _IMPORTS + 'agent = Agent(name="x", instructions=POLICY)\n'),)),
            (
                "module-attribute",
                (
                    ("bot/__init__.py", ""),
                    (
                        "bot/agent.py",
                        "from agents import Agent\nfrom bot import policy\n\n"
                        'agent = Agent(name="x", instructions=policy.POLICY)\n',
                    ),
                ),
            ),
            (
                "in-a-list",
                (("bot/agent.py", _IMPORTS + 'agent = Agent(instructions=["Be brief.", POLICY])\n'),),
            ),
            (
                "in-an-f-string",
                (("bot/agent.py", _IMPORTS + 'agent = Agent(instructions=f"Hi.\\n{POLICY}")\n'),),
            ),
            ("formatted", (("bot/agent.py", _IMPORTS + "agent = Agent(instructions=POLICY.format(x=1))\n"),)),
            (
                "system-message",
                (("bot/agent.py", _IMPORTS + "MSGS = [SystemMessage(content=textwrap.dedent(POLICY))]\n"),),
            ),
            ("role", (("bot/agent.py", _IMPORTS + 'MSGS = [{"role": "system", "content": POLICY}]\n'),)),
            (
                "prompt-function",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + 'agent = Agent("m")\n\n\n@agent.system_prompt\ndef rules() -> str:\n'
                        "    return POLICY\n",
                    ),
                ),
            ),
            (
                "through-a-local",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS
                        + '\ndef make():\n    text = POLICY\n    return Agent(name="x", instructions=text)\n',
                    ),
                ),
            ),
            (
                "through-composed-locals",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + "\nclass Maker:\n    def make(self):\n"
                        "        base: str = textwrap.dedent(POLICY)\n"
                        '        text = f"Be brief.\\n{base}"\n'
                        '        return Agent(name="x", instructions=text)\n',
                    ),
                ),
            ),
            (
                "through-an-enclosing-functions-local",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + '\ndef make():\n    text = "Be brief.\\n" + POLICY\n\n'
                        '    def inner():\n        return Agent(name="x", instructions=text)\n\n'
                        "    return inner()\n",
                    ),
                ),
            ),
            (
                "local-beside-a-call",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + "def make(user):\n"
                        '    text = POLICY + "\\nThe user is " + user.name.title()\n'
                        '    return Agent(name="x", instructions=text)\n',
                    ),
                ),
            ),
            (
                "content-before-role",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + "def ask(q):\n"
                        "    text = POLICY\n"
                        '    return [{"content": text, "role": "system"}, {"role": "user", "content": q}]\n',
                    ),
                ),
            ),
            (
                "class-attribute-through-self",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + "class Analyst:\n"
                        "    GUIDE = POLICY\n"
                        "\n"
                        "    def build(self):\n"
                        '        return Agent(name="x", instructions=self.GUIDE)\n',
                    ),
                ),
            ),
            (
                "class-attribute-by-name",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + "class Cfg:\n"
                        "    GUIDE = POLICY\n"
                        "\n"
                        "\n"
                        "def build():\n"
                        '    return Agent(name="x", instructions=Cfg.GUIDE)\n',
                    ),
                ),
            ),
            (
                "closure-across-a-class",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + "def make():\n"
                        "    text = POLICY\n"
                        "\n"
                        "    class Analyst:\n"
                        "        def build(self):\n"
                        '            return Agent(name="x", instructions=text)\n'
                        "\n"
                        "    return Analyst().build()\n",
                    ),
                ),
            ),
            (
                "function-passed-by-name",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + "def dynamic(ctx, agent) -> str:\n"
                        "    text = POLICY.strip()\n"
                        "    return text\n"
                        "\n"
                        "\n"
                        'agent = Agent(name="x", instructions=dynamic)\n',
                    ),
                ),
            ),
            (
                "method-passed-by-name",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + "class Analyst:\n"
                        "    def rules(self, ctx, agent) -> str:\n"
                        "        return POLICY\n"
                        "\n"
                        "    def build(self):\n"
                        '        return Agent(name="x", instructions=self.rules)\n',
                    ),
                ),
            ),
            (
                "system-message-template",
                (
                    (
                        "bot/agent.py",
                        "from langchain_core.prompts import ChatPromptTemplate, SystemMessagePromptTemplate\n"
                        "from bot.policy import POLICY\n\n"
                        "chat = ChatPromptTemplate.from_messages(\n"
                        '    [SystemMessagePromptTemplate.from_template(POLICY), ("human", "{q}")]\n)\n',
                    ),
                ),
            ),
            (
                "prompt-function-called",
                (
                    (
                        "bot/instr.py",
                        "from bot.policy import POLICY\n\n\n"
                        "def build_instruction() -> str:\n    return POLICY\n",
                    ),
                    (
                        "bot/agent.py",
                        "from google.adk.agents import LlmAgent\nfrom bot.instr import build_instruction\n\n"
                        'root_agent = LlmAgent(name="x", instruction=build_instruction())\n',
                    ),
                ),
            ),
            (
                "prompt-method-called",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + "class Analyst:\n    def __init__(self):\n"
                        '        self.agent = Agent(name="x", instructions=self.build_instruction())\n\n'
                        '    def build_instruction(self) -> str:\n        return "Be brief.\\n" + POLICY\n',
                    ),
                ),
            ),
            (
                "function-reads-a-module-constant",
                (
                    (
                        "bot/agent.py",
                        _IMPORTS + 'BASE = "Be brief.\\n" + POLICY\n\n\ndef make():\n'
                        '    return Agent(name="x", instructions=BASE)\n',
                    ),
                ),
            ),
            ("star-import", (("bot/agent.py", "from bot.policy import *\n\nSYSTEM_PROMPT = POLICY\n"),)),
            (
                "lead-in-imported",
                (
                    ("bot/lead.py", 'LEAD = "Refuse these requests:\\n"\n'),
                    (
                        "bot/agent.py",
                        "from bot.lead import LEAD\n\n"
                        'SYSTEM_PROMPT = LEAD + "- zodiac-sign: No star signs.\\n"\n',
                    ),
                ),
            ),
            (
                "lead-in-and-rules-imported-apart",
                (
                    ("bot/lead.py", 'LEAD = "Refuse these requests:\\n"\n'),
                    ("bot/rules.py", 'RULES = "- zodiac-sign: No star signs.\\n"\n'),
                    (
                        "bot/agent.py",
                        "from agents import Agent\nfrom bot.lead import LEAD\nfrom bot.rules import RULES\n\n"
                        'agent = Agent(name="x", instructions=LEAD + RULES)\n',
                    ),
                ),
            ),
            (
                "script-folder",
                (
                    ("policy.py", _POLICY[1]),
                    (
                        "agent.py",
                        "from agents import Agent\nfrom policy import POLICY\n\n"
                        "agent = Agent(instructions=POLICY)\n",
                    ),
                ),
            ),
        )
    ),
    *(
        pytest.param(
            Spec("json", ("invalid-cut",), (("md", ("invalid-cut",)), (shape, ("pii-export",))), GUARDED),
            id=f"unknown-rules-{shape}",
        )
        for shape in ("rules-above", "rules-fstring", "rules-imported", "rules-class-attr")
    ),
    # The same rule line written in pieces, and with its id or reason filled in from a constant.
    *(
        pytest.param(
            Spec(
                "json",
                ("invalid-cut",),
                (("md", ("invalid-cut",)),),
                GUARDED,
                extra=(("bot/rules.py", code),),
            ),
            id=name,
        )
        for name, code in (
            (
                "unknown-rule-line-in-pieces",
                'SYSTEM_PROMPT = "Refuse these:\\n" + "- zodiac-sign" + ": No star signs."\n',
            ),
            (
                "unknown-rule-id-in-an-f-string",
                'RULE = "zodiac-sign"\nSYSTEM_PROMPT = f"Refuse these:\\n- {RULE}: No star signs."\n',
            ),
            (
                "unknown-rule-reason-in-an-f-string",
                'REASON = "No star signs."\nSYSTEM_PROMPT = f"Refuse these:\\n- zodiac-sign: {REASON}"\n',
            ),
        )
    ),
]


@pytest.mark.parametrize("spec", EXPLICIT)
def test_shape_same_with_shortcuts_off(spec: Spec, tmp_path: Path) -> None:
    spec.write(tmp_path)
    differential(tmp_path)


# With no card, a guard call whose id is computed can fire nothing a check reads, except
# that it is sent inside a protocol error (RL305): the text gate keeps such a call.
@pytest.mark.parametrize(
    "sent",
    [
        "raise HTTPException(status_code=400, detail=refuse(pick(q)))",
        'return {"error": refuse(pick(q))}',
        'return {"error": {"code": -32001, "data": refuse(pick(q))}}',
        'return JSONRPCError(code=-32001, message="refused", data=refuse(pick(q)))',
    ],
)
def test_no_card_computed_guard_inside_an_error(sent: str, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        "from fastapi import HTTPException\nfrom acme import JSONRPCError, refuse\n\n\n"
        f"def pick(q):\n    return q.strip()\n\n\ndef handle(q):\n    {sent}\n"
    )
    default = check_json(tmp_path, False)
    assert_same(default, check_json(tmp_path, True))
    assert [f["code"] for f in json.loads(default)["findings"]] == ["RL305"]


_AHEAD_IDS = ("prompt-from-a-bare-relative-import", "json-card-md-literal", "no-prompt")
_AHEAD = [p for p in EXPLICIT if p.id in _AHEAD_IDS]


@pytest.mark.parametrize("steps", [0, 3, 10**9])
@pytest.mark.parametrize("spec", _AHEAD)
def test_notes_asked_ahead_change_nothing(
    spec: Spec, steps: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prompt stage's text questions asked ahead, during binding's waits on the workers
    (ondemand.warming), give the output of a run that asks them only in the prompt stage,
    however far they got: here none, some, or all, taken at once where the wait would be."""
    from refusal_lint.static import ondemand

    spec.write(tmp_path)
    expected = check_json(tmp_path, exhaustive=False)
    real = ondemand.warming

    def ahead(*args: Any) -> Callable[[], bool]:
        step = real(*args)
        for _ in range(steps):
            if not step():
                break
        return lambda: False

    monkeypatch.setattr(ondemand, "warming", ahead)
    assert check_json(tmp_path, exhaustive=False) == expected


# Noise that gives a false finding today, name -> why (none now: the carded bench's inspect_ai
# row, a helper imported inside a method, binds to the repo's function since issue 20).
FALSE_FINDINGS: dict[str, str] = {}


@pytest.mark.parametrize(
    "noise",
    [
        pytest.param(n, marks=_xfail(FALSE_FINDINGS[n]) if n in FALSE_FINDINGS else ())
        for n in sorted(agentgen.NOISE)
    ],
)
def test_noise_adds_no_finding(noise: str, tmp_path: Path) -> None:
    """Real code that is no card, prompt or guard changes nothing: the agent's findings stay its own."""
    Spec("json", BOTH, FULL, GUARDED).write(tmp_path / "plain")
    Spec("json", BOTH, FULL, GUARDED, noise=(noise,)).write(tmp_path / "noisy")
    assert summary(check_json(tmp_path / "noisy", False)) == summary(check_json(tmp_path / "plain", False))


def test_known_differences_each_have_a_case() -> None:
    """The generator's exclusions and the strict-xfail cases name the same disagreements, so
    that fixing one (its case then passes, which strict xfail reports) means emptying both.
    (An exclusion may be broader than its case: `82-char-id` also keeps out shapes that agree.)"""
    xfailed = [p.values[0] for p in EXPLICIT if p.marks]
    assert all(agentgen.known_different(spec) for spec in xfailed)
    covered = {name for spec in xfailed for name in agentgen.known_different(spec)}
    assert covered == set(agentgen.KNOWN_DIFFERENT)


@pytest.mark.parametrize(
    "keyword",
    [
        pytest.param(
            "persona_brief",
            id="new-prompt-kwarg",
        )
    ],
)
def test_one_declaration_of_prompt_kwargs(keyword: str, tmp_path: Path) -> None:
    """A keyword added to vocab.PROMPT_KWARGS alone is a prompt in both modes or in neither
    (issue 20: the shapes are declared once and every gate derives from the declaration)."""
    spec = Spec("json", BOTH, (), GUARDED)
    spec.write(tmp_path / "repo")
    prose = agentgen.prompt_md({r: agentgen.REASONS[r] for r in BOTH})["prompts/system_prompt.md"]
    (tmp_path / "repo" / "bot.py").write_text(f"from crew import Crew\n\ncrew = Crew({keyword}={prose!r})\n")
    pre = (
        "import refusal_lint.static.extract.vocab as v",
        f"v.PROMPT_KWARGS = v.PROMPT_KWARGS | {{{keyword!r}}}",
    )
    assert_same(
        check_json_process(tmp_path / "repo", False, *pre), check_json_process(tmp_path / "repo", True, *pre)
    )


# ---- (b) generated repos ----------------------------------------------------------------


def _generated(spec: Spec) -> None:
    with tempfile.TemporaryDirectory(prefix="rl-diff-") as tmp:
        spec.write(Path(tmp))
        differential(Path(tmp))


# Deterministic and bounded: the same examples on every run, no example database.
FIXED = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


@settings(FIXED, max_examples=30)
@given(agentgen.specs())
# Found by the long run: a prompt key assigned by subscript, in a file naming no id, was read
# by the extractor but passed over by the `ast` gate.
@example(Spec("json", ("seg-mix",), (("subscript-key", ()),), (), (), ()))
def test_generated_repos_same_with_shortcuts_off(spec: Spec) -> None:
    _generated(spec)


@pytest.mark.slow
@settings(FIXED, max_examples=400)
@given(agentgen.specs())
def test_generated_repos_same_with_shortcuts_off_long(spec: Spec) -> None:
    _generated(spec)


# ---- (c) the shared real repositories, bare and carded ------------------------------------


@pytest.fixture(scope="module")
def shared_repos(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tars = [t for t in SHARED if t.exists()]
    if not tars:
        pytest.skip(f"{BENCH} has no shared repositories")
    root = tmp_path_factory.mktemp("shared")
    for tar_path in tars:
        with tarfile.open(tar_path) as tar:
            tar.extractall(root, filter="data")
    return sorted(p for p in root.iterdir() if p.is_dir())


def plant(repo: Path, dest: Path, agent: Path = EXAMPLE) -> Path:
    """The repository with an agent at its root, as bench/bench.py builds it."""
    shutil.copytree(repo, dest, symlinks=True)
    shutil.copytree(agent, dest, ignore=shutil.ignore_patterns("expected.txt"), dirs_exist_ok=True)
    return dest


@pytest.mark.slow
def test_real_repositories_give_no_finding(shared_repos: list[Path]) -> None:
    """Real agent repos nobody here wrote, none using the extension: nothing to report."""
    for repo in shared_repos:
        assert json.loads(check_json_process(repo, False))["findings"] == [], repo.name


@pytest.mark.slow
def test_real_repositories_same_with_shortcuts_off(shared_repos: list[Path]) -> None:
    differ = [r.name for r in shared_repos if check_json_process(r, False) != check_json_process(r, True)]
    assert differ == []


@pytest.mark.slow
@pytest.mark.parametrize("agent", [EXAMPLE, SAFETY], ids=lambda p: p.name)
def test_carded_real_repositories_same_with_shortcuts_off(
    shared_repos: list[Path], tmp_path_factory: pytest.TempPathFactory, agent: Path
) -> None:
    """With an agent at the root, each repository gives the same bytes both ways, and its
    findings are exactly the agent's own (issue 20: zero false findings); also where the
    agent's ids are words the repository uses (`jailbreak` in a red-teaming tool)."""
    carded = tmp_path_factory.mktemp("carded")
    own = summary(check_json_process(agent, False))
    differ, foreign = [], {}
    for repo in shared_repos:
        tree = plant(repo, carded / repo.name, agent)
        default = check_json_process(tree, False)
        if default != check_json_process(tree, True):
            differ.append(repo.name)
        if summary(default) != own:
            foreign[repo.name] = [f for f in summary(default) if f not in own]
    assert (differ, foreign) == ([], {})


def test_a_class_body_name_read_in_its_body_is_its_attribute(tmp_path: Path) -> None:
    """`RULES` read in the class body that binds it is that attribute (Python's class scope),
    in both modes: the prompt lists `zodiac-sign` (RL202), not only its lead-in."""
    spec = Spec(
        "json",
        ("invalid-cut",),
        (("md", ("invalid-cut",)),),
        GUARDED,
        extra=(
            (
                "bot/helper.py",
                "class Helper:\n"
                '    RULES = "- zodiac-sign: No star signs.\\n"\n'
                '    system_prompt = "You refuse the following, naming the rule:\\n" + RULES\n',
            ),
        ),
    )
    spec.write(tmp_path)
    default = check_json(tmp_path, False)
    assert_same(default, check_json(tmp_path, True))
    assert ("RL202", "zodiac-sign") in {(f["code"], f["rule_id"]) for f in json.loads(default)["findings"]}


def test_a_prompt_completed_by_a_helper_joining_the_params_map_is_derived(tmp_path: Path) -> None:
    """`"...Decline these:\\n" + rules_block()`, the helper joining the card's params map in
    a generator: the prompt is derived from the card, so no rule is missing from it (RL201)."""
    (tmp_path / "card.py").write_text(
        "from a2a.types import AgentExtension\n\n"
        'RULES = {"card-number": "I never read or repeat full card numbers."}\n'
        f'EXT = AgentExtension(uri="{agentgen.URI}", params=RULES)\n'
    )
    (tmp_path / "app.py").write_text(
        "from agents import Agent\nfrom a2a_refusals import refuse\nfrom card import RULES\n\n\n"
        'def rules_block() -> str:\n    return "\\n".join(f"- {k}: {v}" for k, v in RULES.items())\n\n\n'
        'billing = Agent(name="billing", instructions="You help. Decline these:\\n" + rules_block())\n\n\n'
        'def read_card():\n    return refuse("card-number")\n'
    )
    default = check_json(tmp_path, False)
    assert_same(default, check_json(tmp_path, True))
    data = json.loads(default)
    assert data["findings"] == []
    assert [(p["path"], p["form"]) for a in data["agents"] for p in a["prompts"]] == [("app.py", "keyword")]
