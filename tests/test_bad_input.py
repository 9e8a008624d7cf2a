"""Bad input gets a finding or one clear line: never a traceback, a hang, or a written file."""

from __future__ import annotations

import codecs
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from agentgen import URI
from conftest import TESTDATA, Repo, check_json, run_cli, snapshot
from test_differential import differential


def _card_dir(tmp_path: Path, data: bytes, name: str = "agent-card.json") -> Path:
    wk = tmp_path / ".well-known"
    wk.mkdir()
    (wk / name).write_bytes(data)
    return tmp_path


CASES = {
    "latin1": (
        '{"name": "Caf\xe9 refusal agent"}'.encode("latin-1"),
        "agent-card.json",
        ".well-known/agent-card.json:1:14: RL002 not valid UTF-8 (byte 0xe9)",
    ),
    "binary": (
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR refusal",
        "agent-card.json",
        ".well-known/agent-card.json:1:1: RL002 binary file (holds NUL bytes)",
    ),
    "empty": (b"", "agent-card.json", ".well-known/agent-card.json:1:1: RL002 invalid JSON: Expecting value"),
    "yaml-tabs": (
        b"name: Survey refusal agent\ncapabilities:\n\textensions: []\n",
        "agent-card.yaml",
        # libyaml's wording (PyYAML's pure-Python reader names the tab); the position is the same.
        ".well-known/agent-card.yaml:3:1: RL002 invalid YAML: found character that cannot start any token",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_unreadable_card_is_rl002(tmp_path: Path, case: str) -> None:
    data, name, line = CASES[case]
    root = _card_dir(tmp_path, data, name)
    before = snapshot(root)
    result = run_cli("check", str(root), "--no-cache", "--no-color", cwd=root)
    assert result.stdout.splitlines()[0] == line
    assert result.exit_code == 0  # RL002 is a warning
    assert "Traceback" not in result.output
    assert snapshot(root) == before


def test_top_level_array_is_not_a_card(tmp_path: Path) -> None:
    root = _card_dir(tmp_path, b'[{"name": "refusal"}]')
    result = run_cli("check", str(root), "--no-cache")
    assert result.stdout == "nothing to check: no refusals card, prompt or guard found\n"
    assert result.exit_code == 0


def test_billion_laughs_is_bounded(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["refusal"]']
    for i in range(1, 12):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    root = _card_dir(tmp_path, ("\n".join(lines) + "\n").encode(), "agent-card.yaml")
    data = check_json(root)
    [finding] = data["findings"]
    assert finding["code"] == "RL005"  # valid YAML, past what we read: unchecked, not a syntax error
    assert "alias expansion or nesting past the reading limit" in finding["message"]


@pytest.mark.parametrize(
    "doc",
    [
        "\n".join(
            ['a0: &a0 ["refusal", "refusal"]']
            + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 8)]
        ),
        "survey: refusal\nrows: " + "[" * 600 + "]" * 600,  # nesting past the depth read
        "a: &a [refusal]\nb: [*a]\n---\nc: &c [*c]",  # an alias holding itself
    ],
    ids=["aliases", "nesting", "self"],
)
def test_a_yaml_that_names_no_card_past_the_reading_limits_is_rl005_both_ways(repo: Repo, doc: str) -> None:
    """A YAML file with a refusal word needs reading (a card candidate); one that names no
    `uri` key is settled as holding no card by its text, but the full read the shortcuts-off
    run makes expands its aliases: past the limit, RL005 in both runs."""
    root = repo.agent().root
    (root / "data/survey.yaml").parent.mkdir(parents=True, exist_ok=True)
    (root / "data/survey.yaml").write_text(doc + "\n")
    found = [(f["code"], f["path"], f["line"]) for f in check_json(root)["findings"]]
    assert found == [("RL005", "data/survey.yaml", 1)]
    differential(root)


def test_a_yaml_nested_to_the_deepest_level_read_is_read_both_ways(repo: Repo) -> None:
    """500 levels below its root is as deep as a YAML tree is built: read, no finding, the
    same with the shortcuts off (which read its tree, and ran out of Python's stack)."""
    root = repo.agent().root
    (root / "survey.yaml").write_text("survey: refusal\nrows: " + "[" * 500 + "]" * 500 + "\n")
    assert check_json(root)["findings"] == []
    differential(root)


@pytest.mark.parametrize(("name", "spelled"), [("card.json", "\\u0065"), ("card.yaml", "\\x65")])
def test_a_card_whose_uri_is_written_with_an_escape_is_found_both_ways(
    repo: Repo, name: str, spelled: str
) -> None:
    """`ext/r\\u0065fusals/v1` is our URI once the JSON (or YAML) is read: the card is found
    (no RL001 on its guards), in the default run as in the one with the shortcuts off; the
    default run looked for the refusal word in the text as written only."""
    import json

    import yaml

    root = repo.agent().root
    known = root / ".well-known/agent-card.json"
    doc = json.loads(known.read_text())
    known.unlink()
    card = root / name  # a name no card has: found by its text
    card.write_text(yaml.safe_dump(doc) if name.endswith(".yaml") else json.dumps(doc, indent=2))
    text = card.read_text()
    uri = "https://standards.upperhandai.com/ext/refusals/v1"
    written = '"' + uri.replace("refusals", f"r{spelled}fusals") + '"'  # a double-quoted string either way
    assert text.count(uri) == 1
    card.write_text(text.replace(f'"{uri}"', written).replace(uri, written))
    assert check_json(root)["findings"] == []
    differential(root)


def test_huge_json_is_skipped_with_a_note(tmp_path: Path) -> None:
    big = tmp_path / "survey-responses.json"
    with open(big, "wb") as fh:
        fh.write(b'{"note": "refusal", "rows": [')
        chunk = b'{"id": 1, "answer": "yes"},' * 40_000
        while fh.tell() < 100 * 1024 * 1024:
            fh.write(chunk)
        fh.write(b"0]}")
    result = run_cli("check", str(tmp_path), "--no-cache")
    assert result.exit_code == 0
    assert result.stdout == "nothing to check: no refusals card, prompt or guard found\n"
    assert "survey-responses.json: skipped" in result.stderr


def test_deeply_nested_json_does_not_crash(tmp_path: Path) -> None:
    root = _card_dir(tmp_path, b'{"refusal": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    data = check_json(root)
    assert [f["code"] for f in data["findings"]] == ["RL005"]


@pytest.mark.parametrize("depth, read", [(1_200, True), (4_800, True), (6_000, False)])
def test_a_card_with_a_deeply_nested_field_is_read_to_five_thousand_levels(
    tmp_path: Path, depth: int, read: bool
) -> None:
    """The standard parser stops near 1,000 levels by default: a valid card with a deep
    vendor field (a JSON Schema) was RL005, its guards RL001. It is read to 5,000 levels."""
    deep = "[" * depth + "]" * depth
    ext = f'{{"uri": "{URI}", "params": {{"seg-mix": "One family per cut."}}}}'
    root = _card_dir(
        tmp_path, f'{{"name": "A", "x-schema": {deep}, "capabilities": {{"extensions": [{ext}]}}}}'.encode()
    )
    (tmp_path / "system_prompt.md").write_text("Refuse these:\n- seg-mix: One family per cut.\n")
    (tmp_path / "tools.py").write_text('def f(x):\n    refuse("seg-mix")\n')
    found = [f["code"] for f in check_json(root)["findings"]]
    assert found == ([] if read else ["RL005", "RL001"])


def test_symlink_loop_and_fifo_do_not_hang(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "self.py").symlink_to(tmp_path / "self.py")
    os.mkfifo(tmp_path / "pipe_prompt.md")
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere.json")
    result = run_cli("check", str(tmp_path), "--no-cache")
    assert result.exit_code == 0
    assert "nothing to check" in result.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_a_note(tmp_path: Path) -> None:
    p = tmp_path / "system_prompt.md"
    p.write_text("- seg-mix: x\n")
    p.chmod(0)
    result = run_cli("check", str(tmp_path), "--no-cache")
    assert "system_prompt.md: cannot read" in result.stderr
    assert result.exit_code == 0


def test_json_nan_and_infinity_are_valid(tmp_path: Path) -> None:
    """Python's json reads NaN and Infinity: such a file is no RL002 (DESIGN §3)."""
    root = _card_dir(tmp_path, b'{"refusal": null, "score": NaN, "max": Infinity, "min": -Infinity}')
    data = check_json(root)
    assert data["findings"] == []


def test_a_stray_latin1_byte_in_a_prompt_file_hides_none_of_its_rules(repo: Repo) -> None:
    """A text prompt has no syntax a stray byte breaks: it is read with U+FFFD for the byte,
    so its rules are checked (no RL002, no false RL200); --fix, which must write back the
    file's own bytes, leaves it alone and says so."""
    root = repo.agent().root
    prompt = root / "agent/system_prompt.md"
    prompt.write_bytes(prompt.read_bytes().replace(b"analyst", b"analyst (caf\xe9 edition)"))
    prompt.write_bytes(prompt.read_bytes().replace(b"- seg-mix: ", b"- seg-mix: Families may be crossed. "))
    before = snapshot(root)
    report = check_json(root, "--no-cache")
    found = [(f["code"], f["path"], f["line"]) for f in report["findings"]]
    assert found == [("RL203", "agent/system_prompt.md", 5)]
    fixed = run_cli("check", str(root), "--no-cache", "--fix", cwd=root)
    assert "agent/system_prompt.md: not fixed, cannot read it" in fixed.stderr
    assert snapshot(root) == before


@pytest.mark.parametrize("brk", ["\f", "\v", "\x1c", "\x85", "\u2028", "\u2029"])
def test_only_a_line_feed_starts_a_prompt_file_line(repo: Repo, brk: str) -> None:
    """A form feed or U+2028 in a Markdown prompt's prose breaks no line, as git and editors
    number them: the finding stands on the line `grep -n` gives, and --fix rewrites it."""
    root = repo.agent().root
    prompt = root / "agent/system_prompt.md"
    text = prompt.read_text().replace("- seg-mix: ", "- seg-mix: Families may be crossed. ")
    prompt.write_text(f"Intro{brk}text.\n" + text, newline="")
    line = 2 + next(i for i, x in enumerate(text.split("\n")) if "may be crossed" in x)
    report = check_json(root, "--no-cache")
    assert [(f["code"], f["line"], f["fixable"]) for f in report["findings"]] == [("RL203", line, True)]
    assert run_cli("check", str(root), "--no-cache", "--fix", cwd=root).exit_code == 0
    after = prompt.read_bytes().decode()
    assert "may be crossed" not in after and after.startswith(f"Intro{brk}text.\n")


def test_a_file_over_max_file_size_is_noted_once(repo: Repo) -> None:
    """Skipped unread, with one note however many stages would have read it (the scan and
    the prompt stage both ask for a prompt-shaped Python file)."""
    root = repo.agent().root
    (root / ".refusal-lint.yaml").write_text("max-file-size: 1000\n")
    big = "SYSTEM_PROMPT = '''You are the survey analyst.\n" + "Answer from the tables only.\n" * 80 + "'''\n"
    (root / "agent/big_prompt.py").write_text(big)
    result = run_cli("check", str(root), "--no-cache", cwd=root)
    notes = [line for line in result.stderr.splitlines() if "over max-file-size" in line]
    size = len(big.encode())
    assert notes == [
        f"refusal-lint: note: agent/big_prompt.py: skipped, {size} bytes is over max-file-size (1000)"
    ]


def test_a_prompt_file_over_max_file_size_is_unchecked_not_missing(repo: Repo) -> None:
    """The agent's prompt file, too large to read: RL005 (its facts are unknown), never a
    false RL200 claiming the agent has no prompt; the same with the shortcuts off."""
    root = repo.agent().root
    (root / ".refusal-lint.yaml").write_text("max-file-size: 1000\n")
    prompt = root / "agent/system_prompt.md"
    prompt.write_text(prompt.read_text() + "Answer from the tables only.\n" * 80)
    found = [(f["code"], f["path"]) for f in check_json(root)["findings"]]
    assert found == [("RL005", "agent/system_prompt.md")]
    differential(root)


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        # A guard firing a misspelt id past the limit: unchecked, never "All checks passed".
        (
            "agent/generated.py",
            "from policy import refuse\nrefuse('seg-mixx')\n",
            [("RL005", "agent/generated.py")],
        ),
        (
            "agent/big_card.json",
            '{"uri": "https://standards.upperhandai.com/ext/refusals/v1"}\n',
            [("RL005", "agent/big_card.json")],
        ),
        # Nothing there could matter: a note on stderr only, as for any file that cannot matter.
        ("agent/tables.py", "TABLE = {}\n", []),
        ("agent/data.json", "{}\n", []),
        ("agent/responses.json", '{"answer": "refusal"}\n', []),  # a refusal word, no card's URI
    ],
)
def test_a_file_over_max_file_size_is_unchecked_where_its_words_may_matter(
    repo: Repo, name: str, text: str, found: list[tuple[str, str]]
) -> None:
    """A larger file is never reported less than a smaller one: a Python file with a word of
    refusing, or a JSON/YAML file with our URI's path, too large to read is RL005 in every
    format (a note on stderr reaches no JSON consumer); the same with the shortcuts off."""
    root = repo.agent().root
    (root / ".refusal-lint.yaml").write_text("max-file-size: 1000\n")
    pad = "#" * 1200 + "\n" if name.endswith(".py") else " " * 1200
    (root / name).write_text(pad + text if name.endswith(".py") else text.replace("{", "{" + pad, 1))
    assert [(f["code"], f["path"]) for f in check_json(root, "--no-cache")["findings"]] == found
    differential(root)


