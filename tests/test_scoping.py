"""Agents without config: one per card root, two sources of one card merged, siblings kept apart."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import Repo, check_json, run_cli

URI = "https://standards.upperhandai.com/ext/refusals/v1"


def _agent(root: Path, name: str, rule: str) -> None:
    (root / ".well-known").mkdir(parents=True)
    card = {"name": name, "capabilities": {"extensions": [{"uri": URI, "params": {rule: f"No {rule}."}}]}}
    (root / ".well-known" / "agent-card.json").write_text(json.dumps(card, indent=2))
    (root / "system_prompt.md").write_text(f"Refuse and name the rule:\n- {rule}: No {rule}.\n")
    (root / "tools.py").write_text(f'from policy import refuse\n\n\ndef f():\n    return refuse("{rule}")\n')


def test_sibling_agents_with_one_name_stay_apart(tmp_path: Path) -> None:
    _agent(tmp_path / "agents" / "a", "Agent", "a-rule")
    _agent(tmp_path / "agents" / "b", "Agent", "b-rule")
    data = check_json(tmp_path)
    assert data["findings"] == []
    assert sorted(next(iter(a["rules"])) for a in data["agents"]) == ["a-rule", "b-rule"]


def test_a_file_above_every_root_is_rl004(tmp_path: Path) -> None:
    _agent(tmp_path / "agents" / "a", "A", "a-rule")
    _agent(tmp_path / "agents" / "b", "B", "b-rule")
    (tmp_path / "ops.py").write_text('from policy import refuse\n\nrefuse("a-rule")\n')
    data = check_json(tmp_path)
    assert [(f["code"], f["path"], f["line"]) for f in data["findings"]] == [("RL004", "ops.py", 1)]
    assert "`agents:`" in data["findings"][0]["message"]


def test_system_named_prompt_file_is_found(tmp_path: Path) -> None:
    _agent(tmp_path, "A", "a-rule")
    (tmp_path / "system_prompt.md").rename(tmp_path / "system.md")
    data = check_json(tmp_path)
    assert data["findings"] == []
    assert data["agents"][0]["prompt"] == {"path": "system.md", "line": 1, "derived": False}


AGENTS = (("billing", "refund-override"), ("search", "paywall-bypass"))


def _billing_and_search(repo: Repo) -> None:
    """Two agents, each its JSON card of one rule and a prompt naming it."""
    for name, rule in AGENTS:
        params = {rule: "I can't do that here."}
        repo.put(
            f"{name}/card.json",
            json.dumps({"name": name, "capabilities": {"extensions": [{"uri": URI, "params": params}]}}),
        )
        repo.put(f"{name}/prompt.md", f"Refuse {rule} requests.\n")


def _configured(repo: Repo, shared: str) -> None:
    """Both agents in the config, the `shared` glob in each one's guards."""
    agents = "\n".join(
        f"  - name: {n}\n    card: {n}/card.json\n    prompt: {n}/prompt.md\n"
        f'    guards: ["{n}/*.py", "{shared}"]'
        for n, _ in AGENTS
    )
    repo.put(".refusal-lint.yaml", f"agents:\n{agents}\n")


def test_a_shared_helpers_call_sites_count_for_the_agent_owning_them(repo: Repo) -> None:
    """A refusal helper in both configured agents' globs: each call site fires the rules of
    the agent whose files hold it, not of every agent the helper belongs to."""
    _billing_and_search(repo)
    repo.put("common/__init__.py", "")
    repo.put(
        "common/refusals.py", "def refusal(rule, detail=None):\n    return {'rule': rule, 'detail': detail}\n"
    )
    call = "from common.refusals import refusal\n\n\ndef act():\n    return refusal(%r)\n"
    repo.put("billing/tools.py", call % "refund-overide")  # one misspelt id: billing's own RL302
    repo.put("search/tools.py", call % "paywall-bypass")
    _configured(repo, "common/*.py")
    report = check_json(repo.root, "--no-cache")
    found = sorted((f["agent"], f["code"], f["path"], f.get("rule_id")) for f in report["findings"])
    assert found == [
        ("billing", "RL301", "billing/card.json", "refund-override"),
        ("billing", "RL302", "billing/tools.py", "refund-overide"),
    ]


def _block_helper_agents(repo: Repo, configured: bool) -> None:
    """Two agents calling a shared helper whose name holds no word of refusing (`block`), the
    refusal raised inside it: the call sites are no guards of their own, only binding ties
    them to the helper's guard. Billing misspells its id."""
    _billing_and_search(repo)
    for name, rule in AGENTS:
        wrong = "refund-overide" if name == "billing" else rule
        repo.put(f"{name}/tools.py", f"from libs.policy import block\n\n\ndef act():\n    block({wrong!r})\n")
    repo.put("libs/__init__.py", "")
    repo.write(
        "libs/policy.py",
        """
        class RefusalRaised(Exception):
            def __init__(self, rule):
                super().__init__(rule)
                self.rule = rule


        def block(rule):
            raise RefusalRaised(rule)
        """,
    )
    if configured:
        _configured(repo, "libs/*.py")


