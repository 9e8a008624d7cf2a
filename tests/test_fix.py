"""--fix and --diff: only drifted reasons change, byte-exactly, atomically, idempotently."""

from __future__ import annotations

import ast
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import TESTDATA, VARIANTS, fixture_repo, run_cli, snapshot
from hypothesis import given, settings
from hypothesis import strategies as st

from refusal_lint.static import fix

SEG = "Segmentation families cannot be crossed; ask for one family per cut."
URI = "https://standards.upperhandai.com/ext/refusals/v1"


def _tree(tmp_path: Path, *cases: str) -> Path:
    root = tmp_path / "repo"
    root.mkdir(parents=True)
    for case in cases:
        shutil.copytree(fixture_repo(case), root / case, ignore=shutil.ignore_patterns("expected.txt"))
    return root


def _findings(root: Path) -> list[tuple[str, int, str]]:
    out = run_cli("check", str(root), "--no-cache", "--format", "json")
    return [(f["path"], f["line"], f["code"]) for f in json.loads(out.stdout)["findings"]]


def test_fix_rewrites_only_drifted_reasons(tmp_path: Path) -> None:
    for case in ("prompt-rl203", "py-rl303", "py-rl302"):
        root = _tree(tmp_path / case, case) / case
        before_findings = _findings(root)
        before = snapshot(root)
        result = run_cli("check", str(root), "--fix", "--no-cache", "--format", "json")
        report = json.loads(result.stdout)
        after_findings = _findings(root)
        assert [f for f in before_findings if f[2] not in ("RL203", "RL303")] == after_findings
        fixed = sum(f[2] in ("RL203", "RL303") for f in before_findings)
        assert report["summary"]["fixed"] == fixed
        assert result.exit_code == (1 if after_findings else 0)
        changed = {p for p, h in snapshot(root).items() if before[p] != h}
        expected = {
            "prompt-rl203": {"system_prompt.md", "survey/prompt.py", "survey/config/root_agent.yaml"},
            "py-rl303": {"survey/tools.py"},
            "py-rl302": set(),
        }[case]
        assert changed == expected
        again = snapshot(root)
        second = run_cli("check", str(root), "--fix", "--no-cache")
        assert snapshot(root) == again, "a second --fix must change nothing"
        assert "Fixed" not in second.stdout


def test_fix_keeps_layout_byte_for_byte(tmp_path: Path) -> None:
    root = _tree(tmp_path, "py-rl303") / "py-rl303"
    tools = root / "survey" / "tools.py"
    original = tools.read_text()
    run_cli("check", str(root), "--fix", "--no-cache")
    assert tools.read_text() == original.replace("Segments can't be mixed.", SEG)


def test_diff_writes_nothing(tmp_path: Path) -> None:
    root = _tree(tmp_path, "py-rl303") / "py-rl303"
    before = snapshot(root)
    result = run_cli("check", str(root), "--diff", "--no-cache", cwd=root)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == ["--- a/survey/tools.py", "+++ b/survey/tools.py"]
    assert f'+        return refuse("seg-mix", reason="{SEG}")' in result.stdout
    assert snapshot(root) == before
    clean = run_cli("check", str(TESTDATA / "survey-agent"), "--diff", "--no-cache")
    assert (clean.exit_code, clean.stdout) == (0, "")
    # -o / --output takes the patch, as it takes a report: the same bytes, nothing on stdout.
    patch = tmp_path / "fix.patch"
    to_file = run_cli("check", str(root), "--diff", "--no-cache", "-o", str(patch), cwd=root)
    assert (to_file.exit_code, to_file.stdout) == (1, "")
    assert patch.read_text() == result.stdout
    assert snapshot(root) == before
    # --exit-zero turns that 1 into 0, the patch printed all the same.
    zero = run_cli("check", str(root), "--diff", "--exit-zero", "--no-cache", cwd=root)
    assert (zero.exit_code, zero.stdout) == (0, result.stdout)


def test_crlf_bom_and_encoding_are_kept(tmp_path: Path) -> None:
    root = _tree(tmp_path, "prompt-crlf-bom") / "prompt-crlf-bom"
    prompt = root / "system_prompt.txt"
    prompt.write_bytes(prompt.read_bytes().replace(b"- **seg-mix**: Seg", b"- **seg-mix**: Old seg"))
    assert [c for _, _, c in _findings(root)] == ["RL203"]
    run_cli("check", str(root), "--fix", "--no-cache")
    data = prompt.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert data.count(b"\r\n") == data.count(b"\n")
    assert _findings(root) == []


