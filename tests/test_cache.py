"""The content cache: a warm run is cheap, and no edit is ever hidden by a stale entry."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import TESTDATA, check_json, fixture_repo, run_cli


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    dest = tmp_path / "agent"
    shutil.copytree(
        TESTDATA / "survey-agent", dest, ignore=shutil.ignore_patterns("expected.txt", ".refusal_lint_cache")
    )
    return dest


def _codes(root: Path) -> list[tuple[str, str | None]]:
    result = run_cli("check", str(root), "--format", "json")  # the cache is on
    import json

    return [(f["code"], f["rule_id"]) for f in json.loads(result.stdout)["findings"]]


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    time.sleep(0.01)  # a distinct mtime even on coarse file systems
    path.write_text(text.replace(old, new))


def test_cache_is_written_with_its_tag(agent: Path) -> None:
    assert _codes(agent) == []
    cache = agent / ".refusal_lint_cache"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (cache / ".gitignore").read_text() == "*\n"
    assert _codes(agent) == []


def test_editing_a_guard_invalidates_it(agent: Path) -> None:
    assert _codes(agent) == []
    _edit(agent / "survey_agent" / "tools.py", 'Refusal("seg-mix"', 'Refusal("seg_mix"')
    assert _codes(agent) == [("RL301", "seg-mix"), ("RL302", "seg_mix")]


@pytest.mark.parametrize(
    ("rel", "old", "new", "found"),
    [
        (
            "survey_agent/tools.py",
            'Refusal("seg-mix"',
            'Refusal("seg-miz"',
            [("RL301", "seg-mix"), ("RL302", "seg-miz")],
        ),
        (
            "prompts/system_prompt.md",
            "- seg-mix:",
            "- seg-miz:",
            [("RL201", "seg-mix"), ("RL202", "seg-miz")],
        ),
    ],
)
def test_an_edit_whose_mtime_is_put_back_invalidates_it(
    agent: Path, rel: str, old: str, new: str, found: list[tuple[str, str]]
) -> None:
    """Same size, mtime put back after the write (`touch -r`, `cp -p`, a backup restored):
    the ctime has moved, which no program sets back, and the cache keys on it too."""
    import os

    path = agent / rel
    assert _codes(agent) == []
    before = path.stat()
    time.sleep(0.01)
    path.write_text(path.read_text().replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    assert _codes(agent) == found


def test_editing_the_card_invalidates_it(agent: Path) -> None:
    assert _codes(agent) == []
    _edit(agent / ".well-known" / "agent-card.json", '"invalid-cut": "That', '"invalid-cut": "This')
    assert _codes(agent) == [("RL203", "invalid-cut")]


def test_editing_the_prompt_invalidates_it(agent: Path) -> None:
    assert _codes(agent) == []
    _edit(agent / "prompts" / "system_prompt.md", "- invalid-cut: That", "- invalid-cut: The")
    assert _codes(agent) == [("RL203", "invalid-cut")]


def test_config_that_changes_extraction_invalidates_it(agent: Path) -> None:
    (agent / "survey_agent" / "policy.py").write_text('def check(x):\n    return block("geo-drill")\n')
    assert _codes(agent) == []
    (agent / ".refusal-lint.yaml").write_text("guard-callables: [block]\n")
    assert _codes(agent) == [("RL302", "geo-drill")]
    (agent / ".refusal-lint.yaml").write_text("guard-callables: []\n")
    assert _codes(agent) == []


def test_a_new_import_target_is_read(agent: Path) -> None:
    tools = agent / "survey_agent" / "tools.py"
    _edit(tools, 'Refusal("invalid-cut"', "Refusal(CUT_RULE")
    _edit(
        tools,
        "from survey_agent.refusals import Refusal",
        "from survey_agent.refusals import Refusal\nfrom survey_agent.ids import CUT_RULE",
    )
    (agent / "survey_agent" / "ids.py").write_text('CUT_RULE = "invalid-cut"\n')
    assert _codes(agent) == []
    _edit(agent / "survey_agent" / "ids.py", '"invalid-cut"', '"invalid-cuts"')
    assert _codes(agent) == [("RL301", "invalid-cut"), ("RL302", "invalid-cuts")]


def test_no_cache_reads_and_writes_nothing(agent: Path) -> None:
    assert check_json(agent)["findings"] == []
    assert not (agent / ".refusal_lint_cache").exists()


def test_warm_run_starts_no_parser(agent: Path) -> None:
    probe = (
        "import sys\n"
        "from refusal_lint.cli import main\n"
        f"sys.argv = ['refusal-lint', 'check', {str(agent)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "mods = ('refusal_lint.static.extract.python.visitor', 'refusal_lint.static.workers', 'yaml')\n"
        "print(sorted(m for m in mods if m in sys.modules), file=sys.stderr)\n"
    )
    cold = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert "'refusal_lint.static.workers'" in cold.stderr.splitlines()[-1]
    warm = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert warm.stdout == "All checks passed!\n"
    assert warm.stderr.splitlines()[-1] == "[]"


def test_an_edit_keeps_the_data_files_answers(agent: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The prompt stage's text answers for a data file are kept in the cache's notes: a run
    after one Python file changed does not work them out again while the workers scan."""
    from refusal_lint.static.gate import answers

    (agent / "config").mkdir()
    (agent / "config" / "settings.yaml").write_text("system_prompt: Answer in one line.\n")
    first = _codes(agent)
    asked: list[str] = []
    real = answers.answers

    def spy(rel: str, data: bytes, relevance: object, prompt: bool) -> dict[str, bool]:
        asked.append(rel)
        return real(rel, data, relevance, prompt)  # type: ignore[arg-type]

    monkeypatch.setattr(answers, "answers", spy)
    _edit(agent / "survey_agent" / "tools.py", '"""Cross one question', '"""Cross a question')
    assert _codes(agent) == first
    assert "config/settings.yaml" not in asked


