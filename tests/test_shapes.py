"""Real framework shapes (issue 12): where each fixture's prompt is found, and how.

Each fixture (tests/fixture_repos/prompts.yaml) is a small agent written the way its framework's
own docs write it; its `-drift` twin gives exactly the findings in its expected.txt.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TESTDATA, Repo, check_json, fixture_repo
from test_differential import differential

FORMS = {
    "prompt-instance-attr": [("survey/analyst.py", 13, "assignment")],
    "prompt-openai-chat": [("survey/chat.py", 12, "chat-message")],
    "prompt-crewai-python": [("survey/crew.py", 9, "keyword")],
    "prompt-langchain-messages": [("survey/chain.py", 5, "chat-message")],
    "prompt-langgraph-system-message": [("survey/graph.py", 11, "chat-message")],
    "prompt-pydantic-ai": [("survey/agent.py", 20, "prompt-function")],
    "prompt-system-message-const": [("survey/assistant.py", 7, "assignment")],
    "prompt-adk-provider": [("survey/agent.py", 23, "prompt-function")],
    "prompt-adk-function-call": [("survey/agent.py", 5, "prompt-function")],
    "prompt-config-dict": [("survey/config.py", 7, "dict-entry")],
    "prompt-dataclass-default": [("survey/settings.py", 10, "assignment")],
    "prompt-pydantic-field": [("survey/settings.py", 10, "assignment")],
    "prompt-json-config": [("survey/agent_config.json", 4, "data-key")],
    "prompt-prompty": [("survey/analyst.prompty", 1, "file")],
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_prompt_found_where_the_framework_keeps_it(name: str) -> None:
    data = check_json(fixture_repo(name))
    assert data["findings"] == []
    (agent,) = data["agents"]
    got = [(p["path"], p["line"], p["form"]) for p in agent["prompts"]]
    for want in FORMS[name]:
        assert want in got
    assert agent["prompt"] is not None


def test_a_template_filled_from_the_map_is_one_derived_candidate() -> None:
    """The shape (`SYSTEM_PROMPT = ...`) reads the template's literal; the literal names the
    card's ids, yet it is no second candidate by its content."""
    (agent,) = check_json(fixture_repo("prompt-format-map-derived"))["agents"]
    assert [(p["path"], p["line"], p["form"]) for p in agent["prompts"]] == [
        ("survey_agent/prompt.py", 3, "assignment")
    ]
    assert agent["prompt"]["derived"] is True


def test_crewai_yaml_reads_agents_and_tasks() -> None:
    (agent,) = check_json(fixture_repo("prompt-crewai-yaml"))["agents"]
    paths = {p["path"] for p in agent["prompts"]}
    # agents.yaml is a candidate too, but mentions no rule: only what counts is listed (DESIGN §2).
    assert paths == {"survey/config/tasks.yaml"}
    assert {p["form"] for p in agent["prompts"]} == {"data-key"}


@pytest.mark.parametrize(
    "name", ["guard-policy-table", "guard-check-list", "guard-helper-chain", "guard-helper-errors"]
)
def test_table_and_helper_guards_fire_each_rule(name: str) -> None:
    (agent,) = check_json(fixture_repo(name))["agents"]
    for rule in ("seg-mix", "invalid-cut"):
        assert agent["rules"][rule]["guards"], rule


def test_no_card_and_no_rule_parameter_is_nothing_to_check() -> None:
    data = check_json(TESTDATA / "guard-not-a-rule-param")
    assert data["findings"] == [] and data["agents"] == []


def test_prompt_far_from_the_card_is_still_found(tmp_path: Path) -> None:
    """The second stage reads near the card first, and the rest of the tree when that
    found no prompt: a card kept in config/ and a prompt in the app code is no RL200."""
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(fixture_repo("prompt-adk-provider"), root, ignore=shutil.ignore_patterns("expected.txt"))
    (root / "config").mkdir()
    (root / "agent-card.json").rename(root / "config" / "agent-card.json")
    data = check_json(root)
    assert data["findings"] == []
    (agent,) = data["agents"]
    assert [(p["path"], p["form"]) for p in agent["prompts"]] == [("survey/agent.py", "prompt-function")]


ODD_LAYOUTS = {
    "unpacked": 'SYSTEM_PROMPT, MODEL = "{p}", "gpt-4o"\n',
    "bracketed": '(SYSTEM_PROMPT) = "{p}"\n',
    "continued": 'SYSTEM_PROMPT \\\n    = "{p}"\n',
    "keyword-split": 'agent = Agent(\n    name="a",\n    instructions\n    =\n    "{p}",\n)\n',
    "dict-key-split": 'CONFIG = {{\n    "system_prompt"\n    : "{p}",\n}}\n',
    "bracketed-attribute": 'class Cfg:\n    def __init__(self):\n        (self.system_prompt) = "{p}"\n',
    "unpacked-attribute": "class Cfg:\n    def __init__(self, m):\n"
    '        self.system_prompt, self.model = "{p}", m\n',
}


@pytest.mark.parametrize("layout", sorted(ODD_LAYOUTS))
def test_a_prompt_laid_out_oddly_is_found_in_both_modes(
    repo: Repo, layout: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However the source lays a prompt's name and value out (unpacked, bracketed, over
    continued lines: what the parser reads as one), the text gates pass it, so the default
    run finds the candidate the exhaustive one does: RL201, not RL200 (audit V A1-A7)."""
    repo.card()
    repo.tools()
    repo.write("agent/prompt_setup.py", ODD_LAYOUTS[layout].format(p="You are the survey analyst."))
    found = [(f["code"], f["rule_id"]) for f in check_json(repo.root)["findings"]]
    assert found == [("RL201", "seg-mix"), ("RL201", "invalid-cut")]
    monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", "1")
    assert [(f["code"], f["rule_id"]) for f in check_json(repo.root)["findings"]] == found


@pytest.mark.parametrize("name", ["SystemExit", "SystemError"])
def test_pythons_own_system_exceptions_take_no_prompt(repo: Repo, name: str) -> None:
    """`raise SystemExit(main())` is how a script ends, not a system message: its callee's
    returns are no prompt candidate, and an agent whose only "prompt" that would be has none
    (RL200), in both modes."""
    root = repo.agent().root
    (root / "agent/system_prompt.md").unlink()
    (root / "agent/cli.py").write_text(
        "import sys\n\n\ndef main() -> str | None:\n    if len(sys.argv) < 2:\n"
        "        return 'usage: survey QUESTION (one family per cut)'\n    return None\n\n\n"
        f"if __name__ == '__main__':\n    raise {name}(main())\n"
    )
    assert [f["code"] for f in check_json(root, "--no-cache")["findings"]] == ["RL200"]
    differential(root)
