"""Issue 20's expected behaviour, one case each: the misses listed under "Why" (A), prompts
found by their content (B, DESIGN §2 "Prompts by their content"), the precision traps that
must never be prompts (C), and an SDK's `refusal` vocabulary beside a card (D).

Each case is the survey agent of `conftest.Repo` with one difference (A1's drift twin: the
testdata repo py-card-script-folder with one), and states the exact findings (code, path,
line, rule_id) DESIGN demands. Every case runs with the shortcuts on
(default) and off (`REFUSAL_LINT_EXHAUSTIVE=1`): both must give the same findings. A case
main does not pass yet is `xfail(strict=True)` for that mode, so the fix shows as an XPASS.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import SURVEY_RULES, TESTDATA, URI, Repo, run_cli

Finding = tuple[str, str, int, str | None]  # code, path, line, rule_id
MODES = ("default", "exhaustive")
SEG = SURVEY_RULES["seg-mix"]
CUT = SURVEY_RULES["invalid-cut"]
SEG_DRIFT = "Segmentation families cannot be mixed; ask for one family per cut."
CARD = ".well-known/agent-card.json"
CARD_URI_LINE = 11  # where RL200 stands: the extension entry's `uri` key


def findings_of(root: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> list[Finding]:
    if mode == "exhaustive":
        monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", "1")
    else:
        monkeypatch.delenv("REFUSAL_LINT_EXHAUSTIVE", raising=False)
    result = run_cli("check", str(root), "--no-cache", "--format", "json", cwd=root)
    assert result.exit_code in (0, 1), result.output
    data = json.loads(result.stdout)
    return [(f["code"], f["path"], f["line"], f["rule_id"]) for f in data["findings"]]


def line_of(path: Path, text: str) -> int:
    """The 1-based line of the one line of `path` holding `text`."""
    (line,) = [n for n, s in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in s]
    return line


def carded(repo: Repo) -> Repo:
    """The survey agent without its prompt file: card and guards."""
    repo.card()
    repo.tools()
    return repo


@dataclass(frozen=True)
class Case:
    # builds the repo and returns the findings expected of it
    build: Callable[[Repo], list[Finding]]
    # mode -> why main is still wrong there (issue 20)
    pending: dict[str, str] = field(default_factory=dict)


def params(cases: dict[str, Case]) -> list[object]:
    out: list[object] = []
    for name, case in cases.items():
        for mode in MODES:
            marks = (
                [pytest.mark.xfail(strict=True, reason=case.pending[mode])] if mode in case.pending else []
            )
            out.append(pytest.param(case, mode, id=f"{name}-{mode}", marks=marks))
    return out


def both(reason: str) -> dict[str, str]:
    return {m: reason for m in MODES}


# ---- A. the misses under "Why" ----------------------------------------------------------------
# (1), the script folder whose card takes URI and RULES from `toolset`, is the testdata repo
# py-card-script-folder (clean); its drift twin here shows the params are really read.


def a1_script_folder_drift(repo: Repo) -> list[Finding]:
    shutil.copytree(TESTDATA / "py-card-script-folder", repo.root, dirs_exist_ok=True)
    (repo.root / "expected.txt").unlink()
    tools = repo.root / "survey_agent" / "tools.py"
    tools.write_text(
        tools.read_text(encoding="utf-8").replace('"invalid-cut"', '"invalid-cuts"'), encoding="utf-8"
    )
    toolset = repo.root / "survey_agent" / "toolset.py"
    return [
        ("RL302", "survey_agent/tools.py", line_of(tools, "invalid-cuts"), "invalid-cuts"),
        ("RL301", "survey_agent/toolset.py", line_of(toolset, '"invalid-cut":'), "invalid-cut"),
    ]


GENEXP = """
    import re

    from agent.policy import refuse

    TABLE = {
        "seg-mix": re.compile(r"segment.*ideology"),
        "invalid-cut": re.compile(r"zodiac"),
    }


    def route(q):
        rule = next((r for r, p in TABLE.items() if p.search(q)), None)
        if rule is not None:
            return refuse(rule)
        return None
    """


PY_CARD = f"""
    from a2a.types import AgentCapabilities, AgentCard, AgentExtension

    REFUSALS = AgentExtension(
        uri="{URI}",
        description="Rules this agent will not compute.",
        params={SURVEY_RULES!r},
    )
    card = AgentCard(name="Survey Analyst", capabilities=AgentCapabilities(extensions=[REFUSALS]))
    """


def a2_generator_expression_id(py_card: bool) -> Callable[[Repo], list[Finding]]:
    def build(repo: Repo) -> list[Finding]:
        if py_card:
            repo.write("agent/card.py", PY_CARD)
            repo.tools()
        else:
            carded(repo)
        repo.prompt()
        path = repo.write("agent/route.py", GENEXP)
        return [("RL304", "agent/route.py", line_of(path, "return refuse(rule)"), None)]

    return build


LONG_ID = "-".join(["segment", "family", "cross", "with", "news", "ideology", "and", "region", "drill"])
LONG_ID += "-" + "x" * (82 - len(LONG_ID) - 1)
assert len(LONG_ID) == 82


def a3_long_id(repo: Repo) -> list[Finding]:
    repo.agent()
    path = repo.write(
        "agent/drill.py",
        f"""
        from agent.policy import refuse


        def drill(q):
            if "region" in q and "ideology" in q:
                return refuse("{LONG_ID}")
            return None
        """,
    )
    return [("RL302", "agent/drill.py", line_of(path, LONG_ID), LONG_ID)]


POLICY = f"""
    POLICY = (
        "Refuse these computations, naming the rule:\\n"
        "- seg-mix: {{seg}}\\n"
        "- invalid-cut: {CUT}\\n"
    )
    """

STARTER_AGENT = """
    from agents import Agent

    {policy}

    STARTER_PROMPT = "You are the survey analyst for the 2026 media-habits study. "

    analyst = Agent(name="analyst", instructions=STARTER_PROMPT + POLICY)
    """


def a4_policy(import_line: str | None, seg: str) -> Callable[[Repo], list[Finding]]:
    """`instructions=STARTER_PROMPT + POLICY`, POLICY imported by `import_line` (None: defined
    in the same module, the control that isolates the import)."""

    def build(repo: Repo) -> list[Finding]:
        carded(repo)
        policy = POLICY.format(seg=seg)
        if import_line is None:
            path = repo.write("agent/analyst.py", STARTER_AGENT.format(policy=policy.strip()))
        else:
            path = repo.write("agent/policy_text.py", policy)
            repo.write("agent/analyst.py", STARTER_AGENT.format(policy=import_line))
        if seg == SEG:
            return []
        return [("RL203", path.relative_to(repo.root).as_posix(), line_of(path, "seg-mix"), "seg-mix")]

    return build


def a5_error_envelope(repo: Repo) -> list[Finding]:
    repo.agent()
    path = repo.write(
        "agent/handler.py",
        """
        def handle(tool, q):
            if "zodiac" in q:
                return {"error": tool.refusal("invalid-cut")}
            return {"result": tool.run(q)}
        """,
    )
    return [("RL305", "agent/handler.py", line_of(path, "tool.refusal"), "invalid-cut")]


def a6_enum_through_helper(repo: Repo, base: str = "Enum") -> list[Finding]:
    repo.agent()
    repo.write(
        "agent/rules.py",
        f"""
        from enum import {base}


        class Rule({base}):
            SEG_MIX = "seg-mix"
            ZODIAC = "zodiac-cut"
        """,
    )
    repo.write(
        "agent/helpers.py",
        """
        from agent.policy import refuse


        def block(rule, detail):
            return refuse(rule.value, detail=detail)
        """,
    )
    path = repo.write(
        "agent/checks.py",
        """
        from agent.helpers import block
        from agent.rules import Rule


        def check(cut, families):
            if len(families) > 1:
                return block(Rule.SEG_MIX, "families crossed")
            if cut == "sign":
                return block(Rule.ZODIAC, "zodiac sign cut")
            return None
        """,
    )
    return [("RL302", "agent/checks.py", line_of(path, "Rule.ZODIAC"), "zodiac-cut")]


def a7_method_without_rule_param(repo: Repo) -> list[Finding]:
    repo.agent()
    repo.write(
        "agent/chain.py",
        """
        class Chain:
            def absorb_refusal(self, outcome, model, continuation):
                # a model that declined: hand its answer on unchanged
                return continuation(outcome, model)


        def step(chain, model, continuation, prompt):
            outcome = model.invoke(prompt)
            return chain.absorb_refusal(outcome, model, continuation)
        """,
    )
    return []


def a7_method_with_rule_param(repo: Repo) -> list[Finding]:
    """The control of A7: the repo's method of that name has a `rule` parameter, so the call
    on an object of unknown class is a guard, its id the argument bound to `rule` (self is
    implicit in `chain.refuse_cut(q, ...)`)."""
    repo.agent()
    path = repo.write(
        "agent/chain.py",
        """
        from agent.policy import refuse


        class Chain:
            def refuse_cut(self, q, rule):
                return refuse(rule, detail=q)


        def step(chain, q):
            return chain.refuse_cut(q, "zodiac-cut")
        """,
    )
    return [("RL302", "agent/chain.py", line_of(path, "chain.refuse_cut(q"), "zodiac-cut")]


def a7_local_import_helper(repo: Repo) -> list[Finding]:
    """A repo helper imported inside a method binds as the module-level import would: its
    `rule` parameter is the id, fired at the call site (DESIGN §2 "Which argument is the id")."""
    repo.agent()
    repo.write(
        "agent/helpers.py",
        """
        from agent.policy import refuse


        def refuse_with(ctx, rule):
            return refuse(rule, detail=ctx)
        """,
    )
    path = repo.write(
        "agent/model.py",
        """
        class Model:
            def answer(self, ctx, cut):
                from agent.helpers import refuse_with

                if cut == "sign":
                    return refuse_with(ctx, "zodiac-cut")
                return None
        """,
    )
    return [("RL302", "agent/model.py", line_of(path, "refuse_with(ctx"), "zodiac-cut")]


IMPORT = "from agent.policy_text import POLICY"
STAR = "from agent.policy_text import *"

A_CASES = {
    "A1-script-folder-drift": Case(a1_script_folder_drift),
    # With a JSON card its ids are known before Python is read; with a Python card they are not.
    "A2-generator-expression-id": Case(a2_generator_expression_id(py_card=False)),
    "A2-generator-expression-id-py-card": Case(a2_generator_expression_id(py_card=True)),
    "A3-82-char-id": Case(a3_long_id),
    "A4-local-policy": Case(a4_policy(None, SEG)),
    "A4-local-policy-drift": Case(a4_policy(None, SEG_DRIFT)),
    "A4-imported-policy": Case(a4_policy(IMPORT, SEG)),
    "A4-imported-policy-drift": Case(a4_policy(IMPORT, SEG_DRIFT)),
    "A4-star-imported-policy": Case(a4_policy(STAR, SEG)),
    "A4-star-imported-policy-drift": Case(a4_policy(STAR, SEG_DRIFT)),
    "A5-error-envelope": Case(a5_error_envelope),
    "A6-enum-through-helper": Case(a6_enum_through_helper),
    "A6-strenum-through-helper": Case(lambda repo: a6_enum_through_helper(repo, "StrEnum")),
    "A7-method-without-rule-param": Case(a7_method_without_rule_param),
    "A7-method-with-rule-param": Case(a7_method_with_rule_param),
    "A7-helper-imported-in-a-method": Case(a7_local_import_helper),
}


def _subprocess_findings(root: Path, exhaustive: bool) -> list[Finding]:
    env = {k: v for k, v in os.environ.items() if k != "REFUSAL_LINT_EXHAUSTIVE"}
    if exhaustive:
        env["REFUSAL_LINT_EXHAUSTIVE"] = "1"
    proc = subprocess.run(
        [sys.executable, "-m", "refusal_lint", "check", ".", "--no-cache", "--format", "json"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return [(f["code"], f["path"], f["line"], f["rule_id"]) for f in json.loads(proc.stdout)["findings"]]


SUBPROCESS = {
    "A2-generator-expression-id-py-card": A_CASES["A2-generator-expression-id-py-card"],
    "A3-82-char-id": A_CASES["A3-82-char-id"],
}


@pytest.mark.parametrize(("case", "mode"), params(SUBPROCESS))
def test_why_misses_in_a_fresh_process(case: Case, mode: str, repo: Repo) -> None:
    """The two ids the issue measured from outside, through a real process and its environment."""
    want = case.build(repo)
    assert _subprocess_findings(repo.root, mode == "exhaustive") == want


# ---- B. prompts by their content (DESIGN §2) --------------------------------------------------
# Each form holds the rule lines of the card in a shape DESIGN's table does not name (or names
# only as a generic shape). `SEG_REASON`/`CUT_REASON` stand for the reasons; the drift twin
# changes the seg-mix one and must give exactly one RL203, at that line.

# The prompt text every form holds, reasons left open.
BODY = """You are the survey analyst for the 2026 media-habits study.
Refuse these computations, naming the rule:
- seg-mix: SEG_REASON
- invalid-cut: CUT_REASON"""

ANTHROPIC = """
import anthropic

