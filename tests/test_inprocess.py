"""Probing an ASGI app in this process: the `refusal_probe` fixture (our pytest plugin)
and `refusal-lint probe --app module:attr`, against the a2a-sdk agent of tests/agents."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT, run_cli

pytest.importorskip("a2a")

PROBES = {
    "seg-mix": "Cross the polaris segments by ideology, please.",
    "invalid-cut": "Break the results down by zodiac sign.",
}


def _server() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "survey_server", ROOT / "tests" / "agents" / "survey_server.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _app_module(folder: Path, name: str, variant: str) -> None:
    """A module `name` whose `app` is the test agent of `variant` (for --app name:app)."""
    server = str(ROOT / "tests" / "agents" / "survey_server.py")
    (folder / f"{name}.py").write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('survey_server', {server!r})\n"
        "server = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(server)\n"
        f"app = server.build_app(0, {variant!r})\n"
    )


def test_fixture_probes_a_conforming_app(refusal_probe: Any) -> None:
    app = _server().build_app(0, "conforming")
    assert refusal_probe(app, PROBES) == []


def test_fixture_finds_drift(refusal_probe: Any) -> None:
    app = _server().build_app(0, "drifted")
    found = [(f.code, f.rule_id) for f in refusal_probe(app, PROBES)]
    assert found == [("RL406", "invalid-cut"), ("RL406", "seg-mix")]


def test_cli_probe_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _app_module(tmp_path, "agent_app", "jsonrpc-error")
    probes = tmp_path / "probes.yaml"
    probes.write_text("seg-mix: Cross the polaris segments by ideology, please.\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("probe", "--app", "agent_app:app", "--probes", str(probes), "--format", "json")
    assert result.exit_code == 1, result.output
    import json

    codes = [(f["code"], f["rule_id"]) for f in json.loads(result.stdout)["findings"]]
    assert codes == [("RL401", "seg-mix")]
    bad = run_cli("probe", "--app", "no_such_module:app")
    assert bad.exit_code == 2 and "cannot import no_such_module" in bad.stderr
    both = run_cli("probe", "http://127.0.0.1:9", "--app", "agent_app:app")
    assert both.exit_code == 2 and "not both" in both.stderr


def _codes(found: list[Any]) -> list[tuple[str, str | None, bool]]:
    return [(f.code, f.rule_id, "(streaming)" in f.message) for f in found]


def test_rest_only_agent(refusal_probe: Any) -> None:
    """HTTP+JSON as the SDK serves it: POST {interface}/message:send."""
    assert refusal_probe(_server().build_app(0, "rest"), PROBES) == []


def test_streaming_agent_is_probed_twice_per_rule(refusal_probe: Any) -> None:
    server = _server()
    assert refusal_probe(server.build_app(0, "streaming"), PROBES) == []
    found = _codes(refusal_probe(server.build_app(0, "streaming-drifted"), PROBES))
    assert found == [
        ("RL406", "invalid-cut", False),
        ("RL406", "invalid-cut", True),
        ("RL406", "seg-mix", False),
        ("RL406", "seg-mix", True),
    ]
    no_stream = refusal_probe(server.build_app(0, "streaming-drifted"), PROBES, stream=False)
    assert [c for c, _, streamed in _codes(no_stream) if streamed] == []


def test_required_extensions_are_activated(refusal_probe: Any) -> None:
    """The card marks a second extension required: without it the agent answers -32008."""
    assert refusal_probe(_server().build_app(0, "requires-trace"), PROBES) == []


def test_grpc_only_is_one_rl400_and_no_request(refusal_probe: Any) -> None:
    [f] = refusal_probe(_server().build_app(0, "grpc-only"), PROBES)
    assert (f.code, f.rule_id, f.loc.path) == ("RL400", None, "http://testserver/.well-known/agent-card.json")
    assert "speaks only GRPC" in f.message


def test_v1_card_with_a_03_interface_is_probed_over_03(refusal_probe: Any) -> None:
    found = _codes(refusal_probe(_server().build_app(0, "v03-interface"), PROBES))
    assert found == [("RL408", "invalid-cut", False), ("RL408", "seg-mix", False)]


def test_bearer_token_reaches_the_agent_and_is_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _server()
    _app_module(tmp_path, "bearer_app", "bearer")
    probes = tmp_path / "probes.yaml"
    probes.write_text("seg-mix: Cross the polaris segments by ideology, please.\n")
    monkeypatch.chdir(tmp_path)
    shut = run_cli("probe", "--app", "bearer_app:app", "--probes", str(probes), "--format", "json")
    assert shut.exit_code == 1
    import json

    assert [f["code"] for f in json.loads(shut.stdout)["findings"]] == ["RL400"]
    for fmt in ("json", "text", "sarif"):
        opened = run_cli(
            "probe",
            "--app",
            "bearer_app:app",
            "--probes",
            str(probes),
            "--header",
            f"Authorization: Bearer {server.TOKEN}",
            "--format",
            fmt,
        )
        assert opened.exit_code == 0, opened.output
        assert server.TOKEN not in opened.stdout + opened.stderr
    bad = run_cli("probe", "--app", "bearer_app:app", "--header", f"Bearer {server.TOKEN}")
    assert bad.exit_code == 2 and server.TOKEN not in bad.stderr
    # A token pasted with its line end, or holding a character HTTP cannot send: a usage
    # error that names the header, never an HTTP library's message quoting the value.
    for value in (f"Bearer {server.TOKEN}\r\nX-Other: 1", f"Bearer {server.TOKEN}é"):
        pasted = run_cli(
            "probe", "--app", "bearer_app:app", "--probes", str(probes), "--header", f"Authorization: {value}"
        )
        assert pasted.exit_code == 2 and "--header Authorization" in pasted.stderr, pasted.output
        assert server.TOKEN not in pasted.stdout + pasted.stderr


def test_rest_error_object_is_rl401(refusal_probe: Any) -> None:
    """An HTTP 4xx whose JSON body holds `error` is the refusal sent as an error."""
    found = refusal_probe(_server().build_app(0, "rest-error"), PROBES)
    assert [(f.code, f.rule_id) for f in found] == [("RL401", "invalid-cut"), ("RL401", "seg-mix")]
    assert all("HTTP 4" in f.message for f in found)


def test_extension_option_activates_what_the_card_does_not_say(refusal_probe: Any) -> None:
    server = _server()
    app = server.build_app(0, "requires-trace-silently")
    assert [f.code for f in refusal_probe(app, PROBES)] == ["RL401", "RL401"]  # -32008
    assert refusal_probe(app, PROBES, extensions=(server.TRACE_URI,)) == []


def test_app_that_is_no_asgi_app_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One line naming the problem, exit 2 (DESIGN §1), never an "internal error"; a factory
    (called with nothing) still gives the app it returns."""
    (tmp_path / "notapps.py").write_text(
        "import os\n"
        "def make_app():\n"
        "    return 'not an app'\n"
        "def broken():\n"
        "    raise RuntimeError('no config')\n"
        "def one(x):\n"
        "    return x\n"
    )
    monkeypatch.chdir(tmp_path)
    for spec, said in [
        ("os:path", "`path` is a module, not an ASGI app"),
        ("notapps:one", "`one` is a function, not an ASGI app"),
        ("notapps:make_app", "`make_app()` is a str, not an ASGI app"),
        ("notapps:broken", "calling broken() failed: RuntimeError: no config"),
    ]:
        result = run_cli("probe", "--app", spec)
        assert result.exit_code == 2, result.output
        assert f"--app {spec}: {said}" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "internal error" not in result.stderr
