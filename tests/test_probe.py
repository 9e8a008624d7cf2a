"""`refusal-lint probe` against a real A2A server (the official a2a-sdk), not a mock."""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import ROOT, run_cli

from refusal_lint.live import probe as prober

pytest.importorskip("a2a")
SERVER = ROOT / "tests" / "agents" / "survey_server.py"
PROBES = {
    "seg-mix": "Cross the polaris segments by ideology, please.",
    "invalid-cut": "Break the results down by zodiac sign.",
}


@contextmanager
def _refusing_port() -> Iterator[int]:
    """A port bound and held, never listened on: a connection to it is refused, and no other
    process can take it meanwhile (a port guessed free could be)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    """One server per variant, started together (each on the port it bound), all stopped after."""
    variants = [
        "conforming",
        "jsonrpc-error",
        "no-text",
        "wrong-media",
        "unadvertised",
        "drifted",
        "mixed",
        "no-refusal",
    ]
    procs: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
    try:
        for v in variants:
            proc = subprocess.Popen(
                [sys.executable, str(SERVER), v], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
            procs[v] = (proc, "")
        deadline = time.monotonic() + 60
        for v, (proc, _) in procs.items():
            # Each server binds port 0 itself and prints the port it got: nothing is guessed.
            assert proc.stdout is not None
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            line = proc.stdout.readline() if ready else b""
            assert line.strip().isdigit(), f"the {v} server did not say its port"
            port = int(line)
            procs[v] = (proc, f"http://127.0.0.1:{port}")
            while True:
                assert proc.poll() is None, f"the {v} server exited"
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                assert time.monotonic() < deadline, f"the {v} server did not start"
                time.sleep(0.05)
        yield {v: url for v, (_, url) in procs.items()}
    finally:
        for proc, _ in procs.values():
            proc.terminate()
        for proc, _ in procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="module")
def probes_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("probes") / "probes.yaml"
    path.write_text("".join(f'{k}: "{v}"\n' for k, v in PROBES.items()))
    return path


def _probe(
    url: str, probes: Path, *extra: str
) -> tuple[int, list[tuple[str, str | None]], dict[str, object]]:
    result = run_cli("probe", url, "--probes", str(probes), "--format", "json", "--timeout", "10", *extra)
    assert result.exit_code in (0, 1), result.output
    data = json.loads(result.stdout)
    return result.exit_code, [(f["code"], f["rule_id"]) for f in data["findings"]], data


def test_conforming_agent_round_trips_every_rule(servers: dict[str, str], probes_file: Path) -> None:
    code, found, data = _probe(servers["conforming"], probes_file)
    assert (code, found) == (0, [])
    [agent] = data["agents"]  # type: ignore[misc]
    assert agent["name"] == "Survey Analyst"
    assert sorted(agent["rules"]) == ["invalid-cut", "seg-mix"]
    text = run_cli("probe", servers["conforming"], "--probes", str(probes_file))
    assert text.stdout.splitlines()[-1] == "All checks passed!"


def test_v03_compat_recognises_the_part_by_its_keys(servers: dict[str, str], probes_file: Path) -> None:
    code, found, _ = _probe(servers["conforming"], probes_file, "--protocol", "0.3")
    assert code == 0
    assert found == [("RL408", "invalid-cut"), ("RL408", "seg-mix")]


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("jsonrpc-error", "RL401"),
        ("no-text", "RL403"),
        ("wrong-media", "RL404"),
        ("unadvertised", "RL405"),
        ("drifted", "RL406"),
        ("mixed", "RL407"),
        ("no-refusal", "RL402"),
    ],
)
def test_each_broken_variant_fires_exactly_its_code(
    servers: dict[str, str], probes_file: Path, variant: str, expected: str
) -> None:
    code, found, data = _probe(servers[variant], probes_file)
    assert code == 1
    assert found == [(expected, "invalid-cut"), (expected, "seg-mix")]
    paths = {f["path"] for f in data["findings"]}  # type: ignore[attr-defined]
    assert paths == {servers[variant] + "/a2a"}
    assert {f["agent"] for f in data["findings"]} == {"Survey Analyst"}  # type: ignore[attr-defined]


def test_unreachable_is_rl400_within_the_timeout(probes_file: Path) -> None:
    start = time.monotonic()
    with _refusing_port() as port:
        code, found, _ = _probe(f"http://127.0.0.1:{port}", probes_file)
    assert (code, found) == (1, [("RL400", None)])
    assert time.monotonic() - start < 10


@pytest.mark.parametrize("text", ["{}\n", "", "# no probes yet\n"])
def test_no_probe_config_checks_the_card_only(servers: dict[str, str], tmp_path: Path, text: str) -> None:
    """`{}`, and an empty probes file (YAML's null), ask no rule: the card alone is checked."""
    empty = tmp_path / "none.yaml"
    empty.write_text(text)
    code, found, _ = _probe(servers["no-refusal"], empty)
    assert (code, found) == (0, [])


def test_other_hosts_are_never_contacted() -> None:
    base = urlsplit("http://127.0.0.1:8080")
    found = prober.interfaces(
        {
            "supportedInterfaces": [
                {"url": "https://agents.example.com/survey/a2a", "protocolBinding": "JSONRPC"}
            ]
        },
        base,
    )
    assert found == [prober.Interface("http://127.0.0.1:8080/survey/a2a", "JSONRPC", "1.0")]
    assert prober.interfaces({"url": "https://x.example.com/rpc", "protocolVersion": "0.3.0"}, base) == [
        prober.Interface("http://127.0.0.1:8080/rpc", "JSONRPC", "0.3")
    ]
    with (
        prober._client("127.0.0.1", 1.0) as client,
        pytest.raises(prober._Unreachable, match="refusing to contact"),
    ):
        prober._fetch(client, "GET", "http://elsewhere.invalid/.well-known/agent-card.json")


def test_judge_unit_cases() -> None:
    """The probe's judgement is the library's (refusal_lint.conformance)."""
    from refusal_lint import conformance as rc

    rules: dict[str, str | None] = {"seg-mix": "Reason."}
    media = "application/vnd.upperhand.refusal+json"
    good = [{"text": "Reason."}, {"data": {"rule": "seg-mix", "reason": "Reason."}, "mediaType": media}]
    assert rc.judge(good, rules) == []
    extra_key = [
        {"text": "Reason."},
        {"data": {"rule": "seg-mix", "reason": "Reason.", "x": "1"}, "mediaType": media},
    ]
    assert [f.code for f in rc.judge(extra_key, rules)] == ["RL404"]
    other_text = [{"text": "Other."}, {"data": {"rule": "seg-mix", "reason": "Reason."}, "mediaType": media}]
    assert [f.code for f in rc.judge(other_text, rules)] == ["RL406"]
    task = {"task": {"status": {"message": {"parts": good}}, "artifacts": []}}
    assert rc.judge(task, rules) == []
