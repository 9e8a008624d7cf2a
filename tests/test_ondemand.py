"""The prompt stage's and binding's text questions (ondemand.py, relevance.py) give the
answers of their plain regex spelling, faster; and their answers kept in the cache stay
true across runs (a warm run prints what a cold one does, and rewrites no cache)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import TESTDATA, Repo, run_cli
from hypothesis import example, given, settings
from hypothesis import strategies as st

from refusal_lint.core import prompttext, spec
from refusal_lint.static.gate import answers, prefilter, relevance
from refusal_lint.static.gate import imports as gate_imports
from refusal_lint.static.gate.text import listing, shapes

# The plain spelling the fast path replaces: re.I over the text, one window per match.
_PLAIN = re.compile(
    prompttext.REFUSING_PATTERN.replace(prompttext.APOSTROPHE, listing.APOSTROPHES).encode(), re.I
)


def plain_lists_rules(data: bytes) -> bool:
    """A rule line anywhere after the first word of refusing, or a code token anywhere."""
    first = _PLAIN.search(data)
    if first is None:
        return False
    return (
        listing._LISTED.search(data, first.start()) is not None
        or re.search(rb"`[ \t]*" + listing._HYPHENATED + rb"[ \t]*`", data) is not None
    )


_PIECES = [
    "Refuse", "REFUSAL", "refusing", "Decline", "will not", "WILL NOT", "won't", "Won’t",
    "won\\u2019t", "won\\N{RIGHT SINGLE QUOTATION MARK}t", "must not", "Must Never", "never answer",
    "never  compute", "nevermind", "mustn't", "\n", "\\n", "- seg-mix: Segments cannot mix",
    "* `invalid-cut` - that cut is undefined", "| zodiac-cut |", "`a-b`", '"x-y": 1', "seg-mix",
    "  ", "words and more words", "(", '"', "'", "x" * 50, "## ", "#",
]  # fmt: skip
texts = st.lists(st.sampled_from(_PIECES), max_size=40).map(lambda parts: " ".join(parts).encode())


@settings(max_examples=400, deadline=None)
@given(texts)
def test_refusing_spans_are_finditers(data: bytes) -> None:
    assert listing._refusing(data) == [m.span() for m in _PLAIN.finditer(data)]


@settings(max_examples=400, deadline=None)
@given(texts)
@example(b"## Refusals\n" + b"x " * 5000 + b"\n- seg-mix: Segments cannot mix")
@example(b"You must refuse.\n" + b"x " * 5000 + b"\n- seg-mix: Segments cannot mix")
@example(b"Use `geo-drill` for regions; refuse the rest.")
def test_lists_rules_is_the_plain_search(data: bytes) -> None:
    assert listing.lists_rules(data) == plain_lists_rules(data)


@pytest.mark.parametrize("path", sorted(p for p in TESTDATA.rglob("*") if p.suffix in (".md", ".py", ".txt")))
def test_lists_rules_on_the_fixtures(path: Path) -> None:
    data = path.read_bytes()
    assert listing.lists_rules(data) == plain_lists_rules(data)


_LEADS = ["You must refuse these:", "Refuse:", "Decline these", "We won't compute:", "## Refusals"]
_SEPARATORS = [":", " :", "=", " - ", " — ", "–", ":**", "**:"]
_MARKERS = ["", "- ", "* ", "1. ", "> ", "- [ ] ", "**", "`"]
_REASONS = ["No.", "x", "Segments cannot mix.", "1", "`a`", "{}", "été"]


@settings(max_examples=600, deadline=None)
@given(
    st.sampled_from(_LEADS),
    st.lists(
        st.tuples(st.sampled_from(_MARKERS), st.sampled_from(["zodiac-sign", "moon-cut", "a-b-c"]),
                  st.sampled_from(_SEPARATORS), st.sampled_from(_REASONS)),
        min_size=0, max_size=3,
    ),
    st.sampled_from(["", "Use `geo-drill` first; ", "You are the analyst.\n", "x " * 5000 + "\n"]),
    st.sampled_from(["", "x " * 5000]),
)  # fmt: skip
@example("Refuse:", [("- ", "a-b-c", ":", "No.")], "", "x " * 5000)  # a lead-in's reach: its whole block
@example("Decline these", [], "Use `geo-drill` first; ", "")  # a code token before the word
def test_a_rule_list_prompttext_reads_is_found_by_its_bytes(
    lead: str, items: list[tuple[str, str, str, str]], before: str, filler: str
) -> None:
    """The byte test is a superset of prompttext: where prompttext finds an unknown id
    listed under a refusing lead-in, whatever its reason (one word too), however far below
    it in its block, or a code token anywhere in a listing block, lists_rules holds."""
    from refusal_lint.core.model import PromptLine

    text = (
        before
        + lead
        + filler
        + "\n"
        + "\n".join(
            f"{mark}{rid}{mark.strip() if mark in ('**', '`') else ''}{sep}{reason}"
            for mark, rid, sep, reason in items
        )
    )
    lines = tuple(PromptLine(t, i + 1) for i, t in enumerate(text.split("\n")))
    if prompttext.unknown_ids(lines, ["seg-mix"]):
        assert listing.lists_rules(text.encode())
        assert listing.python_lists_rules(f"SYSTEM_PROMPT = {text!r}\n".encode())


@pytest.mark.parametrize(
    ("source", "slotted"),
    [
        ('LINES = [f"- {SEG_MIX}: Families cannot be crossed."]', True),
        ('PROMPT = f"""Refuse:\n1. **{Rule.SEG_MIX.value}** \u2014 never cross families."""', True),
        ('PROMPT = f"Refuse:\\n- `{SEG_MIX}` = never cross families."', True),
        ('print(f"{key}: {value}")', False),
        ('log(f"user {name}: logged in")', False),
        ('row = f"- {name()}: a call, not a name"', False),
        ('TEMPLATE = "- {name}: a template, no f-string"', False),
        # A template a constant's name feeds (bind/strs.py fills it in).
        ('LINES = ["- {}: Families cannot be crossed.".format(SEG_MIX)]', True),
        ('LINES = ["- %s: Families cannot be crossed." % Rule.SEG_MIX]', True),
        ('LINE = "- {rule}: Families cannot be crossed.".format(\n    rule=Rule.SEG_MIX,\n)', True),
        ('LINE = "- %(rule)s: Families cannot be crossed." % {"rule": SEG_MIX}', True),
        ('print("%s: written, one table per cut." % path)', False),
        ('msg = "- {}: not found".format(name)', False),
        ('msg = "{} of {}: %d rows" % N_ROWS', False),
        # An error message a constant fills in is no list item: no rule line.
        ('raise ValueError(\n    "%s: file does not exist" %\n    os_helper.TESTFN)', False),
        ('PROMPT = """Refuse:\n- %s: never cross families.\n""" % (\n    SEG_MIX,\n)', True),
    ],
)
def test_a_rule_line_a_name_fills_in(source: str, slotted: bool) -> None:
    """`listing.slotted`: a rule line whose id is a name's placeholder, first on its line
    (a real or an escaped line break, or the string's quote), a reason's words after it."""
    assert listing.slotted(source.encode()) is slotted


_PY_PIECES = [
    "from", "import", "from . import x", "from .a.b import (c,\n d)", "import os, sys as s",
    "  ", "\t", "\n", "#", "x = 1", "(", ")", '"', "'", "system", "SYSTEM_PROMPT", "prompt",
    "instructions=", "=", "==", ":", '"role": "system"', '("developer",', "(\n  'system', x)",
    "SystemMessage(", "@agent.system_prompt", "goal =", "preamble=", '"system_prompt":',
    "invalid", "invalid-cut", "seg_mix", "segmix", "seg-mixx", "seg-mx", "invalid-ct", "\\nseg-mixx",
    "Seg-Mix", "inv", '"seg" + "-mixx"', "('seg'\n    '_mix')", '"inval" f"id-cux"', '"seg-" + "ment"',
    '"a" + "b"',
]  # fmt: skip
py_texts = st.lists(st.sampled_from(_PY_PIECES), max_size=40).map(lambda parts: " ".join(parts).encode())
_PY_SOURCES = sorted(p for p in TESTDATA.rglob("*.py"))


def plain_imports_of(data: bytes) -> list[tuple[int, str]]:
    """`imports_of` spelt with the line-start patterns it replaces."""
    out: list[tuple[int, str]] = []
    for dots, module, names in re.findall(rb"^[ \t]*" + gate_imports._FROM.pattern, data, re.M):
        base = module.decode()
        out.append((len(dots), base))
        text = names.split(b"#", 1)[0] if not names.startswith(b"(") else names
        out += [
            (len(dots), f"{base}.{n.decode()}" if base else n.decode())
            for n in gate_imports._NAME.findall(text)
            if n != b"as"
        ]
    for line in re.findall(rb"^[ \t]*" + gate_imports._IMPORT.pattern, data, re.M):
        out += [(0, n.decode()) for n in gate_imports._NAME.findall(line.split(b"#", 1)[0]) if n != b"as"]
    return out


@settings(max_examples=400, deadline=None)
@given(py_texts)
def test_imports_of_is_the_line_start_search(data: bytes) -> None:
    assert gate_imports.imports_of(data) == plain_imports_of(data)


_RULE_PIECES = ["rule", "rule_id", "=", "==", " ", "\n", "\t", "(", ",", "x", "prule", ")"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_RULE_PIECES), max_size=12).map(lambda parts: "".join(parts).encode()))
def test_rule_keyword_is_the_plain_search(data: bytes) -> None:
    plain = rb"[(,][ \t\r\n]*(?:rule|rule_id)[ \t]*=(?!=)"
    assert prefilter.rule_keyword(data) is (re.search(plain, data) is not None)


_NAMING_PIECES = ["emit", "def", " ", "\t", "(", "\n", "x", "_", "é", ".", "emit_", "refuse"]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_NAMING_PIECES), max_size=14).map(lambda parts: "".join(parts).encode()),
    st.sampled_from(["emit", "refuse", "x", "_emit"]),
)
def test_binding_text_questions_are_the_word_boundary_search(data: bytes, name: str) -> None:
    """callers' and definers' shapes, searched from their literal prefix, with the word
    boundary checked by hand (lowered.word_matches, as ondemand._naming asks it): the
    answers of the plain `\\b` regex."""
    from refusal_lint.static.gate.text.lowered import word_matches

    word = re.escape(name.encode())
    for shape in (word + rb"\s*\(", rb"def[ \t]+" + word + rb"[ \t]*\("):
        plain = re.search(rb"\b" + shape, data) is not None
        assert (next(word_matches(re.compile(shape), data), None) is not None) is plain


_MODULES = ["a/__init__.py", "a/policy.py", "a/b/__init__.py", "a/b/rules.py", "src/a/policy.py", "tools.py"]


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(_MODULES),
    st.integers(0, 3),
    st.lists(st.sampled_from(["a", "b", "policy", "rules", "tools", "x"]), max_size=3).map(".".join),
    st.sets(st.sampled_from(_MODULES), min_size=1),
)
def test_could_name_keeps_every_import_that_reaches_a_module(
    importer: str, level: int, dotted: str, targets: set[str]
) -> None:
    """reaches() resolves only the imports `could_name` keeps: every import that resolves
    to one of the modules looked for is among them."""
    from refusal_lint.static.bind.modules import ModuleIndex

    found = ModuleIndex(_MODULES).module(importer, dotted, level)
    if found in targets:
        stems = frozenset(gate_imports._stem(t) for t in targets)
        assert gate_imports.could_name(level, dotted, stems)


@settings(max_examples=400, deadline=None)
@given(py_texts)
def test_prompt_candidate_is_the_whole_file_search(data: bytes) -> None:
    assert shapes.python_prompt_candidate(data) is (
        shapes.prompt_words(data) and shapes._PROMPT_SHAPE.search(data) is not None
    )


@settings(max_examples=400, deadline=None)
@given(py_texts)
def test_prompt_shapes_are_the_whole_file_finditer(data: bytes) -> None:
    found = [m.span() for m in shapes.prompt_shapes(data)] if shapes.prompt_words(data) else []
    assert found == [m.span() for m in shapes._PROMPT_SHAPE.finditer(data)]


_ANSWER_PIECES = [
    *_PY_PIECES, "Refuse these:\\n", "- zodiac-sign: No.", "POLICY", "LEAD + RULES", "f'{POLICY}'",
    "def f():\n    p = POLICY\n    return Agent(instructions=p)\n", "@agent.system_prompt\ndef g():",
    "class A:", "    ", "]", "}", "{", ",", "\\", '"""', "'''", "textwrap.dedent(", ".format(",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ANSWER_PIECES), max_size=40).map(lambda parts: "".join(parts).encode()))
def test_a_files_answers_never_raise(data: bytes) -> None:
    """A worker's text answers (gate/answers.py) on any text, broken Python included: an
    exception there would cost its batch of files."""
    for rel in ("bot/agent.py", "prompts/system.md", "agent.yaml", "card.json"):
        answers.answers(rel, data, relevance.Relevance(("seg-mix", "invalid-cut")), True)
        answers.answers(rel, data, relevance.Relevance(()), True)


@pytest.mark.parametrize("path", _PY_SOURCES, ids=lambda p: str(p.relative_to(TESTDATA)))
def test_text_questions_on_the_fixtures(path: Path) -> None:
    data = path.read_bytes()
    assert gate_imports.imports_of(data) == plain_imports_of(data)
    assert shapes.python_prompt_candidate(data) is (
        shapes.prompt_words(data) and shapes._PROMPT_SHAPE.search(data) is not None
    )


def test_the_uri_literals_hold_the_words_looked_for_first() -> None:
    """python_worth_parsing looks for `uri"`/`uri'` or `edia` before the literals themselves."""
    assert all(b'uri"' in n or b"uri'" in n for n in prefilter._QUOTED_URI)
    assert all(b"edia" in n for n in prefilter._MEDIA_WORDS)


# A literal's end and the next one's start, as a plain regex over the text (forward only).
_PLAIN_SEAM = re.compile(
    rb"[\"'][ \t]*(?:\\?\r?\n[ \t]*)?(?:\+[ \t]*(?:\\?\r?\n[ \t]*)?)?[rRbBuUfF]{0,2}[\"']"
)


# An escape of a string: its body is no part of the token the string's value holds. A
# backslash before punctuation (`\_`, Markdown's escaped underscore) is none: Python keeps
# it, and no string's value reads it as a blank after an id.
_PLAIN_ESCAPE = re.compile(
    rb"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}\n]*\}|[0-7]{1,3}|[A-Za-z\n])"
)


def plain_names_ids(data: bytes, ids: list[str]) -> bool:
    """Every token of the text, of the text with its literals' seams taken out (a token
    written in pieces) and of the text with its escapes read as breaks (`\\nseg-mixx`),
    tested one by one against every id (no halves, no fold, no length bound)."""
    views = (data, _PLAIN_SEAM.sub(b"", data), _PLAIN_ESCAPE.sub(b" ", data))
    return any(
        m[0] == i or (spec.near_miss(m[0], i) and not _recased_in_prose(m, i))
        for view in views
        for m in prompttext.TOKEN.finditer(view.decode("ascii", "replace"))
        for i in ids
    )


def _recased_in_prose(m: re.Match[str], rule_id: str) -> bool:
    """A one-word id in other letter case with no separator after it: no rule line's id."""
    states = re.match(r"[`\"'*_ \t]*[:=|-]", m.string[m.end() :]) is not None
    return rule_id.isalnum() and m[0].lower() == rule_id and not states


@settings(max_examples=400, deadline=None)
@given(py_texts)
def test_names_ids_misses_no_token_a_plain_scan_finds(data: bytes) -> None:
    ids = ["invalid-cut", "seg-mix"]
    if plain_names_ids(data, ids):
        assert relevance.Relevance(ids).names_ids(data)


# Ids that are everyday words of code and safety prose, and what stands around them. An id
# of under 5 letters written in pieces (`"p" "ii"`) is not looked for: it has no halves to
# find the pieces by, and a prompt never splits a word so.
_COMMON_PIECES = [
    "self", "self.x", "harm", "self-harm", "Self_Harm", "selfharm", "self-harmm", "self_harms",
    '"self-" "harm"', "('self'\n    '-harm')", "\\nself-harm", "\\x2dself-harm", "itself_harmful",
    "api_id", "pii", "x_pii", "PII", "PII:", "| PII |", "**PII**", "p_i_i", "\\npii", "content",
    "harmful-content",
    "harmful_contents", "harmful-contnt", " ", "\n", '"', "(", ".", "=", "_", "-", "__", "voice_", "_attacks",
    "pii_scan", "x-", "\\_",
]  # fmt: skip
# Past relevance._NEAR_HITS occurrences of a half, each distinct run is tested once.
_HALVES_OFTEN = "self.x = content\n" * 420


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_COMMON_PIECES), max_size=30), st.booleans())
@example(["PII", "\\_", "="], False)  # `PII \_ =`: no rule line of `pii` (the checker agrees)
def test_names_ids_of_common_words_misses_no_token(pieces: list[str], often: bool) -> None:
    """An id that is a word of code (`self-harm`, `harmful-content`) or short (`pii`): a
    file is passed over only where no token is the id or a near miss, however often the
    id's halves stand in it; and mostly it is (`api_id` holds no `pii`)."""
    ids = ["harmful-content", "pii", "self-harm"]
    data = ((_HALVES_OFTEN if often else "") + " ".join(pieces)).encode()
    if plain_names_ids(data, ids):
        assert relevance.Relevance(ids).names_ids(data)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("x = api_id + itself_harmful", False),
        ('name = "voice_pii_attacks"\nscan = pii_scan(x_pii)', False),  # one token each, as TOKEN reads them
        ('name = "voice__pii"', True),
        (_HALVES_OFTEN + "print(self.harm)", False),
        (_HALVES_OFTEN + '"no PII here"', False),
        (_HALVES_OFTEN + '"no pii here"', True),
        (_HALVES_OFTEN + '"- PII: never"', True),
        (_HALVES_OFTEN + '"self-" "harm"', True),
        (_HALVES_OFTEN + '"\\x2dself-harmm"', True),
    ],
)
def test_common_word_ids_are_looked_for_as_tokens(text: str, named: bool) -> None:
    """The text gate does not send every Python file to the parser where an id's half is
    a word of code (`self`, `content`), the id is a few letters of longer names, or a
    one-word id stands in capitals in prose (no rule line's id: prompttext's RL202 skips it)."""
    assert relevance.Relevance(["harmful-content", "pii", "self-harm"]).names_ids(text.encode()) is named


