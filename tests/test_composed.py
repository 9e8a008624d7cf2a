"""gate/composed's text questions are supersets of what binding and prompttext do: a string
that can lead in a rule list which a later value gives is `dangling`; the statement found
for a string holds the statement `ast` finds; and the names `leads` gives hold every name
read after a dangling string in its statement."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT, TESTDATA
from hypothesis import example, given, settings
from hypothesis import strategies as st

from refusal_lint.core import prompttext
from refusal_lint.core.model import PromptLine
from refusal_lint.static.gate import treenames
from refusal_lint.static.gate.composed import leadins, passed, reach, statements
from refusal_lint.static.gate.text import shapes
from refusal_lint.static.gate.text.listing import refusing_spans

_LEAD_BITS = [
    "Refuse these:", "You must refuse", "## Refusals", "We won't compute", "Decline:", "refusal",
    "\n", "\n\n", "text", ":", "{extra}", "  ", "- seg-mix: A rule.", "Note:", "x-y", "#",
]  # fmt: skip
_RULES = ["- zodiac-sign: No.", "\n- zodiac-sign: No star signs.", "\n\n- zodiac-sign: No.", "`zodiac-sign`"]


def _lines(text: str) -> tuple[PromptLine, ...]:
    return tuple(PromptLine(t, i + 1) for i, t in enumerate(text.split("\n")))


def _listed_after(lead: str, rules: str) -> bool:
    """Does prompttext read `zodiac-sign` as a listed unknown id in lead + rules, the
    listing led in by `lead` (the same rules alone list nothing)? A lead that names a card
    id is read for that (relevance.names_ids), whatever it leads in."""
    if "seg-mix" in lead:
        return False
    found = {u.token for u in prompttext.unknown_ids(_lines(lead + rules), ["seg-mix"])}
    alone = {u.token for u in prompttext.unknown_ids(_lines(rules), ["seg-mix"])}
    return "zodiac-sign" in found - alone


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_LEAD_BITS), min_size=1, max_size=8), st.sampled_from(_RULES))
@example(["Refuse these:", "\n"], "- zodiac-sign: No.")
@example(["## Refusals", "\n\n", "text", "\n\n"], "- zodiac-sign: No.")
@example(["Refuse these:", "\n\n"], "- zodiac-sign: No.")
@example(["text", "\n", "You must refuse"], "\n- zodiac-sign: No star signs.")
def test_a_lead_in_a_later_value_completes_is_dangling(bits: list[str], rules: str) -> None:
    lead = "".join(bits)
    if _listed_after(lead, rules):
        assert leadins.dangling(lead.encode())
        assert leadins.dangling(lead.replace("\n", "\\n").encode())  # as a one-line literal spells it


def test_a_closed_lead_in_is_not_dangling() -> None:
    assert not leadins.dangling(b"Refuse these:\n- seg-mix: A rule.\n\nThen answer politely.")
    assert not leadins.dangling(b"The model refused.\n\nRetry later.")
    assert not leadins.dangling(b"nothing of the kind here")


_SOURCES = sorted(p for base in (TESTDATA, ROOT / "refusal_lint", ROOT / "tests") for p in base.rglob("*.py"))


def _offsets(data: bytes) -> list[int]:
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _source(path: Path) -> tuple[bytes, ast.Module, list[int], statements.Code]:
    """A source file's bytes, ast, line offsets and Code (skipped where this CPython can't
    read it)."""
    data = path.read_bytes()
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):  # ValueError: a NUL byte, on early 3.11 releases
        pytest.skip("not Python the running CPython reads")
    return data, tree, _offsets(data), statements.Code(data)


def _simple_statements(tree: ast.AST) -> list[ast.stmt]:
    compound = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match)
    blocks = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and not isinstance(n, compound + blocks)]


@pytest.mark.parametrize("path", _SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_statements_and_names_hold_what_ast_finds(path: Path) -> None:
    """For each string of a simple statement: the statement found holds ast's, and every
    name ast reads after the string in it is among the names `_Code.names` gives."""
    _data, tree, at, code = _source(path)
    for stmt in _simple_statements(tree):
        begin = at[stmt.lineno - 1] + stmt.col_offset
        end = at[stmt.end_lineno - 1] + stmt.end_col_offset  # type: ignore[operator]
        for node in ast.walk(stmt):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            pos = at[node.lineno - 1] + node.col_offset
            i = code.token_at(pos)
            if i < 0 or code.starts[i] != pos:
                continue  # an f-string's part, or an implicitly joined piece: not a token start
            first, last = code.statement(pos)
            assert first <= begin and end <= last, (stmt.lineno, first, last, begin, end)
            read = {
                n.id
                for n in ast.walk(stmt)
                if isinstance(n, ast.Name) and at[n.lineno - 1] + n.col_offset >= code.ends[i]
            }
            assert read <= {n.split(".", 1)[0] for n in code.names(code.ends[i], last)}


_PY_BITS = [
    'LEAD = "Refuse these:\\n"\n', "RULES = '- zodiac-sign: No.'\n", "PROMPT = LEAD + RULES\n",
    'PROMPT = f"You must refuse:\\n{RULES}"\n', 'P = "\\n".join([\n    "Decline:",\n    EXTRA,\n])\n',
    "class A:\n    R = RULES\n\n    def f(self):\n        self.p = 'Refuse:\\n' + self.R\n",
    "def g():\n    lead = 'refuse:\\n'\n    return lead + OTHER\n", "x = (1,\n  2)\n", "# refuse: C\n",
    "y = [LEAD,\n     MORE]\n", 'Q = f"{LEAD}{RULES}"\n', "R = f'x {y} {LEAD.strip()} and {TAIL}'\n",
    "z = 'x' \\\n    + TAIL\n",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PY_BITS), min_size=1, max_size=8))
def test_leads_holds_every_name_read_after_a_dangling_string(bits: list[str]) -> None:
    """The oracle: ast's statements, the names read after a dangling string in its own, and
    after each read of a name its statement assigns (in any statement of the file)."""
    data = "".join(bits).encode()
    tree = ast.parse(data)
    at = _offsets(data)
    got = {n.split(".", 1)[0] for n in leadins.leads(data, refusing_spans(data))}
    stmts = _simple_statements(tree)

    def pos(n: ast.AST) -> int:
        return at[n.lineno - 1] + n.col_offset  # type: ignore[attr-defined,no-any-return]

    for stmt in stmts:
        for node in ast.walk(stmt):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            raw = data[pos(node) : at[node.end_lineno - 1] + node.end_col_offset]  # type: ignore[operator]
            if not leadins.dangling(leadins._body(raw)):
                continue
            after = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and pos(n) > pos(node)}
            assert after <= got
            targets = stmt.targets if isinstance(stmt, ast.Assign) else []
            names = {
                t.id if isinstance(t, ast.Name) else t.attr
                for t in targets
                if isinstance(t, ast.Name | ast.Attribute)
            }
            for other in stmts:
                reads = [
                    n
                    for n in ast.walk(other)
                    if other is not stmt
                    and isinstance(n, ast.Name | ast.Attribute)
                    and (n.id if isinstance(n, ast.Name) else n.attr) in names
                ]
                for r in reads:
                    assert {
                        n.id for n in ast.walk(other) if isinstance(n, ast.Name) and pos(n) > pos(r)
                    } <= got


def _module_bindings(body: list[ast.stmt]) -> set[str]:
    """The names binding's defs hold for a module: assigned (a plain name target) or a
    class, in its body or a compound statement's there, not in a `def` or `class`."""
    out: set[str] = set()
    for stmt in body:
        if isinstance(stmt, ast.ClassDef):
            out.add(stmt.name)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            out.update(t.id for t in targets if isinstance(t, ast.Name))
        elif not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for inner in getattr(stmt, field, []):
                    out |= _module_bindings(
                        inner.body if isinstance(inner, ast.excepthandler | ast.match_case) else [inner]
                    )
    return out