@pytest.mark.parametrize("configured", [False, True], ids=["discovered", "configured"])
def test_a_shared_helpers_plain_call_sites_fire_their_own_agents_rules(repo: Repo, configured: bool) -> None:
    """Each call site of `block` fires the rules of the agent whose files hold it: search's
    correct id is no RL302 of billing's, nor is search's rule unguarded; and a run on one
    agent's file (a pre-commit hook) reads the shared helper and gives that agent's findings."""
    _block_helper_agents(repo, configured)
    if shutil.which("git") is not None:  # the project of a file run: else the agent's folder alone
        subprocess.run(["git", "init", "-q"], cwd=repo.root, check=True, capture_output=True)
    report = check_json(repo.root, "--no-cache")
    found = sorted((f["agent"], f["code"], f["path"], f.get("rule_id")) for f in report["findings"])
    billing = [
        ("billing", "RL301", "billing/card.json", "refund-override"),
        ("billing", "RL302", "billing/tools.py", "refund-overide"),
    ]
    assert found == billing
    search = {a["name"]: a for a in report["agents"]}["search"]
    assert search["rules"]["paywall-bypass"]["guards"] == [{"path": "search/tools.py", "line": 5}]
    for given, wanted in (("billing/tools.py", billing), ("search/tools.py", [])):
        if not (repo.root / ".git").exists() and not configured:
            break
        ran = run_cli("check", given, "--no-cache", "--format", "json", cwd=repo.root)
        one = json.loads(ran.stdout)
        assert sorted((f["agent"], f["code"], f["path"], f.get("rule_id")) for f in one["findings"]) == wanted


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_module_holding_a_cards_params_names_that_agent(repo: Repo) -> None:
    """Two agents whose Python cards import their params from one shared module: a run on
    that module (renaming a rule there is editing the card) gives every finding of the
    agent whose rules stand in it, not only the one standing in the module."""
    for name, table in (("a", "A_RULES"), ("b", "B_RULES")):
        repo.put(f"{name}/__init__.py", "")
        repo.put(
            f"{name}/card.py",
            f"from a2a.types import AgentExtension\n\nfrom shared.policy import {table}\n\n"
            f'EXT = AgentExtension(uri="{URI}", params={table})\n',
        )
    repo.put("a/system_prompt.md", "You are agent a.\n- refund-window: Refunds close after 30 days.\n")
    repo.put("b/system_prompt.md", "You are agent b.\n- seg-mix: Families cannot be crossed.\n")
    repo.put("a/tools.py", 'from refusals import refuse\n\n\ndef tool():\n    refuse("refund-windw")\n')
    repo.put("b/tools.py", 'from refusals import refuse\n\n\ndef tool():\n    refuse("seg-mix")\n')
    repo.put("shared/__init__.py", "")
    repo.put(
        "shared/policy.py",
        'A_RULES = {"refund-window": "Refunds close after 30 days."}\n'
        'B_RULES = {"seg-mix": "Families cannot be crossed."}\n',
    )
    subprocess.run(["git", "init", "-q"], cwd=repo.root, check=True, capture_output=True)
    tree = json.loads(run_cli("check", ".", "--no-cache", "--format", "json", cwd=repo.root).stdout)
    given = json.loads(
        run_cli("check", "shared/policy.py", "--no-cache", "--format", "json", cwd=repo.root).stdout
    )
    assert given["findings"] == tree["findings"]
    assert {f["code"] for f in given["findings"]} == {"RL301", "RL302"}


@pytest.mark.parametrize(
    ("cards", "roots"),
    [
        # a card's folder, or the one holding .well-known/
        (["agents/a/card.json"], ["agents/a"]),
        (["agents/a/.well-known/agent-card.json"], ["agents/a"]),
        # a src layout: the folder holding src/, where its prompts and tests stand
        (["packages/billing/src/billing/card.py"], ["packages/billing"]),
        (["src/agent/card.py"], [""]),
        (["packages/b/src/b/card.py", "packages/w/src/w/card.py"], ["packages/b", "packages/w"]),
        # two cards of one package folder: lifted, they would share it
        (["app/src/a/card.py", "app/src/b/card.py"], ["app/src/a", "app/src/b"]),
        # a built card and its export above src/: kept apart, as before (one agent by name)
        (["p/src/p/card.py", "p/.well-known/agent-card.json"], ["p/src/p", "p"]),
        # two sources in one folder stay together
        (["p/src/p/card.py", "p/src/p/agent.json"], ["p", "p"]),
    ],
)
def test_agent_roots(cards: list[str], roots: list[str]) -> None:
    from refusal_lint.static.bind.scoping import agent_roots

    assert [agent_roots(cards)[c] for c in cards] == roots