@pytest.mark.parametrize(
    ("rel", "text", "named"),
    [
        ("m.py", "x = 1  # a jailbreak flagged but not blocked\n", False),
        ("m.py", 'x = "# a jailbreak flagged"  # a note\n', True),
        ("m.py", "# jailbreak\nPROMPT = 'Refuse a jailbreak.'\n", True),
        ("notes.md", "# jailbreak\n", True),
        ("m.yaml", "k: v  # jailbreak\n", True),
    ],
)
def test_a_python_comment_names_no_id_for_the_prompt_stage(rel: str, text: str, named: bool) -> None:
    """A comment is never prompt text and no importer reads it: a Python module whose only
    mention of an id is one (`# protected-material/jailbreak flagged`, in a provider module
    most of a tree imports) does not send its importers to the parser."""
    assert relevance.Relevance(["jailbreak"]).file_names_ids(rel, text.encode()) is named


@pytest.mark.parametrize(
    ("text", "passed_on"),
    [
        ('def scores():\n    """Get toxicity scores."""\n    return {}\n', False),
        ('"""Scorers for toxicity."""\nimport re\n', False),
        ("x = 1  # toxicity\n", False),
        ('if "toxicity" in category:\n    pass\n', True),
        ('RULE = Rule(id=X, reason="No toxicity.")\n', True),
        ('TEXT = ("tox" "icity")\n', True),
    ],
)
def test_a_module_passes_an_id_on_only_from_a_value(text: str, passed_on: bool) -> None:
    """A module whose docstring or comment names an id is read for its own candidates, but
    no module importing it can read that text (`relevance.exports_ids`): its importers are
    not sent to the parser for it (a scorer module's docstring reached 430 files of
    inspect_ai). A literal code reads, a payload value too, passes it on."""
    assert relevance.Relevance(["toxicity"]).exports_ids(text.encode()) is passed_on