client = anthropic.Anthropic()


def ask(question):
    return client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        system=SYSTEM,
        messages=[{"role": "user", "content": question}],
    )
"""

FORMS: dict[str, tuple[str, str]] = {
    # The control: a form main reads already (the table's `system=` with one string).
    "system-string": ("agent/claude.py", ANTHROPIC.replace("SYSTEM", '"""BODY\n"""')),
    "list-of-instruction-strings": (
        "agent/analyst.py",
        """
from pydantic_ai import Agent

analyst = Agent(
    "openai:gpt-4o",
    instructions=[
        "You are the survey analyst for the 2026 media-habits study.",
        "Refuse these computations, naming the rule:",
        "- seg-mix: SEG_REASON",
        "- invalid-cut: CUT_REASON",
    ],
)
""",
    ),
    "message-object": (
        "agent/messages.py",
        '''
from fasta2a.schema import Message, TextPart


def opening():
    return Message(
        role="system",
        parts=[
            TextPart(
                text="""BODY
"""
            )
        ],
    )
''',
    ),
    "from-system": (
        "agent/pipeline.py",
        '''
from haystack.dataclasses import ChatMessage

MESSAGES = [
    ChatMessage.from_system(
        """BODY
"""
    ),
    ChatMessage.from_user("{{ question }}"),
]
''',
    ),
    "class-docstring": (
        "agent/signature.py",
        '''
import dspy


class SurveyAnalyst(dspy.Signature):
    """You are the survey analyst for the 2026 media-habits study.

    Refuse these computations, naming the rule:
    - seg-mix: SEG_REASON
    - invalid-cut: CUT_REASON
    """

    question: str = dspy.InputField()
    answer: str = dspy.OutputField()
''',
    ),
    "memory-block": (
        "agent/letta_agent.py",
        '''
from letta_client import CreateBlock, Letta

client = Letta(base_url="http://127.0.0.1:8283")

analyst = client.agents.create(
    model="openai/gpt-4o-mini",
    memory_blocks=[
        CreateBlock(label="persona", value="I am the survey analyst for the 2026 media-habits study."),
        CreateBlock(
            label="policy",
            value="""Refuse these computations, naming the rule:
