"""A refusal-named call with a computed argument whose callee is a repo class or function
(issue 20, cold speed on carded repos: `ModelRefusalError(refusal)` in openai-agents).

The `ast` gate passes such a file to extraction because, with a card's ids known, the call may
be a guard with a computed id (RL304). Whether it is one is decided only at binding, by the
callee's parameters (static/bind/guards/ids.py: a `rule`/`rule_id` parameter, or one that
reaches another guard's id). A shortcut that settles such a file as holding nothing would
have to agree with binding in every one of these shapes; they pin what binding decides,
with the shortcuts on and off, so a gate added later is held to them:

- the repo exception class without a rule parameter beside a real guard with a computed id
  (the RL304 stays, the class's call is no guard);
- the same class in a tree with two cards, where the file's facts tie it to an agent
  (`FileFacts.claims()`) or to none (RL004 in whichever way binding decides);
- the callee with a rule parameter (a guard: RL304 for a computed id, RL302 for an unknown one);
- the callee imported from a module whose stem stands in two places (binding's lookup decides);
- a warm run after the callee's file gains a rule parameter (the cached verdict of the caller
  must not outlive the callee's change).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from unittest import mock

import pytest
from conftest import Repo, run_cli

Finding = tuple[str, str, int, str | None]

NO_RULE = """
class CutRefusal(Exception):
    def __init__(self, message, hint=None):
        super().__init__(message)
        self.hint = hint
"""

WITH_RULE = """
class CutRefusal(Exception):
    def __init__(self, rule, message=None):
        super().__init__(message or rule)
        self.rule = rule
"""

RAISE = """
from {module} import CutRefusal


def answer(q):
    message = q.describe()
    if q.declined:
        raise CutRefusal(message)
    return None
"""

COMPUTED = """
from agent.policy import refuse


def pick(q):
    return q.get("rule")


def crosstab(q):
    rule = pick(q)
    return refuse(rule, detail="computed")
"""

FLOW = RAISE + COMPUTED.replace("from agent.policy import refuse\n", "")
FLOW = "from agent.policy import refuse\n" + FLOW


def report(root: Path, exhaustive: bool, cache: bool = False) -> str:
    """The JSON report of one run, shortcuts on or off, with or without the cache."""
    with mock.patch.dict(os.environ):
        os.environ.pop("REFUSAL_LINT_EXHAUSTIVE", None)
        if exhaustive:
            os.environ["REFUSAL_LINT_EXHAUSTIVE"] = "1"
        args = ("check", ".", "--format", "json", *(() if cache else ("--no-cache",)))
        result = run_cli(*args, cwd=root)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def findings(out: str) -> list[Finding]:
    return [(f["code"], f["path"], f["line"], f["rule_id"]) for f in json.loads(out)["findings"]]


def same_both_ways(root: Path) -> list[Finding]:
    """The findings, after proving the default run prints the exhaustive run's bytes."""
    default = report(root, False)
    assert default == report(root, True), (findings(default), findings(report(root, True)))
    return findings(default)


def line_of(path: Path, text: str) -> int:
    (line,) = [n for n, s in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in s]
    return line


def survey(repo: Repo, errors: str, module: str = "agent.errors") -> Path:
    """The survey agent, its exception class in `agent/errors.py`, and a flow module raising
    it with a computed message beside a real guard whose id is computed."""
    repo.agent()
    repo.write("agent/errors.py", errors)
    return repo.write("agent/flow.py", FLOW.format(module=module))


def test_class_without_rule_parameter_is_no_guard(repo: Repo) -> None:
    flow = survey(repo, NO_RULE)
    assert same_both_ways(repo.root) == [("RL304", "agent/flow.py", line_of(flow, "refuse(rule"), None)]


def test_class_with_rule_parameter_is_a_guard(repo: Repo) -> None:
    flow = survey(repo, WITH_RULE)
    assert same_both_ways(repo.root) == [
        ("RL304", "agent/flow.py", line_of(flow, "CutRefusal(message)"), None),
        ("RL304", "agent/flow.py", line_of(flow, "refuse(rule"), None),
    ]


def test_class_with_rule_parameter_and_an_unknown_id(repo: Repo) -> None:
    repo.agent()
    repo.write("agent/errors.py", WITH_RULE)
    flow = repo.write(
        "agent/flow.py",
        """
        from agent.errors import CutRefusal


        def answer(q):
            if q.declined:
                raise CutRefusal("zodiac-cut")
            return None
        """,
    )
    expected = [("RL302", "agent/flow.py", line_of(flow, "CutRefusal("), "zodiac-cut")]
    assert same_both_ways(repo.root) == expected