WIDE = ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]


def _widen(path: Path, encoding: str) -> None:
    path.write_bytes(("\ufeff" + path.read_text(encoding="utf-8")).encode(encoding))


@pytest.mark.parametrize("encoding", WIDE)
def test_diff_of_a_utf16_or_32_prompt_is_readable_and_says_it_will_not_apply(
    repo: Repo, encoding: str
) -> None:
    """A patch in a wide encoding is no patch to any tool (its hunks were UTF-16 bytes):
    --diff shows the lines as UTF-8, and a note says --fix rewrites the file."""
    root = repo.agent().root
    prompt = root / "agent/system_prompt.md"
    prompt.write_text(prompt.read_text().replace("ask for one family", "ask for two families"))
    _widen(prompt, encoding)
    diff = run_cli("check", str(root), "--no-cache", "--diff", cwd=root)
    assert diff.exit_code == 1
    body = diff.stdout_bytes.decode("utf-8")
    assert "-- seg-mix: Segmentation families cannot be crossed; ask for two families per cut." in body
    assert "+- seg-mix: Segmentation families cannot be crossed; ask for one family per cut." in body
    assert "will not apply to it; --fix rewrites it in its own encoding" in diff.stderr


@pytest.mark.parametrize("encoding", WIDE)
@pytest.mark.parametrize("rel", [".well-known/agent-card.json", "agent/system_prompt.md"])
def test_a_file_written_as_utf16_or_32_with_a_bom_is_read_as_its_text(
    repo: Repo, rel: str, encoding: str
) -> None:
    """PowerShell 5's `>` and Notepad's "Unicode" write UTF-16 with a BOM. Read as binary,
    such a prompt was a false RL200 (and such a card no card at all); its text is checked
    as any other's, the same with the shortcuts off, and --fix writes it back in its own
    encoding and BOM."""
    root = repo.agent().root
    prompt = root / "agent/system_prompt.md"
    prompt.write_text(prompt.read_text().replace("ask for one family", "ask for two families"))
    _widen(root / rel, encoding)
    before = snapshot(root)
    found = [(f["code"], f["path"], f["line"]) for f in check_json(root, "--no-cache")["findings"]]
    assert found == [("RL203", "agent/system_prompt.md", 5)]
    differential(root)
    assert snapshot(root) == before
    assert run_cli("check", str(root), "--no-cache", "--fix", cwd=root).exit_code == 0
    assert (root / rel).read_bytes().startswith("\ufeff".encode(encoding))
    fixed = prompt.read_bytes().decode(encoding if rel == "agent/system_prompt.md" else "utf-8")
    assert "ask for one family" in fixed
    assert check_json(root, "--no-cache")["findings"] == []