- seg-mix: SEG_REASON
- invalid-cut: CUT_REASON
""",
        ),
    ],
)
''',
    ),
    "yaml-template-block": (
        "agent/pipeline.yaml",
        """
components:
  builder:
    init_parameters:
      template: |
        You are the survey analyst for the 2026 media-habits study.
        Refuse these computations, naming the rule:
        - seg-mix: SEG_REASON
        - invalid-cut: CUT_REASON

        Question: {{ question }}
      required_variables: [question]
    type: haystack.components.builders.prompt_builder.PromptBuilder
  llm:
    init_parameters:
      model: gpt-4o-mini
    type: haystack.components.generators.openai.OpenAIGenerator
connections:
- receiver: llm.prompt
  sender: builder.prompt
""",
    ),
    "anthropic-text-blocks": (
        "agent/claude.py",
        ANTHROPIC.replace(
            "SYSTEM", '[{"type": "text", "text": """BODY\n""", "cache_control": {"type": "ephemeral"}}]'
        ),
    ),
    "cohere-preamble": (
        "agent/cohere_chat.py",
        '''
import cohere

co = cohere.Client()


def ask(question):
    return co.chat(
        model="command-r-plus",
        preamble="""BODY
""",
        message=question,
    )
''',
    ),
    "module-constant": (
        "agent/guidance.py",
        '''
GUIDANCE = """BODY
"""
''',
    ),
    "add-system-message": (
        "agent/kernel.py",
        '''
from semantic_kernel.contents import ChatHistory


def history():
    chat = ChatHistory()
    chat.add_system_message(
        """BODY
