"""Agent repositories built from shapes, for the differential test (tests/test_differential.py).

A repo is a card shape, prompt shapes, guard shapes and noise shapes, each a function that
returns files (path -> text) for the same card rules. The shapes are the ones DESIGN §2
names and the real-code ones issue 20 lists (script-folder imports, star imports, enums
through helpers, generator-expression ids, policy tables, prompts by their content, SDK
`refusal` fields); the hypothesis strategy `repos()` combines them, and the explicit cases of
the test name combinations directly.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import assume
from hypothesis import strategies as st

URI = "https://standards.upperhandai.com/ext/refusals/v1"
MEDIA = "application/vnd.upperhand.refusal+json"
_LONG = ("cross-family-segmentation-request-" * 3)[:82]
LONG_ID = _LONG  # an 82-character kebab id (issue 20: RL302 one way, silent the other)
assert len(LONG_ID) == 82 and not LONG_ID.endswith("-")

REASONS = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
    "pii-export": "Respondent-level rows are never exported.",
    LONG_ID: "Requests that cross every segmentation family at once are refused.",
}

Files = dict[str, str]


def _py(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _rules_literal(rules: dict[str, str]) -> str:
    """One line, so that it can stand in a dedented template."""
    return repr(rules)


def _rule_lines(rules: dict[str, str]) -> list[str]:
    return [f"- {k}: {v}" for k, v in rules.items()]


# ---- cards ------------------------------------------------------------------------------
# Each returns the files of the card and the Python module (dotted, importable from the
# guards' folder) that holds RULES, or None where the rules are only in a data file.


def card_json(rules: dict[str, str]) -> tuple[Files, str | None]:
    card = {
        "protocolVersion": "0.3.0",
        "name": "Survey Analyst",
        "url": "https://survey.example.com/a2a",
        "version": "1.0.0",
        "capabilities": {"extensions": [{"uri": URI, "required": False, "params": rules}]},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }
    return {".well-known/agent-card.json": json.dumps(card, indent=2) + "\n"}, None


def card_py_inline(rules: dict[str, str]) -> tuple[Files, str | None]:
    card = _py(
        f"""
        from a2a.types import AgentCapabilities, AgentCard, AgentExtension

        RULES = {_rules_literal(rules)}

        CARD = AgentCard(
            name="Survey Analyst",
            url="http://localhost:9999/",
            version="1.0.0",
            capabilities=AgentCapabilities(extensions=[AgentExtension(uri="{URI}", params=RULES)]),
        )
        """
    )
    return {"agent/__init__.py": "", "agent/card.py": card}, "agent.card"


def _card_script(rules: dict[str, str], imp: str) -> tuple[Files, str | None]:
    """A folder run as a script (`python app/agent.py`): no __init__.py, top-level imports
    of a sibling (`imp`)."""
    toolset = _py(
        f"""
        EXT_BASE = "https://standards.upperhandai.com/ext"
        URI = f"{{EXT_BASE}}/refusals/v1"
        RULES = {_rules_literal(rules)}
        """
    )
    agent = _py(
        """
        from a2a.types import AgentCapabilities, AgentCard, AgentExtension

        CARD = AgentCard(
            name="Survey Analyst",
            url="http://localhost:9999/",
            version="1.0.0",
            capabilities=AgentCapabilities(extensions=[AgentExtension(uri=URI, params=RULES)]),
        )
        """
    )
    return {"app/toolset.py": toolset, "app/agent.py": imp + "\n" + agent}, "toolset"


def card_py_sibling(rules: dict[str, str]) -> tuple[Files, str | None]:
    return _card_script(rules, "from toolset import URI, RULES")


def card_py_star(rules: dict[str, str]) -> tuple[Files, str | None]:
    return _card_script(rules, "from toolset import *")


def card_py_parenthesised(rules: dict[str, str]) -> tuple[Files, str | None]:
    """The names imported over several lines, as ruff and black format a long import."""
    return _card_script(rules, "from toolset import (\n    RULES,\n    URI,\n)")


def card_py_continued(rules: dict[str, str]) -> tuple[Files, str | None]:
    """The import continued on the next line by a backslash."""
    return _card_script(rules, "from toolset import RULES, \\\n    URI")


def card_py_dict_sibling(rules: dict[str, str]) -> tuple[Files, str | None]:
    """A dict-literal card entry in a script whose URI and params are names of a sibling module:
    the script's own text holds neither `refusal` nor `AgentExtension`."""
    files, mod = _card_script(rules, "from toolset import URI, RULES")
    files["app/agent.py"] = _py(
        """
        from a2a.types import AgentCard
        from toolset import URI, RULES

        CARD = AgentCard.model_validate(
            {"name": "Survey Analyst", "capabilities": {"extensions": [{"uri": URI, "params": RULES}]}}
        )
        """
    )
    return files, mod


def card_py_package(rules: dict[str, str]) -> tuple[Files, str | None]:
    """AgentExtension built in one module of a package from URI and params of another."""
    consts = f'URI = "{URI}"\nRULES = {_rules_literal(rules)}\n'
    card = _py(
        """
        from a2a.types import AgentCapabilities, AgentCard, AgentExtension

        from agent.constants import RULES, URI

        def build_card() -> AgentCard:
            ext = AgentExtension(uri=URI, required=False, params=RULES)
            return AgentCard(name="Survey Analyst", capabilities=AgentCapabilities(extensions=[ext]))
        """
    )
    return {"agent/__init__.py": "", "agent/constants.py": consts, "agent/card.py": card}, "agent.constants"


def card_py_class_attr(rules: dict[str, str]) -> tuple[Files, str | None]:
    """The extension built in a method from a class attribute: `uri=self.URI`."""
    card = _py(
        f"""
        from a2a.types import AgentCapabilities, AgentCard, AgentExtension

        RULES = {_rules_literal(rules)}


        class SurveyAgent:
            URI = "{URI}"

            def card(self) -> AgentCard:
                ext = AgentExtension(uri=self.URI, params=RULES)
                return AgentCard(name="Survey Analyst", capabilities=AgentCapabilities(extensions=[ext]))
        """
    )
    return {"agent/__init__.py": "", "agent/card.py": card}, "agent.card"