def test_read_only_file_is_reported(tmp_path: Path) -> None:
    root = _tree(tmp_path, "py-rl303") / "py-rl303"
    tools = root / "survey" / "tools.py"
    tools.chmod(stat.S_IRUSR | stat.S_IRGRP)
    before = snapshot(root)
    result = run_cli("check", str(root), "--fix", "--no-cache")
    assert result.exit_code == 1
    assert "survey/tools.py: not fixed, the file is read-only" in result.stderr
    assert snapshot(root) == before
    assert not [p for p in os.listdir(tools.parent) if p.startswith(".refusal-lint-")]


def test_changed_on_disk_is_not_overwritten(tmp_path: Path) -> None:
    root = _tree(tmp_path, "py-rl303") / "py-rl303"
    out = run_cli("check", str(root), "--no-cache", "--format", "json")
    assert out.exit_code == 1
    from refusal_lint import config
    from refusal_lint.codes import CODES
    from refusal_lint.static import pipeline

    result = pipeline.run(
        [str(root)], config.Config(), pipeline.Settings(frozenset(CODES), frozenset(), False, 1)
    )
    plan = fix.plan(result.findings, result.root)
    tools = root / "survey" / "tools.py"
    tools.write_text(tools.read_text() + "\n# edited meanwhile\n")
    problems = fix.write(plan)
    assert problems == ["survey/tools.py: not fixed, it changed on disk since it was read"]
    assert tools.read_text().endswith("# edited meanwhile\n")


def test_a_file_turned_binary_before_writing_is_left_alone(tmp_path: Path) -> None:
    """Between planning and writing the file became undecodable: one line, no traceback."""
    root = _tree(tmp_path, "py-rl303") / "py-rl303"
    from refusal_lint import config
    from refusal_lint.codes import CODES
    from refusal_lint.static import pipeline

    result = pipeline.run(
        [str(root)], config.Config(), pipeline.Settings(frozenset(CODES), frozenset(), False, 1)
    )
    plan = fix.plan(result.findings, result.root)
    tools = root / "survey" / "tools.py"
    tools.write_bytes(b"\x00\x01 not text any more")
    problems = fix.write(plan)
    assert problems == ["survey/tools.py: not fixed, binary file (holds NUL bytes)"]
    assert tools.read_bytes() == b"\x00\x01 not text any more"


def test_unwritable_reason_is_left_alone(tmp_path: Path) -> None:
    d = tmp_path / "agent"
    shutil.copytree(TESTDATA / "py-rl303", d, ignore=shutil.ignore_patterns("expected.txt"))
    card = d / "agent-card.json"
    card.write_text(card.read_text().replace(SEG, "Families cannot be crossed \\\\ ask for one."))
    tools = d / "survey" / "tools.py"
    tools.write_text(tools.read_text().replace('reason="Segments', 'reason=r"Segments'))
    before = tools.read_bytes()
    result = run_cli("check", str(d), "--fix", "--no-cache")
    assert "RL303 not fixed: the card's reason cannot be written in this literal's quoting" in result.stderr
    assert tools.read_bytes() == before


@pytest.mark.parametrize("name", ["system_prompt.md", "system_prompt.j2"])
def test_a_reason_holding_a_comment_a_prompt_drops_is_not_fixable(tmp_path: Path, name: str) -> None:
    """A card reason holding `<!-- -->` or `{# #}`: a prompt's reader blanks the comment, so no
    prompt can state it; the RL203 is reported, neither offered as fixable nor 'fixed'."""
    params = {"seg-mix": "No <!-- hidden --> crossing.", "age-x": "Ages {# not #} here."}
    (tmp_path / "card.json").write_text(
        json.dumps({"capabilities": {"extensions": [{"uri": URI, "params": params}]}})
    )
    (tmp_path / name).write_text("Refuse these:\n- seg-mix: wrong.\n- age-x: wrong.\n")
    (tmp_path / "tools.py").write_text(
        'def refuse(rule):\n    pass\n\n\nrefuse("seg-mix")\nrefuse("age-x")\n'
    )
    before = snapshot(tmp_path)
    assert "fixable" not in run_cli("check", str(tmp_path), "--no-cache").stdout
    result = run_cli("check", str(tmp_path), "--fix", "--no-cache")
    assert "Fixed" not in result.stdout and result.stderr.count("a prompt's reader drops") == 2
    assert snapshot(tmp_path) == before