"""
    )
    return chat
''',
    ),
    # Content anywhere else DESIGN names: a dict value, a function docstring, a YAML value
    # under a key that is no prompt key, a text file whose name says nothing.
    "dict-value": ("agent/settings.py", 'SETTINGS = {"persona": """BODY\n""", "temperature": 0.2}\n'),
    "function-docstring": (
        "agent/crew.py",
        '''
def analyst():
    """BODY
    """
    return None
''',
    ),
    "yaml-value": (
        "agent/settings.yaml",
        """
persona: |
  You are the survey analyst for the 2026 media-habits study.
  Refuse these computations, naming the rule:
  - seg-mix: SEG_REASON
  - invalid-cut: CUT_REASON
temperature: 0.2
""",
    ),
    "text-file": ("agent/guidelines.txt", "BODY\n"),
}


def form(name: str, seg: str) -> Callable[[Repo], list[Finding]]:
    rel, template = FORMS[name]

    def build(repo: Repo) -> list[Finding]:
        carded(repo)
        source = template.replace("BODY", BODY).replace("SEG_REASON", seg).replace("CUT_REASON", CUT)
        path = repo.write(rel, source)
        return [] if seg == SEG else [("RL203", rel, line_of(path, seg), "seg-mix")]

    return build


B_CASES = {
    f"B-{name}{twin}": Case(form(name, seg))
    for name in FORMS
    for twin, seg in (("", SEG), ("-drift", SEG_DRIFT))
}


def content_near_miss(repo: Repo) -> list[Finding]:
    """A content candidate is checked like any prompt: the near miss it holds is RL202."""
    repo.agent()
    path = repo.write(
        "agent/help.py",
        'HELP = "Ask for one family per cut: seg-mix and invalid_cut requests are refused."\n',
    )
    return [("RL202", "agent/help.py", line_of(path, "invalid_cut"), "invalid_cut")]


B_CASES["B-content-near-miss"] = Case(content_near_miss)


def content_spelled(repo: Repo) -> list[Finding]:
    """A content candidate whose id only its value holds (an escape spells its hyphen, or
    two literals meet at it) is still one: its drifted reason is RL203. The walk looks for
    content candidates only where the text can spell an id (relevance.may_spell_ids)."""
    repo.agent()
    source = (
        'HELP = (\n    "Refuse these computations, naming the rule:\\n"\n'
        '    "- seg\\x2dmix: Crossing families is off.\\n"\n'
        '    "- invalid-" "cut: CUT_REASON"\n)\n'
    ).replace("CUT_REASON", CUT)
    path = repo.write("agent/help.py", source)
    return [("RL203", "agent/help.py", line_of(path, "seg\\x2dmix"), "seg-mix")]


B_CASES["B-content-spelled"] = Case(content_spelled)


# ---- C. precision traps: text that states a rule line but is never a prompt ----------------
# Each trap states `seg-mix: <another reason>`. Beside no prompt the agent still gets its one
# RL200 (the trap is no candidate); beside the real prompt it gets nothing (no RL202/RL203).

TRAPS: dict[str, dict[str, str]] = {
    # Not a trap of the kind above but its edge: a near miss alone makes no candidate.
    "near-miss-only": {"agent/help.py": 'HELP = "The seg_mix check failed for this cut."\n'},
    "guard-detail": {
        "agent/profile.py": """