@pytest.mark.parametrize("case", ["monorepo-rl004", "py-rl305", "prompt-rl203", "py-rl002"])
def test_parallel_results_equal_serial(case: str) -> None:
    runs = [
        run_cli("check", str(fixture_repo(case)), "--no-cache", "--format", "json", "--jobs", jobs).stdout
        for jobs in ("1", "2", "4")
    ]
    assert runs[0] == runs[1] == runs[2]


def test_a_cache_written_by_other_code_is_never_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key covers the extractor's own code, not only the version string (issue 13)."""
    import json

    from refusal_lint.static import cache

    root = tmp_path / "agent"
    shutil.copytree(
        TESTDATA / "py-rl302", root, ignore=shutil.ignore_patterns("expected.txt", ".refusal_lint_cache")
    )
    monkeypatch.setattr(cache, "_code", "extractor-a")
    want = _codes(root)
    assert ("RL302", "seg_mix") in want
    # Poison the cache as a buggy extractor would have: every file "passed over".
    store = root / ".refusal_lint_cache" / "facts-v1.json"
    data = json.loads(store.read_text())
    data["stats"] = {p: [*row[:3], ""] for p, row in data["stats"].items()}
    data["entries"] = {}
    store.write_text(json.dumps(data))
    shutil.rmtree(store.parent / "runs-v1")  # the files' cache asked, not the whole run's (test_memo.py)
    assert _codes(root) != want  # the same code trusts its cache: the poison shows
    monkeypatch.setattr(cache, "_code", "extractor-b")
    assert _codes(root) == want  # changed code: nothing of the old cache is used


def test_a_damaged_loc_in_the_cache_reads_the_file_again(agent: Path) -> None:
    """A cache whose compact Locs were cut short (a disk error, an edit by hand) costs a
    read of the file, never a traceback or a different result."""
    import json
    import re

    want = _codes(agent)
    store = agent / ".refusal_lint_cache" / "facts-v1.json"
    text = store.read_text()
    assert '"L":' in text
    store.write_text(re.sub(r'"L":\[[^\]]*\]', '"L":[1]', text))
    json.loads(store.read_text())  # still JSON: only the Locs are damaged
    assert _codes(agent) == want


def test_code_fingerprint_covers_the_package_source() -> None:
    from refusal_lint.static import cache

    first = cache.code_fingerprint()
    assert first == cache.code_fingerprint() and len(first) == 20


_PY_SOURCES = sorted(
    [
        *(Path(__file__).parent.parent / "testdata").rglob("*.py"),
        *(Path(__file__).parent.parent / "refusal_lint").rglob("*.py"),
    ]
)


@pytest.mark.parametrize("path", _PY_SOURCES[::3], ids=lambda p: p.name)
def test_facts_come_back_from_the_cache_as_they_went_in(path: Path) -> None:
    """The cache's compact encoding (a Loc in the file's own path written without it, one in
    another path with it) gives back equal facts, through JSON, as a warm run reads them."""
    import dataclasses
    import json

    from refusal_lint.core.codec import decode, encode
    from refusal_lint.core.facts import Problem
    from refusal_lint.core.kinds import FileKind
    from refusal_lint.core.model import Loc
    from refusal_lint.static.extract import run
    from refusal_lint.static.extract.job import Job

    rel = path.name
    job = Job(rel, FileKind.PYTHON, path.read_bytes(), read_whole=True, prompts=True, ids=("seg-mix",))
    facts = run.extract(job)
    elsewhere = Loc("other/module.py", 3, 4, 3, 9)
    foreign = dataclasses.replace(facts, problem=Problem(elsewhere, "a loc in another file"))
    for got in (facts, foreign, elsewhere):
        assert decode(json.loads(json.dumps(encode(got)))) == got


def test_a_cache_file_that_cannot_be_put_in_place_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files' cache and the runs' memo write through one function: whole or not at all,
    no half-written temporary file left in the folder where the final move fails."""
    import os

    from refusal_lint.static import cache

    assert cache.write(str(tmp_path), "runs-v1/x.json", "{}")
    assert (tmp_path / cache.DIR / "runs-v1" / "x.json").read_text() == "{}"
    assert (tmp_path / cache.DIR / "CACHEDIR.TAG").exists()

    def fail(src: str, dst: str) -> None:
        raise OSError("no room")

    monkeypatch.setattr(os, "replace", fail)
    assert not cache.write(str(tmp_path), cache.FILE, "{}")
    left = sorted(p.name for p in (tmp_path / cache.DIR).iterdir())
    assert left == [".gitignore", "CACHEDIR.TAG", "runs-v1"]