def two_cards(repo: Repo, errors: str) -> Repo:
    """Two agents, each with its card and guards, and shared code outside both raising the
    exception class with a computed message."""
    for name in ("alpha", "beta"):
        repo.card(rel=f"{name}/.well-known/agent-card.json")
        repo.tools(rel=f"{name}/agent/tools.py")
    repo.write("shared/errors.py", errors)
    repo.write("shared/flow.py", FLOW.format(module="shared.errors"))
    return repo


@pytest.mark.parametrize("errors", [NO_RULE, WITH_RULE], ids=["no-rule-param", "rule-param"])
def test_two_cards_decide_the_same_both_ways(repo: Repo, errors: str) -> None:
    found = same_both_ways(two_cards(repo, errors).root)
    flow = [f for f in found if f[1].startswith("shared/")]
    # Shared code that two agents may equally own: RL004 wherever binding finds a fact that
    # ties the file to an agent; the real guard with a computed id is one in either case.
    assert flow and all(f[0] == "RL004" for f in flow), found


@pytest.mark.parametrize(("here", "there"), [(WITH_RULE, NO_RULE), (NO_RULE, WITH_RULE)], ids=["near", "far"])
def test_the_same_stem_in_two_places(repo: Repo, here: str, there: str) -> None:
    """`from errors import CutRefusal` in a folder run as a script: the agent's own
    errors.py beside another errors.py, one of them with a rule parameter."""
    repo.agent()
    repo.write("agent/errors.py", here)
    repo.write("vendor/errors.py", there)
    flow = repo.write("agent/flow.py", FLOW.format(module="errors"))
    got = same_both_ways(repo.root)
    assert ("RL304", "agent/flow.py", line_of(flow, "refuse(rule"), None) in got
    assert all(f[0] == "RL304" for f in got), got