from agent.policy import refuse


def profile(segment, ideology):
    if segment and ideology:
        return refuse("seg-mix", detail="seg-mix: the cut crossed the Polaris segment with news ideology")
    return None
""",
    },
    "payload-detail": {
        "agent/parts.py": """
def refusal_data(families):
    return {"rule": "seg-mix", "detail": "seg-mix: the cut crossed " + " and ".join(families)}
""",
    },
    "log-line": {
        "agent/audit.py": """
import logging

logger = logging.getLogger(__name__)


def audit(q):
    logger.info("seg-mix: refused %s", q)
""",
    },
    "exception-message": {
        "agent/validate.py": """
def validate(cut):
    if "+" in cut:
        raise ValueError("seg-mix: bad input for the cut")
    return cut
""",
    },
    "test-assertion": {
        "tests/test_x.py": """
from agent.tools import crosstab


def test_families_are_not_crossed():
    out = crosstab(["age"], ["polaris", "ideology"])
    assert out == "seg-mix: families are never crossed in one table"
""",
    },
    "test-docstring": {
        "tests/test_tools.py": """
from agent.tools import crosstab


def test_crossing_families():
    \"\"\"seg-mix: polaris x ideology must be refused.\"\"\"
    assert crosstab(["age"], ["polaris", "ideology"]) is None
