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


def test_fixture_probes_a_conforming_app(refusal_probe: Any) -> None:
    app = _server().build_app(0, "conforming")
    assert refusal_probe(app, PROBES) == []


def test_fixture_finds_drift(refusal_probe: Any) -> None:
    app = _server().build_app(0, "drifted")
    found = [(f.code, f.rule_id) for f in refusal_probe(app, PROBES)]
    assert found == [("RL406", "invalid-cut"), ("RL406", "seg-mix")]


def test_cli_probe_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = str(ROOT / "tests" / "agents" / "survey_server.py")
    (tmp_path / "agent_app.py").write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('survey_server', {server!r})\n"
        "server = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(server)\n"
        "app = server.build_app(0, 'jsonrpc-error')\n"
    )
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