def card_py_ctor_params(rules: dict[str, str]) -> tuple[Files, str | None]:
    """A class that builds the extension from what it is constructed with (`params=self.rules`),
    constructed in another module whose text says nothing of refusing."""
    ext = _py(
        f"""
        from a2a.types import AgentExtension


        class PolicyExtension:
            def __init__(self, rules):
                self.rules = rules

            def card_extension(self) -> AgentExtension:
                return AgentExtension(uri="{URI}", params=self.rules)
        """
    )
    main = f"from agent.ext import PolicyExtension\n\nEXTENSION = PolicyExtension({_rules_literal(rules)})\n"
    return {"agent/__init__.py": "", "agent/ext.py": ext, "agent/main.py": main}, None


def card_py_uri_chosen(rules: dict[str, str]) -> tuple[Files, str | None]:
    """The URI chosen in a module-level `if` (an override or an imported default): the card
    module's text holds no refusal word, and the name `uri=` reads is bound only indented."""
    consts = f'DEFAULT_URI = "{URI}"\nRULES = {_rules_literal(rules)}\n'
    card = _py(
        """
        import os

        from a2a.types import AgentCapabilities, AgentCard, AgentExtension

        from agent.constants import DEFAULT_URI, RULES

        if os.environ.get("EXTENSION_URI"):
            EXTENSION_URI = os.environ["EXTENSION_URI"]
        else:
            EXTENSION_URI = DEFAULT_URI


        def build_card() -> AgentCard:
            ext = AgentExtension(uri=EXTENSION_URI, params=RULES)
            return AgentCard(name="Survey Analyst", capabilities=AgentCapabilities(extensions=[ext]))
        """
    )
    return {"agent/__init__.py": "", "agent/constants.py": consts, "agent/card.py": card}, "agent.constants"


def card_py_aliased(rules: dict[str, str]) -> tuple[Files, str | None]:
    """The extension class imported under a name of the module's own (`AgentExtension as
    Ext`), its URI and params from a sibling module: no text here says AgentExtension(."""
    consts = f'URI = "{URI}"\nRULES = {_rules_literal(rules)}\n'
    card = _py(
        """
        from a2a.types import AgentCapabilities, AgentCard
        from a2a.types import AgentExtension as Ext

        from agent.constants import RULES, URI


        def build_card() -> AgentCard:
            return AgentCard(
                name="Survey Analyst",
                capabilities=AgentCapabilities(extensions=[Ext(uri=URI, params=RULES)]),
            )
        """
    )
    return {"agent/__init__.py": "", "agent/constants.py": consts, "agent/card.py": card}, "agent.constants"


def card_py_merged(rules: dict[str, str]) -> tuple[Files, str | None]:
    """The params merged from two dicts (`BASE | EXTRA`, and `dict(...)` of that), the first
    rule alone in an imported one: guards' `RULES["id"]` read through the merge."""
    first = dict(list(rules.items())[:1])
    rest = dict(list(rules.items())[1:])
    consts = _py(
        f"""
        from agent.base import BASE

        EXTRA = {_rules_literal(rest)}
        RULES = BASE | EXTRA
        """
    )
    card = _py(
        f"""
        from a2a.types import AgentCapabilities, AgentCard, AgentExtension

        from agent.constants import RULES


        def build_card() -> AgentCard:
            ext = AgentExtension(uri="{URI}", params=dict(**RULES))
            return AgentCard(name="Survey Analyst", capabilities=AgentCapabilities(extensions=[ext]))
        """
    )
    base = f"BASE = {_rules_literal(first)}\n"
    files = {"agent/__init__.py": "", "agent/base.py": base, "agent/constants.py": consts}
    return {**files, "agent/card.py": card}, "agent.constants"


def card_py_comprehension(rules: dict[str, str]) -> tuple[Files, str | None]:
    """The params a comprehension over a table of dataclass rows: guards' `RULES["id"]` read
    through it."""
    rows = "".join(f"    Rule({k!r}, {v!r}),\n" for k, v in rules.items())
    consts = (
        "from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Rule:\n"
        f"    id: str\n    reason: str\n\n\nROWS = [\n{rows}]\nRULES = {{r.id: r.reason for r in ROWS}}\n"
        f"URI = {URI!r}\n"
    )
    files, _ = card_py_aliased(rules)
    return {**files, "agent/constants.py": consts}, "agent.constants"


def card_py_comprehension_prompt(rules: dict[str, str]) -> tuple[Files, str | None]:
    """As py-comprehension, and a prompt listing the rules from the same table (derived: it
    agrees with the card by construction), in a module that imports the table alone."""
    files, mod = card_py_comprehension(rules)
    prompt = 'POLICY_PROMPT = "Policy:\\n" + "\\n".join(f"* {r.id}: {r.reason}" for r in ROWS)\n'
    return {**files, "agent/policy_prompt.py": "from agent.constants import ROWS\n\n" + prompt}, mod


CARDS: dict[str, Callable[[dict[str, str]], tuple[Files, str | None]]] = {
    "json": card_json,
    "py-inline": card_py_inline,
    "py-sibling": card_py_sibling,
    "py-star": card_py_star,
    "py-parenthesised": card_py_parenthesised,
    "py-continued": card_py_continued,
    "py-package": card_py_package,
    "py-dict-sibling": card_py_dict_sibling,
    "py-class-attr": card_py_class_attr,
    "py-ctor-params": card_py_ctor_params,
    "py-uri-chosen": card_py_uri_chosen,
    "py-aliased": card_py_aliased,
    "py-merged": card_py_merged,
    "py-comprehension": card_py_comprehension,
    "py-comprehension-prompt": card_py_comprehension_prompt,
}


# ---- prompts ----------------------------------------------------------------------------
# Each takes the rules the prompt states (a subset of the card's: the rest is RL201) and
# returns files. Those with "content" in the name are found only by their content.

_LEAD = "You are the survey analyst for the 2026 media-habits study. Answer from the tables only."
_REFUSE = "Refuse these computations and name the rule:"


def _prose(rules: dict[str, str]) -> str:
    return "\n".join([_LEAD, "", _REFUSE, *_rule_lines(rules)]) + "\n"