_reasons = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=60)
_literals = st.sampled_from(
    ['"old"', "'old'", '"""old"""', "'''old'''", 'r"old"', "u'old'", 'f"old"', "F'''old'''", 'rf"old"']
)


@settings(max_examples=500, deadline=None)
@given(_literals, _reasons)
def test_rewritten_literal_parses_to_the_reason(literal: str, reason: str) -> None:
    prefix = literal[: len(literal) - len(literal.lstrip("rRbBuUfF"))]
    opening = literal[: len(literal) - len("old") - (len(literal) - len(prefix) - len("old")) // 2]
    new = fix.rewrite_literal(literal, reason)
    if new is None:
        # Only a raw literal may refuse a reason: one it cannot hold.
        assert "r" in prefix.lower()
        return
    ast.parse(f"x = {new}\n")
    assert fix.literal_value(new) == reason
    assert new.startswith(opening) and new.endswith(opening[len(prefix) :])


_FIXABLE_DRIFTS = sorted(
    n for n, v in VARIANTS.items() if n.endswith("-drift") and "fixable with the `--fix` option" in v.expected
)


def test_fixable_drifts_exist() -> None:
    assert len(_FIXABLE_DRIFTS) >= 5


@pytest.mark.parametrize("name", _FIXABLE_DRIFTS)
def test_fix_turns_a_drift_twin_back_into_its_clean_twin(name: str, tmp_path: Path) -> None:
    """A drift twin differs from its clean twin by one reason: --fix rewrites that line, in
    the file that holds it (a prompt joined from modules too), and nothing else."""
    root = tmp_path / "repo"
    shutil.copytree(fixture_repo(name), root, ignore=shutil.ignore_patterns("expected.txt"))
    run_cli("check", str(root), "--fix", "--no-cache")
    clean = fixture_repo(name.removesuffix("-drift"))
    want = {p: h for p, h in snapshot(clean).items() if p != "expected.txt"}
    assert snapshot(root) == want


def test_fix_escapes_the_reason_in_a_json_prompt(tmp_path: Path) -> None:
    """A JSON string holds a card reason with quotes or a backslash escaped: the file stays
    JSON, states the card's reason, and a second run finds nothing."""
    reason = 'For "severe" weather, see C:\\alerts.'
    card = {
        "name": "Weather",
        "capabilities": {
            "extensions": [
                {
                    "uri": "https://standards.upperhandai.com/ext/refusals/v1",
                    "params": {"severe-alert": reason},
                }
            ]
        },
    }
    (tmp_path / "agent-card.json").write_text(json.dumps(card, indent=2) + "\n")
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    old = "You are the weather bot. Refuse and name the rule:\n- severe-alert: For severe weather, see it.\n"
    (prompts / "extra_prompt.json").write_text(json.dumps({"system_prompt": old}, indent=2) + "\n")
    assert sorted(f[2] for f in _findings(tmp_path)) == ["RL203", "RL301"]
    run_cli("check", str(tmp_path), "--fix", "--no-cache")
    fixed = json.loads((prompts / "extra_prompt.json").read_text())["system_prompt"]
    assert f"- severe-alert: {reason}\n" in fixed
    assert [f[2] for f in _findings(tmp_path)] == ["RL301"]


@pytest.mark.parametrize(
    "name, text",
    [
        (
            "prompt.json",
            '{"system_prompt": "Refuse these:\\n- seg-mix: Old reason.\\n- invalid-cut: Old reason.\\n"}\n',
        ),
        (
            "prompts.toml",
            'system = "Refuse these:\\n- seg-mix: Old reason.\\n- invalid-cut: Old reason.\\n"\n',
        ),
    ],
)
def test_fix_rewrites_each_reason_of_a_line_stating_the_old_one_twice(
    tmp_path: Path, name: str, text: str
) -> None:
    """One line holding two rule lines with the same old reason (an escaped one-line
    string): each finding rewrites the reason after its own id, not "which one?"."""
    card = {
        "name": "Survey",
        "capabilities": {
            "extensions": [
                {
                    "uri": "https://standards.upperhandai.com/ext/refusals/v1",
                    "params": {"seg-mix": "One family per cut.", "invalid-cut": "Cut not defined."},
                }
            ]
        },
    }
    (tmp_path / "agent-card.json").write_text(json.dumps(card) + "\n")
    (tmp_path / "tools.py").write_text('def f(x):\n    refuse("seg-mix")\n    refuse("invalid-cut")\n')
    (tmp_path / name).write_text(text)
    assert sorted(f[2] for f in _findings(tmp_path)) == ["RL203", "RL203"]
    result = run_cli("check", str(tmp_path), "--fix", "--no-cache")
    assert result.exit_code == 0, result.output
    fixed = (tmp_path / name).read_text()
    assert "- seg-mix: One family per cut.\\n- invalid-cut: Cut not defined.\\n" in fixed
    assert _findings(tmp_path) == []


@pytest.mark.parametrize("quote", ["'", '"'])
def test_fix_escapes_the_reason_in_a_python_prompt_line(tmp_path: Path, quote: str) -> None:
    """A rule line in a Python string of either quote: the card's reason, quotes and a
    backslash in it, is written escaped for that literal; the file parses and states it."""
    reason = 'I can\'t give "tax" advice \\ see a professional.'
    card = {
        "name": "Portfolio",
        "capabilities": {
            "extensions": [
                {"uri": "https://standards.upperhandai.com/ext/refusals/v1", "params": {"tax-advice": reason}}
            ]
        },
    }
    (tmp_path / "agent-card.json").write_text(json.dumps(card, indent=2) + "\n")
    (tmp_path / "settings.py").write_text(
        f"INSTRUCTIONS = [\n    {quote}You are Portfolio Copilot. Refuse and name the rule:{quote},\n"
        f"    {quote}tax-advice: Not a tax adviser.{quote},\n]\n"
    )
    assert sorted(f[2] for f in _findings(tmp_path)) == ["RL203", "RL301"]
    result = run_cli("check", str(tmp_path), "--fix", "--no-cache")
    assert "not fixed" not in result.stderr
    tree = ast.parse((tmp_path / "settings.py").read_text())
    assert f"tax-advice: {reason}" in ast.literal_eval(tree.body[0].value)  # type: ignore[attr-defined]
    assert [f[2] for f in _findings(tmp_path)] == ["RL301"]


@pytest.mark.parametrize(
    "prompt", ['"""Refuse these:\n- digits: Wrong.\n"""', '"Refuse these:\\n- digits: Wrong.\\n"']
)
def test_fix_writes_no_invalid_escape_in_a_python_prompt(tmp_path: Path, prompt: str) -> None:
    """A card's `\\d` written into a plain (not raw) literal reads the same, yet is an
    invalid escape (a SyntaxWarning on 3.12, an error under -W error): it is written `\\\\d`."""
    import warnings

    reason = "Never match \\d+ digits \\ here."
    card = {"capabilities": {"extensions": [{"uri": URI, "params": {"digits": reason}}]}}
    (tmp_path / "agent-card.json").write_text(json.dumps(card))
    (tmp_path / "agent.py").write_text(f"SYSTEM_PROMPT = {prompt}\n")
    run_cli("check", str(tmp_path), "--fix", "--no-cache")
    text = (tmp_path / "agent.py").read_text()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tree = ast.parse(text)
    assert f"- digits: {reason}" in ast.literal_eval(tree.body[0].value)  # type: ignore[attr-defined]


_TEMPLATED = "Plans are capped at {budget} ($5 a day), 100% of the time."


@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        # An f-string or a `.format()` template (called on it, or on the name it is bound to):
        # the reason's braces written doubled, and the string renders the reason.
        ('f"You plan for {who}. Refuse:\\n- budget-cap: Too much.\\n"', True),
        ('"You plan for {who}. Refuse:\\n- budget-cap: Too much.\\n".format(who=who)', True),
        (
            'None\nT = "You plan for {who}. Refuse:\\n- budget-cap: Too much.\\n"\n'
            "SYSTEM_PROMPT = T.format(who=who)",
            True,
        ),
        # Templates that would read `100%` or `$5` as a placeholder: left alone.
        ('"You plan for %s. Refuse:\\n- budget-cap: Too much.\\n" % who', False),
        ('Template("You plan for $who. Refuse:\\n- budget-cap: Too much.\\n").substitute(who=who)', False),
    ],
)
def test_fix_keeps_a_template_rendering(tmp_path: Path, line: str, fixed: bool) -> None:
    """The card's reason holds `{`, `$` and `%`: written into a Python prompt, the prompt must
    still render (an f-string's or a `.format()` template's braces doubled), or the line is
    left alone and reported."""
    entry = {"uri": "https://standards.upperhandai.com/ext/refusals/v1", "params": {"budget-cap": _TEMPLATED}}
    card = {"name": "Meals", "capabilities": {"extensions": [entry]}}
    (tmp_path / "agent-card.json").write_text(json.dumps(card, indent=2) + "\n")
    prompt = tmp_path / "agent.py"
    prompt.write_text(f'from string import Template\n\nwho = "a family"\nSYSTEM_PROMPT = {line}\n')
    before = prompt.read_text()
    # The contract's `fixable` (and the text's hint) says what --fix does.
    shown = json.loads(run_cli("check", str(tmp_path), "--no-cache", "--format", "json").stdout)
    assert [(f["code"], f["fixable"]) for f in shown["findings"]] == [("RL301", False), ("RL203", fixed)]
    hint = "fixable with the `--fix` option"
    assert (hint in run_cli("check", str(tmp_path), "--no-cache").stdout) is fixed
    result = run_cli("check", str(tmp_path), "--fix", "--no-cache")
    assert ("RL203 not fixed" in result.stderr) is not fixed
    namespace: dict[str, object] = {}
    exec(prompt.read_text(), namespace)  # the prompt still renders
    if fixed:
        assert f"- budget-cap: {_TEMPLATED}" in str(namespace["SYSTEM_PROMPT"])
        assert run_cli("check", str(tmp_path), "--fix", "--no-cache").stderr == ""  # idempotent
    else:
        assert prompt.read_text() == before


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_backslash_newline_string_keeps_its_lines(tmp_path: Path, newline: str) -> None:
    """`\"\"\"\\` then the prompt's lines (a Windows checkout: CRLF): each rule line stands on
    its own file line, and --fix rewrites it there."""
    (tmp_path / "agent-card.json").write_text(
        json.dumps({"name": "S", "capabilities": {"extensions": [{"uri": URI, "params": {"seg-mix": SEG}}]}})
    )
    lines = ['SYSTEM_PROMPT = """\\', "You are the survey analyst.", "", "Refuse these:", "- seg-mix: No."]
    lines += ['"""', ""]
    prompt = tmp_path / "agent.py"
    prompt.write_bytes(newline.join(lines).encode())
    found = [(Path(path).name, line, code) for path, line, code in _findings(tmp_path)]
    assert found == [("agent-card.json", 1, "RL301"), ("agent.py", 5, "RL203")]
    assert "not fixed" not in run_cli("check", str(tmp_path), "--fix", "--no-cache").stderr
    assert prompt.read_bytes() == newline.join(lines).replace("- seg-mix: No.", f"- seg-mix: {SEG}").encode()