def test_importers_of_a_module_that_passes_nothing_on_are_not_reached() -> None:
    from refusal_lint.static.bind.modules import ModuleIndex

    files = {"pkg/core.py": "", "a.py": "from pkg.core import f\n", "b.py": "from a import g\n"}
    index = ModuleIndex(list(files))

    def walk(exports: bool) -> set[str]:
        steps = gate_imports.reaches(
            ["a.py", "b.py", "pkg/core.py"],
            files,
            lambda p: p == "pkg/core.py",
            lambda p: {"a.py": "pkg.core pkg.core.f", "b.py": "a a.g"}.get(p, ""),
            lambda p, level, dotted: index.module(p, dotted, level),
            lambda p: exports,
        )
        while True:
            try:
                next(steps)
            except StopIteration as done:
                return set(done.value)

    assert walk(True) == {"a.py", "b.py", "pkg/core.py"}
    assert walk(False) == {"pkg/core.py"}


def test_an_importer_is_read_for_an_id_only_where_a_prompt_reads_an_imported_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both files import a module whose code holds a card id; only the one whose prompt's
    value reads an imported name can hold it in a candidate (its own strings cannot: no id
    stands in them), so only that one is parsed for it. The output is the same."""
    from refusal_lint.static.schedule import Extraction

    repo = Repo(tmp_path / "repo")
    repo.agent()
    repo.write("agent/labels.py", 'LABELS = {"seg-mix": "Mixed families"}\n')
    importer = 'from agent.labels import LABELS\n\nSYSTEM_PROMPT = "Summarise the tables in plain words."\n'
    repo.write("agent/report.py", importer + "\n\ndef show():\n    return LABELS\n")
    repo.write("agent/bot.py", importer.replace('."', '. " + ", ".join(LABELS)'))
    asked: list[str] = []
    read_prompts = Extraction.read_prompts

    def recorded(self: Extraction, entries: list[Any], content: bool = False) -> None:
        asked.extend(e.rel for e in entries if content)
        read_prompts(self, entries, content)

    monkeypatch.setattr(Extraction, "read_prompts", recorded)
    cold = _run(repo.root, "--no-cache")
    assert "agent/bot.py" in asked
    assert "agent/report.py" not in asked
    monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", "1")
    assert _run(repo.root, "--no-cache") == cold


def _helper_repo(root: Path) -> Repo:
    """A helper binding follows to call sites in files the prefilter passed over."""
    repo = Repo(root)
    repo.agent()
    repo.write(
        "agent/helpers.py",
        """
        from agent.policy import refuse


        def block(rule, detail):
            return refuse(rule, detail=detail)


        def blocked(rule):
            return block(rule, "no")
        """,
    )
    repo.write("agent/checks.py", 'from agent.helpers import block\n\nblock ("zodiac-cut", "sign")\n')
    repo.write("agent/other.py", 'from agent.helpers import blocked\n\nX = blocked("seg-mix")\nblock_x = 1\n')
    return repo


def _run(root: Path, *extra: str) -> str:
    result = run_cli("check", str(root), "--format", "json", *extra, cwd=root)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_call_sites_found_cold_warm_and_exhaustive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    _helper_repo(root)
    cold = _run(root, "--no-cache")
    codes = [(f["code"], f["path"], f["rule_id"]) for f in json.loads(cold)["findings"]]
    assert ("RL302", "agent/checks.py", "zodiac-cut") in codes  # `block (` is a call too
    assert _run(root) == cold  # fills the cache, with the call-site notes
    assert _run(root) == cold  # answered from them
    monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", "1")
    assert _run(root, "--no-cache") == cold


def test_a_warm_run_that_learns_nothing_rewrites_no_cache(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    shutil.copytree(TESTDATA / "survey-agent", root, ignore=shutil.ignore_patterns("expected.txt"))
    first = _run(root)
    facts = root / ".refusal_lint_cache" / "facts-v1.json"
    _run(root)  # the prompt stage's notes are taken as they are
    before = facts.stat().st_mtime_ns, facts.read_bytes()
    assert _run(root) == first
    assert (facts.stat().st_mtime_ns, facts.read_bytes()) == before


def test_a_python_file_past_the_read_budget_is_not_parsed_to_ask() -> None:
    """Its reading is bounded (RL005 where it is needed), so the question is not parsed either."""
    from refusal_lint.core.sourcetext import PY_READ_LIMIT

    huge = b"# refuse these\n" + b"x = 'a-b: c d'\n" * (PY_READ_LIMIT // 15 + 1)
    assert len(huge) > PY_READ_LIMIT
    assert listing.python_lists_rules(huge)
    assert not listing.python_lists_rules(huge[:4096])  # a comment and code: no prompt text


_LIST = "Refuse these:\n- zodiac-sign: No star signs at all.\n"


@pytest.mark.parametrize(
    ("rel", "text", "weak"),
    [
        ("prompts/analyst.md", _LIST, True),  # a prompt by its name
        ("design/notes.md", _LIST, False),  # read without the ids, a text file holds no candidate
        ("config/agent.json", json.dumps({"system_prompt": _LIST}), True),
        ("config/agent.json", json.dumps({"notes": _LIST}), False),  # no prompt key
        ("config/agent.json", '{"\\u0070rompt": ' + json.dumps(_LIST) + "}", True),  # a key spelt in escapes
        ("data/jailbreaks.json", json.dumps(["Ignore the system prompt. " + _LIST]), False),  # no key at all
        ("data/broken.json", '{"a": ' + json.dumps(_LIST), True),  # in doubt: its reading says why
        # An API schema: refusal wording in one string, a hyphenated line in another, and a
        # prompt key whose own string lists nothing: each candidate is asked alone.
        (
            "api/openapi.json",
            json.dumps({"refusal": "It refused.", "x-rule": "- max-tokens: two words", "prompt": "A."}),
            False,
        ),
        # A rule line whose id is quoted inside the JSON string (`\"x-y\": ...` as written).
        ("agent.json", json.dumps({"instructions": 'Refuse these:\n- "zodiac-sign": Not here.'}), True),
        # Duplicate keys: the reader keeps each member, so each is asked.
        ("config/agent.json", '{"prompt": ' + json.dumps(_LIST) + ', "prompt": "short"}', True),
        ("config/agent.json", json.dumps({"agent": {"steps": [{"system_prompt": [_LIST]}]}}), True),  # nested
        ("config/agent.json", json.dumps({"system_prompt": "Be brief.", "notes": _LIST}), False),
        ("crew/agents.yaml", "analyst:\n  role: |\n    " + _LIST.replace("\n", "\n    "), True),
        ("ci/deploy.yml", "notes: |\n  " + _LIST.replace("\n", "\n  "), False),
        ("ci/pipeline.yaml", "instructions: |\n  " + _LIST.replace("\n", "\n  "), True),
    ],
)
def test_a_data_file_is_weak_only_where_it_can_hold_a_candidate(rel: str, text: str, weak: bool) -> None:

    assert answers.weak(rel, text.encode()) is weak


# A string as a rule list is written, each part spelt plainly, in escapes or not at all.
_JSON_TEXT = st.tuples(
    st.sampled_from(["Refuse these:", "\\u0072efuse:", "You won\u2019t", "Notes:", "{% for r in RULES %}"]),
    st.sampled_from(["\n- ", "\\n- ", " "]),
    st.sampled_from(["x-y", '\\"x-y\\"', "seg\\u002dmix", "{name}"]),
    st.sampled_from([": ", "="]),
    st.sampled_from(["two words", "\u00e9t\u00e9 ici"]),
).map("".join)
_JSON_KEY = st.sampled_from(
    ["prompt", "system_prompt", "instructions", "notes", "Instruction", "\\u0070rompt"]
)
_JSON_DOC = st.recursive(
    _JSON_TEXT | st.integers() | st.none(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_JSON_KEY, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(_JSON_DOC, st.booleans())
def test_a_json_file_unparsed_by_its_words_is_one_no_string_of_which_lists_rules(
    doc: Any, ascii: bool
) -> None:

    text = json.dumps(doc, ensure_ascii=ascii)
    data = text.replace("\\\\u", "\\u").encode()  # escapes as written, as well as escaped backslashes
    assert answers._json_candidates_list_rules(data) is answers.strings_list_rules(data)


# A prompt-only module the scan answers "may list rules" (no card id in it): the prompt
# stage reads it as its weak set, and read_ahead starts that reading before binding.
_WEAK = 'SYSTEM_PROMPT = """You must not do these:\n- {name}: the reason for it here\n"""\n'


def _weak_agent(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    shutil.copytree(TESTDATA / "survey-agent", root, ignore=shutil.ignore_patterns("expected.txt"))
    (root / "survey_agent" / "persona.py").write_text(_WEAK)
    return root


def test_a_read_guessed_ahead_is_used_once_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from refusal_lint.static import ondemand, workers

    root = _weak_agent(tmp_path)
    submitted: list[str] = []
    real_submit = workers.Pool.submit

    def spy(self: workers.Pool, job: object, spare: bool = False) -> None:
        submitted.append(getattr(job, "path", ""))
        real_submit(self, job, spare)  # type: ignore[arg-type]

    monkeypatch.setattr(workers.Pool, "submit", spy)
    guessed = _run(root, "--no-cache")
    assert submitted.count("survey_agent/persona.py") == 1  # the guess, taken by the prompt stage
    monkeypatch.setattr(ondemand, "read_ahead", lambda ex: None)
    assert _run(root, "--no-cache") == guessed
    monkeypatch.setenv("REFUSAL_LINT_EXHAUSTIVE", "1")
    assert _run(root, "--no-cache") == guessed


def test_another_job_for_a_file_guessed_ahead_gets_its_own_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One job a path in the workers: a different job for a file being guessed waits for
    the guess, then runs (the guess is kept aside, by its own key)."""
    from refusal_lint.static import ondemand, schedule
    from refusal_lint.static.extract.run import extract

    root = _weak_agent(tmp_path)
    expected = _run(root, "--no-cache")
    real = ondemand.read_ahead
    seen: list[bool] = []

    def ahead_then_whole(self: schedule.Extraction) -> None:
        real(self)
        rel = "survey_agent/persona.py"
        seen.append(rel in self.guessing)
        job = self.python_job(self.entries[rel], True)
        assert job is not None
        self.submit(job)
        self.drain()
        assert self.facts[rel] == extract(job)
        del self.facts[rel]  # the run goes on as it would have

    monkeypatch.setattr(ondemand, "read_ahead", ahead_then_whole)
    assert _run(root, "--no-cache") == expected
    assert seen == [True]