def _bot(name: str, text: str) -> Files:
    """A module of the `bot` package."""
    return {"bot/__init__.py": "", f"bot/{name}.py": text}


def prompt_md(rules: dict[str, str]) -> Files:
    return {"prompts/system_prompt.md": "# Survey analyst\n\n" + _prose(rules)}


def prompt_kwarg(rules: dict[str, str]) -> Files:
    return {
        "bot/__init__.py": "",
        "bot/main.py": _py(
            f"""
            from agents import Agent

            INSTRUCTIONS = {_prose(rules)!r}

            analyst = Agent(name="analyst", instructions=INSTRUCTIONS, model="gpt-4.1")
            """
        ),
    }


def prompt_kwarg_imported_policy(rules: dict[str, str]) -> Files:
    """`instructions=STARTER_PROMPT + POLICY`, POLICY a constant of another module."""
    return {
        "bot/__init__.py": "",
        "bot/policy.py": f"POLICY = {chr(10).join(['', _REFUSE, *_rule_lines(rules)])!r}\n",
        "bot/main.py": _py(
            f"""
            from agents import Agent
            from bot.policy import *

            STARTER_PROMPT = {_LEAD!r}

            analyst = Agent(name="analyst", instructions=STARTER_PROMPT + POLICY)
            """
        ),
    }


def prompt_helper_arguments(rules: dict[str, str]) -> Files:
    """`prompt=with_policy(LEAD, POLICY)`, a repo helper returning `base + policy`; POLICY's
    rule lines, imported, have no lead-in of their own."""
    return {
        "bot/__init__.py": "",
        "bot/rules_text.py": f"POLICY = {chr(10).join(_rule_lines(rules))!r}\n",
        "bot/graph.py": _py(
            f"""
            from langgraph.prebuilt import create_react_agent

            from bot.rules_text import POLICY


            def with_policy(base, policy):
                return base + "\\n" + policy


            def build(model):
                lead = {_LEAD + " " + _REFUSE!r}
                return create_react_agent(model, tools=[], prompt=with_policy(lead, POLICY))
            """
        ),
    }


def prompt_local_imported_policy(rules: dict[str, str]) -> Files:
    """A function's locals carry an imported POLICY into `instructions=` (`base = dedent(POLICY)`,
    then `text = LEAD + base`)."""
    return {
        "bot/__init__.py": "",
        "bot/rules_text.py": f"POLICY = {chr(10).join(['', _REFUSE, *_rule_lines(rules)])!r}\n",
        "bot/build.py": _py(
            f"""
            from textwrap import dedent

            from agents import Agent
            from bot.rules_text import POLICY


            def make_analyst():
                base = dedent(POLICY)
                text = {_LEAD!r} + "\\n" + base
                return Agent(name="analyst", instructions=text)
            """
        ),
    }


def prompt_package_policy(rules: dict[str, str]) -> Files:
    """`SYSTEM_PROMPT = STARTER + POLICY`, POLICY a constant of the package, imported bare
    (`from . import POLICY`): the importing text names no module."""
    return {
        "voice/__init__.py": f"POLICY = {chr(10).join(['', _REFUSE, *_rule_lines(rules)])!r}\n",
        "voice/persona.py": _py(
            f"""
            from . import POLICY

            SYSTEM_PROMPT = {_LEAD!r} + POLICY
            """
        ),
    }


def prompt_list_kwarg(rules: dict[str, str]) -> Files:
    """A list of instruction strings where one string is accepted."""
    items = [_LEAD, _REFUSE, *_rule_lines(rules)]
    body = "".join(f"        {s!r},\n" for s in items)
    return {
        "bot/__init__.py": "",
        "bot/main.py": "from agents import Agent\n\nanalyst = Agent(\n    name='analyst',\n"
        f"    instructions=[\n{body}    ],\n)\n",
    }


def prompt_other_kwargs(rules: dict[str, str]) -> Files:
    """Prompt keyword args of the table and beyond it (`preamble=`, `system_prompt=`)."""
    text = _prose(rules)
    return {
        "bot/__init__.py": "",
        "bot/cohere_bot.py": "import cohere\n\nco = cohere.Client()\n"
        f"reply = co.chat(message='hi', preamble={text!r})\n",
        "bot/pai.py": "from pydantic_ai import Agent\n\n"
        f"agent = Agent('openai:gpt-4.1', system_prompt={text!r})\n",
    }


def prompt_subscript_key(rules: dict[str, str]) -> Files:
    """A prompt key assigned by subscript, grown in place (smolagents' prompt templates)."""
    code = "from smolagents import CodeAgent\n\nagent = CodeAgent(tools=[], model=None)\n"
    return _bot("smol", code + f"agent.prompt_templates['system_prompt'] += {_prose(rules)!r}\n")


def prompt_system_call(rules: dict[str, str]) -> Files:
    """A call whose own name says *system*."""
    code = "from semantic_kernel.contents import ChatHistory\n\nhistory = ChatHistory()\n"
    return _bot("chat", code + f"history.add_system_message({_prose(rules)!r})\n")


def prompt_messages(rules: dict[str, str]) -> Files:
    return _bot(
        "chat",
        _py(
            f"""
            from openai import OpenAI

            client = OpenAI()
            SYSTEM = {_prose(rules)!r}

            def answer(question):
                return client.chat.completions.create(
                    model="gpt-4.1",
                    messages=[
                        {{"role": "system", "content": SYSTEM}},
                        {{"role": "user", "content": question}},
                    ],
                )
            """
        ),
    )


def prompt_role_call(rules: dict[str, str]) -> Files:
    """A message built by a call with its role named (llama-index), the role on a line of its own."""
    return _bot(
        "chat",
        _py(
            f"""
            from llama_index.core.llms import ChatMessage, MessageRole

            SYSTEM = {_prose(rules)!r}

            def messages(question):
                return [
                    ChatMessage(
                        content=SYSTEM,
                        role=
                            MessageRole.SYSTEM,
                    ),
                    ChatMessage(role="user", content=question),
                ]
            """
        ),
    )