def test_warm_run_after_the_callee_gains_a_rule_parameter(repo: Repo) -> None:
    flow = survey(repo, NO_RULE)
    before = report(repo.root, False, cache=True)
    assert findings(before) == [("RL304", "agent/flow.py", line_of(flow, "refuse(rule"), None)]
    assert report(repo.root, False, cache=True) == before  # warm, nothing changed
    errors = repo.write("agent/errors.py", WITH_RULE)
    stat = errors.stat()
    os.utime(errors, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    warm = report(repo.root, False, cache=True)
    assert warm == report(repo.root, True), (findings(warm), findings(report(repo.root, True)))
    assert ("RL304", "agent/flow.py", line_of(flow, "CutRefusal(message)"), None) in findings(warm)


# ---- the file raising the class holds nothing else: where its parse may wait for binding ----


def raising(repo: Repo, errors: str, module: str = "agent.errors", root: str = "agent") -> Path:
    """`root/flow.py` only raises the class (from `module`); the real guard with a computed
    id stands in `agent/checks.py`."""
    repo.write(f"{root}/errors.py", errors)
    repo.write("agent/checks.py", COMPUTED)
    return repo.write(f"{root}/flow.py", RAISE.format(module=module))


def verdicts(root: Path) -> str:
    """The cache's file, where the scan's verdicts stand (a deferred one starts `defer:`)."""
    return "\n".join(p.read_text(encoding="utf-8") for p in (root / ".refusal_lint_cache").glob("*.json"))


def test_settled_file_holds_nothing(repo: Repo) -> None:
    repo.agent()
    raising(repo, NO_RULE)
    checks = repo.root / "agent/checks.py"
    expected = [("RL304", "agent/checks.py", line_of(checks, "refuse(rule"), None)]
    assert same_both_ways(repo.root) == expected
    assert findings(report(repo.root, False, cache=True)) == expected
    assert "defer:" in verdicts(repo.root)  # the flow's parse did wait, and was not needed
    # Warm: the deferred verdict answers by size and mtime, so nothing is read or rewritten.
    saved = (repo.root / ".refusal_lint_cache" / "facts-v1.json").stat()
    assert findings(report(repo.root, False, cache=True)) == expected
    again = (repo.root / ".refusal_lint_cache" / "facts-v1.json").stat()
    assert (again.st_ino, again.st_mtime_ns) == (saved.st_ino, saved.st_mtime_ns)


def test_deferred_file_with_a_rule_parameter_is_parsed(repo: Repo) -> None:
    repo.agent()
    flow = raising(repo, WITH_RULE)
    checks = repo.root / "agent/checks.py"
    assert same_both_ways(repo.root) == [
        ("RL304", "agent/checks.py", line_of(checks, "refuse(rule"), None),
        ("RL304", "agent/flow.py", line_of(flow, "CutRefusal(message)"), None),
    ]


@pytest.mark.parametrize("errors", [NO_RULE, WITH_RULE], ids=["no-rule", "rule"])
def test_deferred_file_in_a_two_card_tree_is_rl004_where_it_guards(repo: Repo, errors: str) -> None:
    """Outside both agents' folders, `raise CutRefusal(message)` is RL004 only where the class
    takes a rule (a guard, whose id is computed: RL304 too); a class without one makes the
    call no guard, and the file nobody's, in both modes (the gate that defers it agrees)."""
    for name in ("alpha", "beta"):
        repo.card(rel=f"{name}/.well-known/agent-card.json")
        repo.tools(rel=f"{name}/agent/tools.py")
    raising(repo, errors, module="shared.errors", root="shared")
    found = same_both_ways(repo.root)
    assert (("RL004", "shared/flow.py", 1, None) in found) == (errors == WITH_RULE), found


@pytest.mark.parametrize(("here", "there"), [(WITH_RULE, NO_RULE), (NO_RULE, WITH_RULE)], ids=["near", "far"])
def test_deferred_callee_of_a_stem_in_two_places(repo: Repo, here: str, there: str) -> None:
    repo.agent()
    flow = raising(repo, here, module="errors")
    repo.write("vendor/errors.py", there)
    got = same_both_ways(repo.root)
    raised = ("RL304", "agent/flow.py", line_of(flow, "CutRefusal(message)"), None)
    assert (raised in got) == (here == WITH_RULE), got


def test_warm_run_after_a_settled_files_callee_gains_a_rule_parameter(repo: Repo) -> None:
    repo.agent()
    flow = raising(repo, NO_RULE)
    cold = report(repo.root, False, cache=True)
    assert report(repo.root, False, cache=True) == cold
    errors = repo.write("agent/errors.py", WITH_RULE)
    stat = errors.stat()
    os.utime(errors, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    warm = report(repo.root, False, cache=True)
    assert warm == report(repo.root, True)
    assert ("RL304", "agent/flow.py", line_of(flow, "CutRefusal(message)"), None) in findings(warm)
    # and back: the rule parameter goes again, the warm run settles the file again
    errors = repo.write("agent/errors.py", NO_RULE)
    os.utime(errors, ns=(stat.st_atime_ns, stat.st_mtime_ns + 4_000_000_000))
    assert report(repo.root, False, cache=True) == report(repo.root, True) == cold


def test_deferred_callee_whose_parameter_reaches_a_guard(repo: Repo) -> None:
    """No `rule` parameter, but one that becomes a guard's id inside: binding follows the
    helper to the call site, so the deferred file is parsed and its computed id is RL304."""
    repo.agent()
    flow = raising(
        repo,
        """
        from agent.policy import refuse


        def CutRefusal(why, hint=None):
            return refuse(why, detail=hint)
        """,
    )
    got = same_both_ways(repo.root)
    assert ("RL304", "agent/flow.py", line_of(flow, "CutRefusal(message)"), None) in got, got


def test_the_module_settle_judges_a_callee_by_is_read_ahead_once(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The callee's module settle would read is started while binding runs (a guess), and
    settle takes that read: one job for it, and the output a run without the guess prints."""
    from refusal_lint.static import ondemand, workers

    repo.agent()
    raising(repo, NO_RULE)
    submitted: list[tuple[str, bool]] = []
    real_submit = workers.Pool.submit

    def spy(self: workers.Pool, job: object, spare: bool = False) -> None:
        submitted.append((getattr(job, "path", ""), spare))
        real_submit(self, job, spare)  # type: ignore[arg-type]

    monkeypatch.setattr(workers.Pool, "submit", spy)
    guessed = same_both_ways(repo.root)
    assert [s for s in submitted if s[0] == "agent/errors.py"] == [("agent/errors.py", True)]
    monkeypatch.setattr(ondemand, "read_callees_ahead", lambda ex, index: None)
    assert findings(report(repo.root, False)) == guessed