def test_a_wide_file_that_does_not_decode_is_rl002_not_a_traceback(tmp_path: Path) -> None:
    root = _card_dir(tmp_path, codecs.BOM_UTF16_LE + '{"refusal": 1}'.encode("utf-16-le")[:-1])
    result = run_cli("check", str(root), "--no-cache", "--no-color", cwd=root)
    where = ".well-known/agent-card.json:1:14"  # the 14th character, whose second byte is missing
    assert result.stdout.splitlines()[0] == f"{where}: RL002 not valid UTF-16-LE (byte 0x7d)"
    assert "Traceback" not in result.output


def test_a_prompt_joined_from_thousands_of_literals_is_read_not_a_crash(tmp_path: Path) -> None:
    """`SYSTEM_PROMPT = "a" + "b" + ...`: one Join of its operands, built and joined without
    recursion or pairwise copies (600 of them was a RecursionError, exit 2; 480 took 9 s)."""
    _card_dir(
        tmp_path,
        b'{"capabilities": {"extensions": [{"uri": "' + URI.encode() + b'", "params": '
        b'{"seg-mix": "Segments cannot mix.", "invalid-cut": "That cut is undefined."}}]}}',
    )
    lines = [f'"Line {i} of the rules.\\n"' for i in range(3000)]
    lines[1500] = '"Refuse these:\\n- seg-mix: Segments cannot mix.\\n- zodiac-sign: No star signs.\\n"'
    (tmp_path / "agent.py").write_text("SYSTEM_PROMPT = " + " + ".join(lines) + "\n")
    data = check_json(tmp_path)
    assert sorted((f["code"], f["rule_id"]) for f in data["findings"]) == [
        ("RL201", "invalid-cut"),
        ("RL202", "zodiac-sign"),
        ("RL301", "invalid-cut"),
        ("RL301", "seg-mix"),
    ]
    differential(tmp_path)