def prompt_memory_blocks(rules: dict[str, str]) -> Files:
    """Letta: the persona memory block, prepended to the agent's prompt."""
    human = '{"label": "human", "value": "A survey client."}'
    persona = f'{{"label": "persona", "value": {_prose(rules)!r}}}'
    code = "from letta_client import Letta\n\n"
    return _bot("letta_agent", code + f"agent = Letta().agents.create(memory_blocks=[{human}, {persona}])\n")


def prompt_system_message_const(rules: dict[str, str]) -> Files:
    """`SYSTEM_MESSAGE = ...`, the table's `system_message` in upper case (inspect_ai's examples)."""
    return _bot(
        "task", f"from inspect_ai.solver import system_message\n\nSYSTEM_MESSAGE = {_prose(rules)!r}\n"
    )


def prompt_content_list(rules: dict[str, str]) -> Files:
    """Content only: a list of instruction strings under a name no table holds."""
    items = [_LEAD, _REFUSE, *_rule_lines(rules)]
    body = "".join(f"    {s!r},\n" for s in items)
    return {"bot/__init__.py": "", "bot/guidance.py": f"GUIDANCE = [\n{body}]\n"}


def prompt_content_docstring(rules: dict[str, str]) -> Files:
    """Content only: a class docstring a framework sends as instructions."""
    doc = textwrap.indent(_prose(rules), "    ")
    return {
        "bot/__init__.py": "",
        "bot/signature.py": f'import dspy\n\n\nclass Analyst(dspy.Signature):\n    """\n{doc}    """\n\n'
        "    question: str = dspy.InputField()\n    answer: str = dspy.OutputField()\n",
    }


def prompt_content_yaml(rules: dict[str, str]) -> Files:
    """Content only: a template block of a pipeline YAML."""
    block = textwrap.indent(_prose(rules), "        ")
    return {
        "pipelines/analyst.yaml": "components:\n  builder:\n    type: PromptBuilder\n    init_parameters:\n"
        f"      template: |\n{block}",
    }


def prompt_content_dict(rules: dict[str, str]) -> Files:
    """Content only: a dict value under a key no table holds."""
    return {
        "bot/__init__.py": "",
        "bot/persona.py": f"PERSONA = {{'text': {_prose(rules)!r}, 'tone': 'plain'}}\n",
    }


def prompt_content_call(rules: dict[str, str]) -> Files:
    """Content only: a call argument that mentions a card id."""
    return {
        "bot/__init__.py": "",
        "bot/memory.py": "from letta import Block\n\n"
        f"block = Block(label='persona', value={_prose(rules)!r})\n",
    }


def prompt_lead_then_extra(rules: dict[str, str]) -> Files:
    """A lead-in, a value known only at run time, then the rule lines (`LEAD + extra + RULES`):
    the parts of one prompt, in source order."""
    lead = f"{_LEAD} {_REFUSE}\n"
    lines = "\n" + "\n".join(_rule_lines(rules)) + "\n"
    return _bot("extra", f"import os\n\nSYSTEM_PROMPT = {lead!r} + os.environ.get('EXTRA', '') + {lines!r}\n")


def _lines_constant(rules: dict[str, str]) -> str:
    return repr("\n".join(_rule_lines(rules)) + "\n")


def prompt_rules_above(rules: dict[str, str]) -> Files:
    """`RULES` written first, the lead-in after it: `SYSTEM_PROMPT = LEAD + RULES`."""
    return _bot("above", f"RULES = {_lines_constant(rules)}\nSYSTEM_PROMPT = {_REFUSE + chr(10)!r} + RULES\n")


def prompt_rules_fstring(rules: dict[str, str]) -> Files:
    """A triple-quoted rule list, then an f-string prompt that fills it in under its lead-in."""
    lines = "\n".join(_rule_lines(rules))
    return _bot(
        "fstring",
        f'RULES = """\n{lines}\n"""\n\nSYSTEM_PROMPT = f"""{_LEAD}\n\n{_REFUSE}\n{{RULES}}\n"""\n',
    )


def prompt_rules_imported(rules: dict[str, str]) -> Files:
    """The rule lines a constant of another module, re-exported by the package and read as
    an attribute of it; the lead-in a constant of the prompt's own module."""
    return {
        "bot/__init__.py": "from bot.rule_lines import RULES as RULE_LINES\n",
        "bot/rule_lines.py": f"RULES = {_lines_constant(rules)}\n",
        "bot/lead.py": _py(
            f"""
            import bot

            LEAD = {_REFUSE + chr(10)!r}
            SYSTEM_PROMPT = LEAD + bot.RULE_LINES
            """
        ),
    }


def prompt_rules_class_attr(rules: dict[str, str]) -> Files:
    """A class attribute holding the rule lines, read as `self.RULES` under the lead-in."""
    return _bot(
        "persona",
        _py(
            f"""
            class Persona:
                RULES = {_lines_constant(rules)}

                def __init__(self) -> None:
                    self.system_prompt = "\\n".join(
                        [
                            {_REFUSE!r},
                            self.RULES,
                        ]
                    )
            """
        ),
    )


def prompt_rules_appended(rules: dict[str, str]) -> Files:
    """The rule lines appended to a list one by one under its lead-in, then joined."""
    appends = "".join(f"LINES.append({line!r})\n" for line in _rule_lines(rules))
    return _bot("appended", f"LINES = [{_REFUSE!r}]\n{appends}SYSTEM_PROMPT = '\\n'.join(LINES)\n")


def prompt_text_grown(rules: dict[str, str]) -> Files:
    """A prompt function growing its text with `+=`, a rule line at a time."""
    grow = "".join(f"    text += {line + chr(10)!r}\n" for line in _rule_lines(rules))
    body = f"def build() -> str:\n    text = {_REFUSE + chr(10)!r}\n{grow}    return text\n"
    return _bot("grown", f"{body}\n\nSYSTEM_PROMPT = build()\n")


def _greetings() -> Files:
    """Prompts with no rule, a chunk of them (pipeline.PROMPT_CHUNK), that the search for a
    first candidate reads before a module of `bot/` named after `greet_`: what that module
    holds counts only where a gate lets it be read."""
    return {
        f"bot/greet_{i}.py": f'GREETING_PROMPT = "You greet user {i} and hand over to the analyst."\n'
        for i in range(8)
    }