""",
        "agent/conftest.py": """
CASES = ["invalid-cut: zodiac is not a cut of this study"]
""",
    },
    "eval-data": {
        "evals/refusals.yaml": """
tests:
  - description: "seg-mix: polaris crossed with ideology"
    vars: {question: "Cross polaris by ideology"}
  - description: "invalid-cut: a zodiac cut"
    vars: {question: "Break it down by star sign"}
""",
    },
    "readme": {
        "README.md": """
# Survey analyst

An A2A agent over the 2026 media-habits survey. It refuses, naming the rule:

- seg-mix: families are never crossed in one table
- invalid-cut: only age and region cuts exist
""",
    },
    "docs-folder": {
        "docs/refusals.md": """
# Refusals

What the agent will not compute, and why:

- seg-mix: families are never crossed in one table
- invalid-cut: only age and region cuts exist
""",
    },
    "changelog": {
        "CHANGELOG.md": """
# Changelog

## 1.4.2

- seg-mix: the reason now names both families of the cut
""",
    },
    "python-comment": {
        "agent/cuts.py": """
# seg-mix: families are never crossed in one table, so a cut takes one family
FAMILIES = ("polaris", "ideology", "age")


def family_of(cut):
    return next((f for f in FAMILIES if cut.startswith(f)), None)  # invalid-cut: none of them
""",
    },
    "tool-config": {
        "pyproject.toml": """
[project]
name = "survey-analyst"
description = "seg-mix: families are never crossed in one table"

[tool.refusal-lint]
exclude = ["build/**"]
""",
    },
    "yaml-comment": {
        "agent/settings.yaml": """
# seg-mix: families are never crossed in one table
families: [polaris, ideology, age]
cuts: [age, region]
""",
    },
}


def trap(name: str, beside_prompt: bool) -> Callable[[Repo], list[Finding]]:
    def build(repo: Repo) -> list[Finding]:
        if beside_prompt:
            repo.agent()
        else:
            carded(repo)
        for rel, text in TRAPS[name].items():
            repo.write(rel, text)
        return [] if beside_prompt else [("RL200", CARD, CARD_URI_LINE, None)]

    return build


C_CASES = {
    f"C-{name}-{where}": Case(trap(name, where == "beside-prompt"))
    for name in TRAPS
    for where in ("alone", "beside-prompt")
}


# ---- D. an LLM SDK's `refusal` vocabulary beside a card --------------------------------------
# Response types with `refusal` fields, a `refusal` stop reason, a method handling a model's
# refusal, a recorded response: ordinary words of an SDK, none a guard, a card or a prompt.

SDK_FILES = {
    "vendor/llm_sdk/types.py": '''
from typing import List, Literal, Optional, Union

from pydantic import BaseModel


class ChatCompletionMessage(BaseModel):
    content: Optional[str] = None
    refusal: Optional[str] = None
    """The refusal message generated by the model."""
    role: Literal["assistant"]


class ResponseOutputText(BaseModel):
    text: str
    type: Literal["output_text"]


class ResponseOutputRefusal(BaseModel):
    refusal: str
    """The refusal explanation from the model."""
    type: Literal["refusal"]


Content = Union[ResponseOutputText, ResponseOutputRefusal]


class ResponseOutputMessage(BaseModel):
    content: List[Content]
''',
    "vendor/llm_sdk/stream.py": """
from .types import ChatCompletionMessage, ResponseOutputRefusal