@pytest.mark.skipif(os.name != "posix", reason="a file name that is no UTF-8 is a POSIX one")
@pytest.mark.parametrize("fmt", ["json", "sarif", "gitlab", "rdjson", "junit", "text"])
def test_a_file_name_that_is_no_utf8_is_reported_not_a_crash(tmp_path: Path, fmt: str) -> None:
    """`caf\\xe9.py` (a Latin-1 name): every format writes its report; the JSON ones as valid
    UTF-8 JSON, the name's byte escaped (`\\udce9`: a reader's os.fsencode gives the name
    back), SARIF's URI percent-encoded."""
    agent = tmp_path / "a"
    shutil.copytree(TESTDATA / "survey-agent", agent)
    tools = agent / "survey_agent" / "tools.py"
    text = tools.read_text(encoding="utf-8").replace('Refusal("seg-mix"', 'Refusal("seg-mixx"')
    tools.unlink()
    Path(os.fsdecode(os.fsencode(tools.parent) + b"/caf\xe9.py")).write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "refusal_lint", "check", "--no-cache", "--format", fmt, "."],
        cwd=agent,
        capture_output=True,
    )
    assert done.returncode == 1, done.stderr
    assert not done.stderr
    if fmt == "text":
        assert b"survey_agent/caf\xe9.py:25:15: RL302 [seg-mixx]" in done.stdout  # the name's own bytes
        return
    out = done.stdout.decode("utf-8")  # no byte that is no UTF-8
    if fmt != "junit":
        doc = json.loads(out)
        assert "survey_agent/caf\\udce9.py" in out or "survey_agent/caf%E9.py" in out, out
        assert doc
    if fmt == "json":
        assert os.fsdecode(b"survey_agent/caf\xe9.py") in {f["path"] for f in doc["findings"]}
    if fmt == "sarif":
        assert "survey_agent/caf%E9.py" in out