def prompt_template_derived(rules: dict[str, str]) -> Files:
    """A Jinja template the framework fills with the rules at run time (Haystack), its
    placeholder's name spelled with an escape (`\\x72ules`)."""
    template = (
        "You are the analyst.\\n"
        "{% for rule_id, reason in \\x72ules.items() %}- {{ rule_id }}: {{ reason }}\\n{% endfor %}"
    )
    module = "from haystack.dataclasses import ChatMessage\n\n"
    return {
        **_bot("template", module + f'MESSAGES = [ChatMessage.from_system("{template}")]\n'),
        **_greetings(),
    }


def prompt_template_block_imported(rules: dict[str, str]) -> Files:
    """A derived template whose rule block is another module's constant."""
    return {
        "bot/__init__.py": "",
        **_greetings(),
        "bot/parts.py": 'BLOCK = "{{ rules | join(\\"\\\\n\\") }}"\n',
        "bot/main.py": 'from bot.parts import BLOCK\n\nSYSTEM_PROMPT = "You are the analyst.\\n" + BLOCK\n',
    }


_LOAD_CARD = "import json\nfrom pathlib import Path\n\nCARD = json.loads(Path('card.json').read_text())\n"
_POLICY_LINES = "SYSTEM_PROMPT = 'Policy:\\n' + '\\n'.join(f'{k} {v}' for k, v in RULES.items())\n"


def prompt_loaded_card(rules: dict[str, str]) -> Files:
    """The params of a card loaded at run time, interpolated: derived (no refusing word, no
    rule line: only the card's keys tell the gates)."""
    chain = "RULES = CARD['capabilities']['extensions'][0]['params']\n"
    return {**_bot("loaded", _LOAD_CARD + chain + _POLICY_LINES), **_greetings()}


def prompt_loaded_card_split(rules: dict[str, str]) -> Files:
    """The same, the extension entry a constant of another module, read by attribute."""
    return {
        **_bot("loaded_ext", _LOAD_CARD + "EXT = CARD.capabilities.extensions[0]\n"),
        "bot/loaded.py": "from bot.loaded_ext import EXT\n\nRULES = EXT.params\n" + _POLICY_LINES,
        **_greetings(),
    }


def prompt_glued(rules: dict[str, str]) -> Files:
    """Each id glued from a name and a literal (`"... " + HEAD_0 + "-mix ..."`, `f"{HEAD_1}-cut"`):
    no piece of the file's text holds it, only the composed value does (gluing.glued)."""
    heads, parts = [], []
    for n, rid in enumerate(rules):
        head, sep, tail = rid.partition("-")
        heads.append(f"HEAD_{n} = {head!r}\n")
        rest = f"{sep}{tail} when asked. "
        parts.append(
            f'f"Refuse with {{HEAD_{n}}}{rest}"' if n % 2 else f'"Refuse with " + HEAD_{n} + {rest!r}'
        )
    return {
        "bot/__init__.py": "",
        "bot/main.py": "from agents import Agent\n\n"
        + "".join(heads)
        + "\nanalyst = Agent(\n    name='analyst',\n"
        f"    instructions={_LEAD!r} + {' + '.join(parts) or repr('')},\n)\n",
    }


def prompt_glued_bound(rules: dict[str, str]) -> Files:
    """The same, each glue where a name the value reads is bound: a constant of another
    module (even ids) or of the prompt's own (odd ones), the value naming only constants."""
    own, other, names = [], [], []
    for n, rid in enumerate(rules):
        head, sep, tail = rid.partition("-")
        line = f'LINE_{n} = "Never do that; refuse with " + HEAD_{n} + "{sep}{tail} and say why. "\n'
        (own if n % 2 else other).append(f"HEAD_{n} = {head!r}\n{line}")
        names.append(f"LINE_{n}")
    imports = "".join(f"from bot.policy import {name}\n" for n, name in enumerate(names) if not n % 2)
    value = " + ".join(names) or repr(_LEAD)
    return {
        "bot/__init__.py": "",
        "bot/policy.py": "".join(other),
        "bot/main.py": "from agents import Agent\n\n"
        + imports
        + "".join(own)
        + f"\nanalyst = Agent(\n    name='analyst',\n    instructions={value},\n)\n",
    }


def prompt_chat_json(rules: dict[str, str]) -> Files:
    """A chat config's system message (JSON, `content` no prompt key), as text blocks."""
    text = {"type": "text", "text": _prose(rules)}
    return {"config/chat.json": json.dumps([{"role": "system", "content": [text]}], indent=2) + "\n"}


def prompt_config_items(rules: dict[str, str]) -> Files:
    """An instruction list in an agent config, a lead-in item and a rule line an item, which
    the framework joins (YAML block and flow styles, JSON): read item by item, each led in by
    those before it."""
    items = [_REFUSE, *_rule_lines(rules)]
    block = "".join(f"    - {json.dumps(i)}\n" for i in items)
    return {
        "config/summariser.yaml": f"summariser:\n  instructions:\n{block}",
        "config/writer.yaml": f"writer:\n  instructions: {json.dumps(items)}\n",
        "config/agents.json": json.dumps({"analyst": {"model": "gpt-4o", "instructions": items}}) + "\n",
    }


PROMPTS: dict[str, Callable[[dict[str, str]], Files]] = {
    "config-items": prompt_config_items,
    "chat-json": prompt_chat_json,
    "glued": prompt_glued,
    "glued-bound": prompt_glued_bound,
    "md": prompt_md,
    "kwarg": prompt_kwarg,
    "kwarg-imported-policy": prompt_kwarg_imported_policy,
    "local-imported-policy": prompt_local_imported_policy,
    "helper-arguments": prompt_helper_arguments,
    "package-policy": prompt_package_policy,
    "list-kwarg": prompt_list_kwarg,
    "other-kwargs": prompt_other_kwargs,
    "system-call": prompt_system_call,
    "subscript-key": prompt_subscript_key,
    "messages": prompt_messages,
    "role-call": prompt_role_call,
    "memory-blocks": prompt_memory_blocks,
    "system-message-const": prompt_system_message_const,
    "content-list": prompt_content_list,
    "content-docstring": prompt_content_docstring,
    "content-yaml": prompt_content_yaml,
    "content-dict": prompt_content_dict,
    "content-call": prompt_content_call,
    "lead-then-extra": prompt_lead_then_extra,
    "rules-above": prompt_rules_above,
    "rules-fstring": prompt_rules_fstring,
    "rules-imported": prompt_rules_imported,
    "rules-class-attr": prompt_rules_class_attr,
    "rules-appended": prompt_rules_appended,
    "text-grown": prompt_text_grown,
    "template-derived": prompt_template_derived,
    "template-block-imported": prompt_template_block_imported,
    "loaded-card": prompt_loaded_card,
    "loaded-card-split": prompt_loaded_card_split,
}