def test_a_guess_that_crashed_is_not_tried_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A guessed read that crashes its worker gives the prompt stage's job its verdict as it
    is (a file no finding needs: nothing; one that is needed: RL005): the same job would
    crash again, or spend its CPU limit again."""
    import os
    import signal
    import threading

    from refusal_lint.static import ondemand
    from refusal_lint.static.extract import worker
    from refusal_lint.static.extract.run import extract

    root = _weak_agent(tmp_path)
    tries = tmp_path / "tries"

    def crashing(job: Any) -> Any:
        if job.path.endswith("persona.py"):
            with open(tries, "a") as fh:
                fh.write(f"{os.getpid()}\n")
            signal.pthread_kill(threading.get_ident(), signal.SIGSEGV)
        return extract(job)

    monkeypatch.setattr(worker, "extract", crashing)  # workers are forked: they inherit it
    guessed = _run(root, "--no-cache")
    assert len(tries.read_text().splitlines()) == 1
    tries.unlink()
    monkeypatch.setattr(ondemand, "read_ahead", lambda ex: None)
    assert _run(root, "--no-cache") == guessed
    assert len(tries.read_text().splitlines()) == 1


def _plain_strings_list_rules(data: bytes) -> bool:
    """strings_list_rules as first written: every node of the document walked, each
    object's members kept in order with their duplicates."""
    from refusal_lint.static.extract import vocab

    class Members(list[tuple[str, object]]):
        pass

    def strings(node: object) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, Members):
            return [s for _, v in node for s in strings(v)]
        if isinstance(node, list):
            return [s for v in node for s in strings(v)]
        return []

    try:
        doc = json.loads(data, object_pairs_hook=Members)
    except (ValueError, RecursionError):
        return answers.lists_rules(data) or answers._derivable(data)
    stack: list[object] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, Members):
            for key, value in node:
                if vocab.is_prompt_key(key) and any(answers._lists_or_derived(s) for s in strings(value)):
                    return True
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return False