@pytest.mark.parametrize("path", _SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_top_names_hold_every_module_level_binding(path: Path) -> None:
    """The gates' module-level names (reach.top_names and reach.module_names from the
    text, treenames.module_names from ast) hold every name binding defines there: in a
    module-level `if`, `try`, `with`, loop or `match` too."""
    data, tree, _, _ = _source(path)
    bound = _module_bindings(tree.body)
    assert bound <= set(reach.top_names(data))
    assert bound <= treenames.module_names(tree)
    assert bound <= reach.module_names(data)


_MODULE_BITS = [
    "RULES = 'x'\n",
    "def f():\n    LOCAL = 1\n    return LOCAL\n",
    "if X:\n    A = 1\nelse:\n    B: str = ''\n",
    "try:\n    from m import C\nexcept ImportError:\n    C = None\nfinally:\n    D = 2\n",
    "x = 1; E = 2\n",
    "class K:\n    ATTR = 1\n",
    "with open(p) as fh:\n    F = fh.read()\n",
    "for i in range(3):\n    G = i\n",
    "if Y:\n    def g():\n        H = 1\n    I = 2\n",
    "match Z:\n    case 1:\n        J = 3\n",
    "s = \'\'\'\nL = 1\n\'\'\'\n",
    "async def h():\n    M = 1\n",
    "N = (\n    1,\n)\n",
    "while W:\n    O = 1\n    break\n",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_MODULE_BITS), min_size=1, max_size=8))