def test_a_reason_the_files_encoding_cannot_hold_is_left_alone_in_diff_and_fix(tmp_path: Path) -> None:
    """A Latin-1 module: the card's em dash cannot be written there, its other reason can;
    --diff shows exactly the change --fix makes."""
    params = {"seg-mix": "Families can't be crossed \u2014 ask for one.", "invalid-cut": "No such cut."}
    card = {"name": "S", "capabilities": {"extensions": [{"uri": URI, "params": params}]}}
    (tmp_path / "agent-card.json").write_text(json.dumps(card))
    tools = tmp_path / "tools.py"
    source = (
        "# -*- coding: latin-1 -*-\n\n\ndef f(Refusal):\n"
        '    raise Refusal("seg-mix", reason="old caf\xe9")\n'
        '    raise Refusal("invalid-cut", reason="old")\n'
    )
    tools.write_bytes(source.encode("latin-1"))
    shown = run_cli("check", str(tmp_path), "--diff", "--no-cache")
    assert '+    raise Refusal("invalid-cut", reason="No such cut.")' in shown.stdout
    assert "\u2014" not in shown.stdout and "cannot hold the card's reason" in shown.stderr
    fixed = run_cli("check", str(tmp_path), "--fix", "--no-cache")
    assert "cannot hold the card's reason" in fixed.stderr
    assert tools.read_bytes() == source.replace('reason="old")', 'reason="No such cut.")').encode("latin-1")