@pytest.mark.parametrize("fmt", ["text", "json", "github", "markdown"])
def test_a_lone_surrogate_in_a_card_key_or_a_prompt_is_reported_not_a_crash(tmp_path: Path, fmt: str) -> None:
    """`"\\ud83d"` (half an emoji, which Python's json accepts) in a JSON prompt's rule line and
    in a card's key: every format prints (the id with U+FFFD, the prompt's text escaped)."""
    card = {"capabilities": {"extensions": [{"uri": URI, "params": {"c-d": "ok", "e\ud800f": "x"}}]}}
    (tmp_path / "card.json").write_text(json.dumps(card), encoding="utf-8")  # ensure_ascii: `\ud800`
    (tmp_path / "config.json").write_text('{"system_prompt": "Refuse these:\\n- c-d: bad \\ud83d"}')
    (tmp_path / "tools.py").write_text('def refuse(rule):\n    raise RuntimeError(rule)\n\n\nrefuse("c-d")\n')
    before = snapshot(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "refusal_lint", "check", ".", "--no-cache", "--format", fmt],
        cwd=tmp_path,
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},  # strict, as on a desktop's UTF-8 locale
    )
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout.decode("utf-8")  # valid UTF-8 throughout
    assert "e\ufffdf" in out
    assert "bad \\ud83d" in out  # JSON's escape, or the text's
    assert snapshot(tmp_path) == before