class Stream:
    def __init__(self):
        self.refusal_parts = []

    def _handle_refusal(self, chunk):
        self.refusal_parts.append(chunk.delta.refusal or "")

    def feed(self, chunk):
        if chunk.delta.refusal is not None:
            self._handle_refusal(chunk)

    def output(self, message: ChatCompletionMessage):
        if message.refusal:
            return ResponseOutputRefusal(refusal=message.refusal, type="refusal")
        return message.content


def finished(stop_reason):
    if stop_reason == "refusal":
        return True
    return stop_reason in ("end_turn", "stop_sequence")
""",
    "vendor/llm_sdk/cassettes/chat.json": """
{"choices": [
  {"finish_reason": "stop", "message": {"content": "Hello.", "refusal": null, "role": "assistant"}}
 ],
 "stop_reason": "refusal"}
""",
}


# The drifted agent's own findings: its prompt and its guards say `invalid-cuts`.
DRIFTED_AGENT: list[Finding] = [
    ("RL201", CARD, 16, "invalid-cut"),
    ("RL301", CARD, 16, "invalid-cut"),
    ("RL202", "agent/system_prompt.md", 6, "invalid-cuts"),
    ("RL302", "agent/tools.py", 6, "invalid-cuts"),
]


def sdk_vocabulary(agent: str) -> Callable[[Repo], list[Finding]]:
    def build(repo: Repo) -> list[Finding]:
        if agent == "clean":
            repo.agent()
        elif agent == "drifted":
            repo.agent(ids=("seg-mix", "invalid-cuts"))
        for rel, text in SDK_FILES.items():
            repo.write(rel, text)
        return DRIFTED_AGENT if agent == "drifted" else []

    return build


D_CASES = {
    "D-sdk-vocabulary-beside-the-agent": Case(sdk_vocabulary("clean")),
    "D-sdk-vocabulary-beside-a-drifted-agent": Case(sdk_vocabulary("drifted")),
    "D-sdk-vocabulary-alone": Case(sdk_vocabulary("none")),
}


@pytest.mark.parametrize(("case", "mode"), params(A_CASES | B_CASES | C_CASES | D_CASES))
def test_exact_findings(case: Case, mode: str, repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    want = case.build(repo)
    assert findings_of(repo.root, mode, monkeypatch) == want


STAR_CYCLE = {
    "pkg/__init__.py": "from .a import *\nfrom .b import *\n",
    "pkg/a.py": "from pkg import *\nfrom .b import *\n\nMODE = 1\n",
    "pkg/b.py": "from pkg import *\nfrom .a import *\n\nURI = %r\nRULES = %r\n",
    "pkg/card.py": (
        "from pkg import *\nfrom a2a.types import AgentCapabilities, AgentCard, AgentExtension\n\n"
        "CARD = AgentCard(\n    name='Survey Analyst',\n"
        "    capabilities=AgentCapabilities(extensions=[AgentExtension(uri=URI, params=%s)]),\n)\n"
    ),
}


@pytest.mark.parametrize(("params", "rules"), [("RULES", sorted(SURVEY_RULES)), ("UNDEFINED_RULES", [])])
def test_star_imports_in_a_cycle_resolve_once(repo: Repo, params: str, rules: list[str]) -> None:
    """Star imports that form cycles and diamonds are followed each (module, name) once:
    a name found in one resolves, one bound nowhere ends the search (no exponential walk),
    the same in both modes."""
    repo.prompt()
    repo.tools()
    for rel, text in STAR_CYCLE.items():
        if rel == "pkg/b.py":
            text = text % (URI, SURVEY_RULES)
        elif rel == "pkg/card.py":
            text = text % params
        repo.put(rel, text)
    outputs = []
    for mode in ({}, {"REFUSAL_LINT_EXHAUSTIVE": "1"}):
        proc = subprocess.run(
            [sys.executable, "-m", "refusal_lint", "check", ".", "--no-cache", "--format", "json"],
            cwd=repo.root,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **mode},
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        outputs.append(proc.stdout)
    report = json.loads(outputs[0])
    assert outputs[1] == outputs[0]
    assert report["findings"] == []
    assert [a["card"]["path"] for a in report["agents"]] == ["pkg/card.py"]
    assert sorted(report["agents"][0]["rules"]) == rules