# ---- guards -----------------------------------------------------------------------------
# Each takes the rule ids the guards fire and the module holding the card's RULES (or None)
# and returns files; every guard sits in `tools/` (a package) unless it needs the script folder.


def _tools(name: str, body: str) -> Files:
    return {"tools/__init__.py": "", f"tools/{name}.py": _py(body)}


def guard_literal(ids: list[str], rules_mod: str | None) -> Files:
    calls = "".join(f"    if kind == {i!r}:\n        return refuse({i!r})\n" for i in ids)
    return _tools(
        "literal", f"from a2a_refusals import refuse\n\n\ndef check(kind):\n{calls}    return None\n"
    )


def guard_raise_class(ids: list[str], rules_mod: str | None) -> Files:
    raises = "".join(f"    if kind == {i!r}:\n        raise Refusal({i!r}, detail=kind)\n" for i in ids)
    return _tools(
        "raising",
        "class Refusal(Exception):\n    def __init__(self, rule: str, detail: str = '') -> None:\n"
        "        super().__init__(rule)\n        self.rule = rule\n\n\n"
        f"def check(kind):\n{raises}    return kind\n",
    )


def guard_enum_helper(ids: list[str], rules_mod: str | None) -> Files:
    """Enum members passed to a helper that reads `rule.value`."""
    members = "".join(f"    R{n} = {i!r}\n" for n, i in enumerate(ids))
    calls = "".join(f"    if kind == {i!r}:\n        return _emit(Rule.R{n})\n" for n, i in enumerate(ids))
    return _tools(
        "enums",
        "from enum import Enum\n\nfrom a2a_refusals import refuse\n\n\n"
        f"class Rule(Enum):\n{members}\n\ndef _emit(rule: Rule):\n    return refuse(rule.value)\n\n\n"
        f"def check(kind):\n{calls}    return None\n",
    )


def guard_enum_loop(ids: list[str], rules_mod: str | None) -> Files:
    """A loop over a StrEnum class of the ids, each member its own guard's id."""
    members = "".join(f"    R{n} = {i!r}\n" for n, i in enumerate(ids))
    return _tools(
        "enumloop",
        "from enum import StrEnum\n\nfrom a2a_refusals import refuse\n\n\n"
        f"class Rule(StrEnum):\n{members}\n\ndef check(hits):\n"
        "    for rule in Rule:\n        if rule in hits:\n            return refuse(rule)\n    return None\n",
    )


def _table_guard(name: str, ids: list[str], value: str, body: str) -> Files:
    """A guard module: a dict TABLE from each id to `value` (`{id}`: the id's literal), and `check(q)`."""
    entries = "".join(f"    {i!r}: {value.replace('{id}', repr(i))},\n" for i in ids)
    head = "import re\n\n" if "re." in value else ""
    return _tools(
        name, f"{head}from a2a_refusals import refuse\n\nTABLE = {{\n{entries}}}\n\n\ndef check(q):\n{body}"
    )


def guard_policy_table(ids: list[str], rules_mod: str | None) -> Files:
    body = (
        "    for rule, matches in TABLE.items():\n        if matches(q):\n            return refuse(rule)\n"
    )
    return _table_guard("table", ids, "lambda q: {id} in q", body + "    return None\n")


_GENEXP = "next((r for r, p in TABLE.items() if p.search(q)), None)"


def guard_genexp(ids: list[str], rules_mod: str | None) -> Files:
    """An id computed at run time by a generator expression: RL304."""
    body = f"    rule = {_GENEXP}\n    if rule:\n        return refuse(rule)\n    return None\n"
    return _table_guard("genexp", ids, "re.compile({id})", body)


def guard_genexp_inline(ids: list[str], rules_mod: str | None) -> Files:
    """The generator expression as the guard's argument."""
    return _table_guard("genexp_inline", ids, "re.compile({id})", f"    return refuse({_GENEXP})\n")


def guard_genexp_imported(ids: list[str], rules_mod: str | None) -> Files:
    """The generator expression over a table imported from another module."""
    entries = "".join(f"    {i!r}: re.compile({i!r}),\n" for i in ids)
    return {
        "tools/__init__.py": "",
        "tools/patterns.py": f"import re\n\nTABLE = {{\n{entries}}}\n",
        "tools/genexp_imported.py": "from a2a_refusals import refuse\n\n"
        "from tools.patterns import TABLE\n\n\n"
        "def check(q):\n    rule = next((r for r, p in TABLE.items() if p.search(q)), None)\n"
        "    if rule:\n        return refuse(rule)\n    return None\n",
    }


def guard_payload(ids: list[str], rules_mod: str | None) -> Files:
    parts = "".join(
        f"    if kind == {i!r}:\n        payload = {{'rule': {i!r}, 'reason': {REASONS[i]!r}}}\n"
        f"        return DataPart(data=payload, metadata={{'mediaType': {MEDIA!r}}})\n"
        for i in ids
    )
    return _tools(
        "payload", f"from a2a.types import DataPart\n\n\ndef check(kind):\n{parts}    return None\n"
    )


def guard_error_envelope(ids: list[str], rules_mod: str | None) -> Files:
    """A guard call inside an `{"error": ...}` envelope: RL305."""
    return _tools(
        "envelope",
        "from a2a_refusals import tool\n\n\n"
        f"def check(kind):\n    return {{'error': tool.refusal({ids[0]!r})}}\n",
    )