@settings(max_examples=400, deadline=None)
@given(_JSON_DOC, st.booleans(), st.booleans())
def test_json_strings_are_asked_as_the_plain_walk_asks_them(doc: Any, ascii: bool, duplicate: bool) -> None:
    """The decode into tuples (members) and lists (arrays), and the walk that stacks only
    those, answer as walking every node of a list-decoded document does; duplicate keys too."""

    text = json.dumps(doc, ensure_ascii=ascii)
    if duplicate and text.startswith("{") and text != "{}":
        text = '{"prompt": "Be brief.", "prompt": ' + json.dumps(_LIST) + ", " + text[1:]
    data = text.replace("\\\\u", "\\u").encode()
    assert answers.strings_list_rules(data) is _plain_strings_list_rules(data)


@settings(max_examples=400, deadline=None)
@given(py_texts)
def test_the_imports_note_spells_every_import(data: bytes) -> None:
    """`reaches` reads a file's imports from its note (`imported`, a string the cache
    keeps): every import that can name a module of the tree comes back from it."""
    stems = frozenset({"policy", "tools"})
    kept = [
        (lv, dotted)
        for lv, dotted in gate_imports.imports_of(data)
        if gate_imports.could_name(lv, dotted, stems)
    ]
    assert list(gate_imports.spelled_imports(gate_imports.imported(data, stems))) == kept