def test_a_symlinked_prompt_is_one_file_and_fixing_it_keeps_the_link(tmp_path: Path) -> None:
    """`prompt.md -> shared/system_prompt.md`: one file under two names, read and fixed once,
    under its own name (a second finding, a second hunk, and a link turned into a copy were
    what the walk gave it)."""
    (tmp_path / "agent-card.json").write_text(
        json.dumps({"name": "S", "capabilities": {"extensions": [{"uri": URI, "params": {"seg-mix": SEG}}]}})
    )
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared/system_prompt.md").write_text("Refuse these, naming the rule:\n- seg-mix: No.\n")
    (tmp_path / "prompt.md").symlink_to("shared/system_prompt.md")
    shown = json.loads(run_cli("check", ".", "--no-cache", "--format", "json", cwd=tmp_path).stdout)
    assert [(f["code"], f["path"]) for f in shown["findings"]] == [
        ("RL301", "agent-card.json"),
        ("RL203", "shared/system_prompt.md"),
    ]
    run_cli("check", str(tmp_path), "--no-cache", "--fix")
    assert (tmp_path / "prompt.md").is_symlink()
    assert f"- seg-mix: {SEG}" in (tmp_path / "shared/system_prompt.md").read_text()


def test_a_symlink_out_of_the_project_is_checked_but_never_written_through(tmp_path: Path) -> None:
    """`prompt.md -> ../elsewhere/system_prompt.md`: its drift is reported at the link, and
    --fix says why it leaves it (the file is another tree's); --diff shows no hunk for it."""
    project, elsewhere = tmp_path / "agent", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "agent-card.json").write_text(
        json.dumps({"name": "S", "capabilities": {"extensions": [{"uri": URI, "params": {"seg-mix": SEG}}]}})
    )
    outside = elsewhere / "system_prompt.md"
    outside.write_text("Refuse these, naming the rule:\n- seg-mix: No.\n")
    (project / "prompt.md").symlink_to(outside)
    shown = json.loads(run_cli("check", ".", "--no-cache", "--format", "json", cwd=project).stdout)
    assert [(f["code"], f["path"], f["fixable"]) for f in shown["findings"]] == [
        ("RL301", "agent-card.json", False),
        ("RL203", "prompt.md", False),
    ]
    diff = run_cli("check", ".", "--no-cache", "--diff", cwd=project)
    assert diff.stdout == "" and "prompt.md: not fixed, it is a symlink to" in diff.stderr
    fixed = run_cli("check", ".", "--no-cache", "--fix", cwd=project)
    assert "outside the project" in fixed.stderr
    assert outside.read_text() == "Refuse these, naming the rule:\n- seg-mix: No.\n"
    assert (project / "prompt.md").is_symlink()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_tracked_symlink_is_read_once_from_gits_index(tmp_path: Path) -> None:
    """`--git-index` lists the link and its target: one file, one finding, as on the disk."""
    (tmp_path / "agent-card.json").write_text(
        json.dumps({"name": "S", "capabilities": {"extensions": [{"uri": URI, "params": {"seg-mix": SEG}}]}})
    )
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared/system_prompt.md").write_text("Refuse these, naming the rule:\n- seg-mix: No.\n")
    (tmp_path / "prompt.md").symlink_to("shared/system_prompt.md")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    for how in ([], ["--git-index"]):
        shown = json.loads(run_cli("check", ".", "--no-cache", "--format", "json", *how, cwd=tmp_path).stdout)
        assert [(f["code"], f["path"]) for f in shown["findings"]] == [
            ("RL301", "agent-card.json"),
            ("RL203", "shared/system_prompt.md"),
        ], how


def test_fixing_a_hard_linked_prompt_keeps_its_names_one_file(tmp_path: Path) -> None:
    """`prompt.md` and `system_prompt.md`, one file under two names: the fix is read under
    both (a file renamed over one of them parted them, and a second --fix changed the
    other), and a second --fix changes nothing."""
    (tmp_path / "agent-card.json").write_text(
        json.dumps({"name": "S", "capabilities": {"extensions": [{"uri": URI, "params": {"seg-mix": SEG}}]}})
    )
    (tmp_path / "system_prompt.md").write_text("Refuse these, naming the rule:\n- seg-mix: No.\n")
    os.link(tmp_path / "system_prompt.md", tmp_path / "prompt.md")
    assert run_cli("check", str(tmp_path), "--no-cache", "--fix").exit_code == 1  # RL301 stays
    assert (tmp_path / "prompt.md").stat().st_ino == (tmp_path / "system_prompt.md").stat().st_ino
    assert f"- seg-mix: {SEG}" in (tmp_path / "prompt.md").read_text()
    before = snapshot(tmp_path)
    again = run_cli("check", str(tmp_path), "--no-cache", "--fix")
    assert "Fixed" not in again.output and snapshot(tmp_path) == before