def guard_local_into_error(ids: list[str], rules_mod: str | None) -> Files:
    """A refusal bound to a local, then sent inside a protocol error: RL305."""
    return _tools(
        "local_error",
        "from a2a.types import InvalidParamsError\nfrom a2a.utils.errors import ServerError\n"
        "from a2a_refusals import refuse\n\n\n"
        f"def check(kind):\n    payload = refuse({ids[0]!r})\n"
        "    raise ServerError(error=InvalidParamsError(data=payload))\n",
    )


def guard_caught_as_error(ids: list[str], rules_mod: str | None) -> Files:
    """A raised refusal caught in another module and sent as a protocol error: RL305."""
    files = guard_raise_class(ids, rules_mod)
    files["tools/server.py"] = _py(
        """
        from a2a.utils.errors import ServerError

        from tools import raising


        def handle(kind):
            try:
                return raising.check(kind)
            except raising.Refusal as exc:
                raise ServerError(error=str(exc))
        """
    )
    return files


def guard_method_unknown_receiver(ids: list[str], rules_mod: str | None) -> Files:
    """A repo method with no rule parameter called on an object of unknown class: no guard."""
    files = guard_literal(ids, rules_mod)
    files["tools/chain.py"] = _py(
        """
        class Chain:
            def absorb_refusal(self, outcome, model, continuation):
                return continuation(outcome, model)


        def run(chain, outcome, model, continuation):
            return chain.absorb_refusal(outcome, model, continuation)
        """
    )
    return files


def guard_rules_subscript(ids: list[str], rules_mod: str | None) -> Files:
    """Ids as keys of the card's params map, imported from the card's module."""
    if rules_mod is None or rules_mod == "toolset":
        return guard_literal(ids, rules_mod)
    calls = "".join(
        f"    if kind == {i!r}:\n        return refuse({i!r}, reason=RULES[{i!r}])\n" for i in ids
    )
    return _tools(
        "subscript",
        f"from a2a_refusals import refuse\nfrom {rules_mod} import RULES\n\n\ndef check(kind):\n{calls}",
    )


def guard_script_folder(ids: list[str], rules_mod: str | None) -> Files:
    """Guards beside a script-folder card, importing ids from the sibling (top-level import)."""
    consts = "".join(f"R{n} = {i!r}\n" for n, i in enumerate(ids))
    names = ", ".join(f"R{n}" for n in range(len(ids)))
    calls = "".join(f"    if kind == R{n}:\n        return refuse(R{n})\n" for n in range(len(ids)))
    return {
        "app/ids.py": consts,
        "app/guards.py": f"from ids import {names}\n"
        f"from a2a_refusals import refuse\n\n\ndef check(kind):\n{calls}",
    }


def guard_exception_classes(ids: list[str], rules_mod: str | None) -> Files:
    """An exception class per rule, its id a class attribute (or set in its own `__init__`),
    raised bare (or with a message) from another module that names no refusal, caught and
    sent on by a handler."""
    init = "    def __init__(self, *args):\n        super().__init__(*args)\n        self.rule = {!r}\n"
    body = [init.format(i) if n % 3 == 2 else f"    rule = {i!r}\n" for n, i in enumerate(ids)]
    classes = "".join(f"\n\nclass Rule{n}(AgentRefusal):\n{b}" for n, b in enumerate(body))
    raised = [f"errors.Rule{n}" if n % 2 else f"Rule{n}(kind)" for n in range(len(ids))]
    raises = "".join(f"    if kind == {i!r}:\n        raise {r}\n" for i, r in zip(ids, raised, strict=True))
    names = ", ".join(f"Rule{n}" for n in range(len(ids)))
    return {
        "tools/__init__.py": "",
        "tools/errors.py": f"class AgentRefusal(Exception):\n    rule = ''\n{classes}",
        "tools/checks.py": f"from tools import errors\nfrom tools.errors import {names}\n\n\n"
        f"def check(kind):\n{raises}    return kind\n",
        "tools/handler.py": "from tools.checks import check\nfrom tools.errors import AgentRefusal\n\n\n"
        "def handle(kind):\n    try:\n        return check(kind)\n    except AgentRefusal as exc:\n"
        "        return {'rule': exc.rule, 'detail': str(exc)}\n",
    }


GUARDS: dict[str, Callable[[list[str], str | None], Files]] = {
    "literal": guard_literal,
    "raise-class": guard_raise_class,
    "enum-helper": guard_enum_helper,
    "enum-loop": guard_enum_loop,
    "policy-table": guard_policy_table,
    "genexp": guard_genexp,
    "genexp-inline": guard_genexp_inline,
    "genexp-imported": guard_genexp_imported,
    "payload": guard_payload,
    "error-envelope": guard_error_envelope,
    "local-into-error": guard_local_into_error,
    "caught-as-error": guard_caught_as_error,
    "method-unknown-receiver": guard_method_unknown_receiver,
    "rules-subscript": guard_rules_subscript,
    "script-folder": guard_script_folder,
    "exception-classes": guard_exception_classes,
}


# ---- noise: real code that is no card, prompt or guard ------------------------------------