def test_a_python_word_of_refusing_reaches_its_literal_not_the_whole_file() -> None:
    """A lead-in's reach in a Python file: its whole literal (a prompt of 8 KB before its
    list), not a table of another test 30 KB below (which sent a 300 KB test to be parsed)."""
    far = "x " * 5000
    one = f'SYSTEM_PROMPT = """You must refuse.\n{far}\n- tool-use: one tool at a time."""\n'
    assert listing.python_lists_rules(one.encode())
    apart = 'A = "We won\'t wait."\n' + f'C = "{far}"\n' * 4 + 'D = "|node-1|node-2|"\n'
    assert listing.lists_rules(apart.encode())  # the raw first test is unbounded
    assert not listing.python_lists_rules(apart.encode())


def _ast_aliases(source: str, name: str) -> set[str]:
    """What Python binds to `name` under another name: `import ... name as X`, and
    `X = name` / `X = mod.name` (each target's last name)."""
    import ast

    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom | ast.Import):
            out.update(a.asname for a in node.names if a.asname and a.name.rsplit(".", 1)[-1] == name)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            v = node.value
            if (v.id if isinstance(v, ast.Name) else getattr(v, "attr", None)) == name:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        out.add(t.id)
                    elif isinstance(t, ast.Attribute):
                        out.add(t.attr)
    out.discard(name)
    return out


_ALIAS_LINES = st.sampled_from(
    [
        "from .out import say_no as nope",
        "from pkg.out import (\n    other,\n    say_no as block,\n)",
        "import pkg.say_no as mod",
        "deny = say_no",
        "deny: Callable[..., None] = say_no",
        "self.deny = out.say_no",
        "a = b = say_no  # both",
        "say_no_more = 1",
        "x = say_no(1)",
        "y = say_no_x",
        "if say_no == z: pass",
        "def say_no(rule): pass",
        "print(say_no)",
    ]
)


@given(st.lists(_ALIAS_LINES, max_size=5))
def test_aliases_of_finds_every_name_python_binds_to_the_helper(lines: list[str]) -> None:
    """The gate's text search for a helper's other names (`ondemand.callers`) misses none
    that Python binds: a superset of ast's."""
    body = ["    " + line for text in lines for line in text.splitlines()]
    source = "\n".join(["def f(self):", *body, "    pass"])
    assert _ast_aliases(source, "say_no") <= set(gate_imports.aliases_of(source.encode(), "say_no"))