def test_top_names_of_built_modules(bits: list[str]) -> None:
    data = "".join(bits).encode()
    names = set(reach.top_names(data))
    tree = ast.parse(data)
    bound = _module_bindings(tree.body)
    assert bound <= names
    assert bound <= treenames.module_names(tree)
    assert bound <= reach.module_names(data)
    assert not names & {"LOCAL", "H", "M"}  # a def's own names are not the module's


@pytest.mark.parametrize("path", _SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_block_holds_its_whole_def_or_class(path: Path) -> None:
    """Code.block, from a `def` or `class` line, reaches at least as far as ast's node
    (a header that spans lines included), and an outer block holds each statement of its
    body."""
    _data, tree, at, code = _source(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            head = at[node.lineno - 1]
            end = at[node.end_lineno - 1] + node.end_col_offset  # type: ignore[operator]
            assert code.block(head) >= end, node.lineno
            outer = code.outer_blocks()
            for stmt in node.body:
                line = at[stmt.lineno - 1]
                assert stmt.lineno == node.lineno or any(h < line < e for h, e in outer), stmt.lineno


def test_past_the_budget_a_file_is_read_in_doubt() -> None:
    """A generated table of lead-ins (one name each) costs one pass per name up to the
    budget; past it the file is simply read."""
    few = "".join(f'LEAD_{i} = "Refuse these:\\n"\nP_{i} = LEAD_{i} + RULES_{i}\n' for i in range(3))
    assert leadins.leads(few.encode(), refusing_spans(few.encode())) == ["RULES_0", "RULES_1", "RULES_2"]
    many = "".join(f'LEAD_{i} = "Refuse these:\\n"\n' for i in range(leadins.READS_BUDGET + 1))
    assert leadins.leads(many.encode(), refusing_spans(many.encode())) == [leadins.IN_DOUBT]


@pytest.mark.parametrize("path", _SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_statements_scope_is_its_innermost_def_or_class(path: Path) -> None:
    """Code.scope of a simple statement: the innermost def or class ast puts it in (from
    its header's line to at least its end), or the whole text at module level."""
    data, tree, at, code = _source(path)
    blocks = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

    def visit(node: ast.AST, inner: ast.AST | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt) and not isinstance(child, blocks) and child.lineno > 1:
                head, end = code.scope(at[child.lineno - 1])
                if inner is None:
                    assert (head, end) == (0, len(data)), child.lineno
                else:
                    assert head == at[inner.lineno - 1], child.lineno  # type: ignore[attr-defined]
                    assert end >= at[inner.end_lineno - 1] + inner.end_col_offset  # type: ignore[attr-defined,operator]
            visit(child, child if isinstance(child, blocks) else inner)

    visit(tree, None)


_BINDING_BITS = [
    *_PY_BITS, "A = B = LEAD\n", "T: str = RULES\n", "x = 1; LEAD = 'y'\n", "class LEAD:\n    RULES = 1\n",
    "if X:\n    RULES = 'a'\nelse:\n    RULES = 'b'\n", "def h():\n    s = '''\nLEAD = 1\n'''\n",
    "LEAD += MORE\n", "f(LEAD=1)\n", "LEADS = 2\n", "xRULES = 3\n", "def LEAD():\n    pass\n",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_BINDING_BITS), min_size=1, max_size=8))
def test_bound_at_finds_what_top_names_finds(bits: list[str]) -> None:
    """reach.bound_at looks for one name's bindings where top_names finds them all."""
    data = "".join(bits).encode()
    top = reach.top_names(data)
    for name in {*top, "LEAD", "RULES", "MORE", "X", "s", "x", "A", "B", "T"}:
        assert reach.bound_at(data, name) == top.get(name, []), name
        assert reach.bound_lines(data, name) == top.get(name, []), name


@pytest.mark.parametrize("path", _SOURCES[::7], ids=lambda p: str(p.relative_to(ROOT)))
def test_bound_at_agrees_with_top_names_on_real_code(path: Path) -> None:
    data = path.read_bytes()
    top = reach.top_names(data)
    for name in sorted(top)[:200]:
        assert reach.bound_at(data, name) == top[name], name


_IMPORTED = "from bot.policy import POLICY, LEAD\nfrom agents import Agent\n\n"


@pytest.mark.parametrize(
    ("code", "need", "names"),
    [
        ('a = Agent(name="x", instructions=POLICY, tools=[LEAD])\n', "listed refusing", ["POLICY"]),
        ('a = Agent(instructions="Refuse:\\n" + POLICY)\n', "listed", ["POLICY"]),
        ('SYSTEM_PROMPT = LEAD + "- zodiac-sign: No."\n', "refusing", ["LEAD"]),
        ("m = SystemMessage(content=textwrap.dedent(POLICY))\n", "listed refusing", ["POLICY"]),
        ('m = [{"role": "system", "content": POLICY.format(x=1)}]\n', "listed refusing", ["POLICY"]),
        ("def f():\n    text = POLICY\n    return Agent(instructions=text)\n", "listed refusing", ["POLICY"]),
        (
            "def f():\n    base: str = dedent(POLICY).strip()\n    text = f'Hi.\\n{base}'\n"
            "    return Agent(instructions=text)\n",
            "listed refusing",
            ["POLICY"],
        ),
        (
            "BASE = LEAD + POLICY\ndef f():\n    return Agent(instructions=BASE)\n",
            "listed refusing",
            ["BASE", "LEAD", "POLICY"],
        ),
        (
            "def f():\n    t = LEAD\n    def g():\n        return Agent(instructions=t)\n    return g\n",
            "listed refusing",
            ["LEAD"],
        ),
        # Binding reads no text from another call's result (a placeholder stands for it): a
        # known gap for a helper (`build`), and a long function's flow not sent to the parser.
        ("def f():\n    text = build(POLICY)\n    return Agent(instructions=text)\n", None, []),
        ("async def f():\n    text = await ask(POLICY)\n    return Agent(instructions=text)\n", None, []),
        (
            "def f(u):\n    text = POLICY + ask(u).strip()\n    return Agent(instructions=text)\n",
            "listed refusing",
            ["POLICY"],
        ),
        (
            "def f(c):\n    text = LEAD if c else ''\n    return Agent(instructions=text)\n",
            "listed refusing",
            ["LEAD", "c"],
        ),
        # A call's keyword argument assigns no local.
        (
            "def f(text):\n    g(\n        text=POLICY,\n    )\n    return Agent(instructions=text)\n",
            None,
            [],
        ),
        ("a = Agent(instructions=build(LEAD), model=POLICY)\n", "listed refusing", ["LEAD", "build"]),
        # A prompt function called: its callee, as binding reads its returns.
        ("a = Agent(instructions=await self.render(x))\n", None, []),  # no method `render` here
        (
            "class A:\n    def render(self, x):\n        return LEAD\n\n"
            "    async def go(self, x):\n        return Agent(instructions=await self.render(x))\n",
            "listed refusing",
            ["LEAD", "self.render", "x"],
        ),
        ("a = Agent(instructions=dedent(LEAD))\n", "listed refusing", ["LEAD"]),
        ("a = Agent(instructions=TEXT)\n", None, []),  # its own module's: relevance reads it
        (
            "RULES = POLICY\na = Agent(instructions=LEAD2 + RULES)\n",
            "listed refusing",
            ["LEAD2", "POLICY", "RULES"],
        ),
        (
            "def f():\n    items = '- raw-export: No.'\n    return Agent(instructions=LEAD + items)\n",
            "refusing",
            ["LEAD"],
        ),
        ("def f(x):\n    y = x.strip()\n    return Agent(instructions=y)\n", None, []),  # a parameter
        ("def f():\n    return Agent(instructions=TEXT)\n", None, []),  # nothing imported
        ("def f():\n    for p in ps:\n        Agent(instructions=p)\n", None, []),
        ("a = Agent(name=POLICY)\n", None, []),
        ('x = 1\n"""Agent(instructions=POLICY) in a docstring"""\n', None, []),
        ("def f():\n    p = 'You help.'\n    return Agent(instructions=p)\n", None, []),
    ],
)
def test_passed_names_are_those_of_a_prompt_value_reading_an_imported_name(
    code: str, need: str | None, names: list[str]
) -> None:
    """composed/passed.py: the names a value reads (not a callee, a keyword's name, another
    argument) where one is imported, or, at the module's level, leads to one through the
    module's constants; by what the value's own text lacks."""
    data = (_IMPORTED + code).encode()
    found = passed.passed(data, [*shapes.prompt_shapes(data)])
    assert found == ({need: names} if need else {})


@pytest.mark.parametrize(
    ("code", "attrs"),
    [
        ("class A:\n    RULES = 'x'\n    P = LEAD + RULES\n", ["A.RULES"]),
        ("class A:\n    def f(self):\n        RULES = 'x'\n", []),  # a local of a method
        ("RULES = 'x'\nclass A:\n    pass\n", []),  # the module's own
        ("class A:\n    '''\n    RULES = 1\n    '''\nclass B:\n    RULES: str = 'y'\n", ["B.RULES"]),
        ("class A:\n    MY_RULES = 1\nclass B:\n    RULES += 'z'\n", ["B.RULES"]),
    ],
)
def test_class_attrs_are_the_classes_whose_body_assigns_the_name(code: str, attrs: list[str]) -> None:
    assert reach.class_attrs(code.encode(), "RULES") == attrs