NOISE: dict[str, Files] = {
    "sdk-refusal-fields": {
        "sdk/__init__.py": "",
        "sdk/types.py": _py(
            """
            from typing import Literal, Optional

            from pydantic import BaseModel


            class ChatCompletionMessage(BaseModel):
                content: Optional[str] = None
                refusal: Optional[str] = None
                role: Literal["assistant"]


            class ResponseOutputRefusal(BaseModel):
                refusal: str
                type: Literal["refusal"]


            def finished(stop_reason: str) -> bool:
                if stop_reason == "refusal":
                    return True
                return stop_reason in ("end_turn", "max_tokens")
            """
        ),
        "sdk/cassette.json": json.dumps({"choices": [{"message": {"refusal": None, "content": "ok"}}]})
        + "\n",
    },
    "prompt-words": {
        "lib/__init__.py": "",
        "lib/usage.py": _py(
            """
            import logging

            log = logging.getLogger(__name__)


            def record(chunk, parser, h):
                prompt_tokens = chunk.prompt_eval_count
                parser.ProcessingInstructionHandler = h
                log.info("seg-mix refused for %s tokens", prompt_tokens)
                if prompt_tokens < 0:
                    raise ValueError("seg-mix: the count went negative, refusing to record it")
                return prompt_tokens
            """
        ),
    },
    "docs-and-tests": {
        "README.md": "# Survey analyst\n\nRules:\n\n"
        "- seg-mix: crossing families is refused.\n- made-up: x.\n",
        "docs/rules.md": "- seg-mix: Segmentation families cannot be crossed.\n",
        "tests/test_tools.py": "def test_refuses():\n    out = 'seg-mix'\n"
        "    assert out == 'seg-mix', 'seg-mix: expected'\n",
    },
    "refused-errors": {
        "net/__init__.py": "",
        "net/retry.py": _py(
            """
            import smtplib


            def send(conn):
                try:
                    conn.send()
                except ConnectionRefusedError:
                    return False
                except smtplib.SMTPRecipientsRefused as exc:
                    raise RuntimeError("recipients refused") from exc
                return True
            """
        ),
    },
    "detail-strings": {
        "lib2/__init__.py": "",
        "lib2/errors.py": "DETAIL = {'detail': 'seg-mix: two families were crossed in this request'}\n",
    },
    # An editor's JSON-with-comments settings file (DESIGN: never RL002, in either mode).
    "vscode-jsonc": {
        ".vscode/settings.json": '{\n  // editor settings\n  "editor.formatOnSave": true\n}\n',
    },
    # An empty JSON file (langgraph's tests/unit_tests/cli/langgraph.json).
    "empty-json": {"cli/langgraph.json": ""},
    # A JSON config whose prompt key holds the word refusal (garak's plugin_cache.json).
    "json-goal-refusal-word": {
        "res/plugin_cache.json": json.dumps(
            {"probes": {"badchars": {"goal": "inject imperceptible text that bypasses refusal policies"}}},
            indent=2,
        )
        + "\n",
    },
    # Same with a prompt word in it (inspect_ai's launch.json), so a prompt-key candidate.
    "vscode-jsonc-prompt-word": {
        ".vscode/launch.json": "{\n  // launch\n"
        '  "inputs": [{"id": "argsPrompt", "type": "promptString"}]\n}\n',
    },
    # A repo function named for refusals, no rule parameter, imported inside a method and
    # called from a nested scope (inspect_ai's report_refusal): no guard.
    "local-import-refusal-helper": {
        "evals/__init__.py": "",
        "evals/_refusal.py": "def report_refusal(refusal: str) -> None:\n    print(refusal)\n",
        "evals/model.py": _py(
            """
            class Model:
                async def _generate(self, out):
                    from evals._refusal import report_refusal

                    async def inner():
                        return out

                    result = await inner()
                    if result.stop_reason == "content_filter":
                        report_refusal(result.completion)
                    return result
            """
        ),
    },
    # A repo method named for refusals, no rule parameter, defined in a file with nothing
    # else of ours and called elsewhere on an object of unknown class with a computed
    # argument: binding finds the method by name (no guard), so its file must be read.
    "method-defined-apart": {
        "chains/__init__.py": "",
        "chains/base.py": _py(
            """
            class Chain:
                def absorb_refusal(self, outcome, model=None):
                    return outcome
            """
        ),
        "chains/run.py": _py(
            """
            import random


            def run(chain):
                outcome = random.choice(["stop", "go"])
                return chain.absorb_refusal(outcome)
            """
        ),
    },
    "big-vocab": {
        "gen/__init__.py": "",
        "gen/models.py": "".join(
            f"class Model{i}(BaseModel):\n    refusal: Optional[str] = None\n    prompt: str = ''\n\n\n"
            for i in range(200)
        ),
    },
}


@dataclass(frozen=True)
class Spec:
    """One generated repo: which shapes, which rules where."""

    card: str
    rules: tuple[str, ...]
    prompts: tuple[tuple[str, tuple[str, ...]], ...]  # (shape, the rules it states)
    guards: tuple[tuple[str, tuple[str, ...]], ...]  # (shape, the ids it fires)
    noise: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = field(default=())  # files added verbatim

    def files(self) -> Files:
        rules = {r: REASONS[r] for r in self.rules}
        out, rules_mod = CARDS[self.card](rules)
        for shape, stated in self.prompts:
            out = _merge(out, PROMPTS[shape]({r: REASONS[r] for r in stated}))
        for shape, ids in self.guards:
            out = _merge(out, GUARDS[shape](list(ids), rules_mod))
        for name in self.noise:
            out = _merge(out, NOISE[name])
        return _merge(out, dict(self.extra))

    def write(self, root: Path) -> None:
        for rel, text in self.files().items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def _merge(a: Files, b: Files) -> Files:
    """Two shapes' files together; a second module of the same path is appended (both kept)."""
    out = dict(a)
    for rel, text in b.items():
        if rel in out and out[rel] != text:
            if not rel.endswith(".py") or not text.strip():
                continue
            text = out[rel] + "\n\n" + text
        out[rel] = text
    return out


# Combinations whose default and exhaustive outputs disagree on today's main, by name: the
# generator leaves them out (each has a strict-xfail case in tests/test_differential.py).
# Empty this as issue 20 fixes them; the generator then covers them too.
KNOWN_DIFFERENT: dict[str, Callable[[Spec], bool]] = {}


def known_different(spec: Spec) -> list[str]:
    return [name for name, applies in KNOWN_DIFFERENT.items() if applies(spec)]


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    pool = sorted(REASONS)
    rules = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True))
    subset = st.lists(st.sampled_from(rules), min_size=0, max_size=len(rules), unique=True)
    # Guards may fire an id the card lacks (RL302) as well as its own.
    fired = st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True)
    prompts = draw(st.lists(st.tuples(st.sampled_from(sorted(PROMPTS)), subset), max_size=3))
    guards = draw(st.lists(st.tuples(st.sampled_from(sorted(GUARDS)), fired), min_size=0, max_size=3))
    noise = draw(st.lists(st.sampled_from(sorted(NOISE)), max_size=3, unique=True))
    spec = Spec(
        card=draw(st.sampled_from(sorted(CARDS))),
        rules=tuple(rules),
        prompts=tuple((s, tuple(r)) for s, r in prompts),
        guards=tuple((s, tuple(i)) for s, i in guards),
        noise=tuple(noise),
    )
    assume(not known_different(spec))
    return spec
