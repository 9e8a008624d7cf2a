"""What the Python extractor records and what the binder makes of it, as tables of
snippets and expected facts (Fixit's VALID/INVALID style): a change to extraction or
binding shows up here first, not only as a diff in some expected.txt."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from refusal_lint.core.facts import CallV, Each, FileFacts, Fmt, Fn, Ref, Str
from refusal_lint.static.bind.guards.bound import bind_guard
from refusal_lint.static.bind.guards.ids import GuardIds
from refusal_lint.static.bind.modules import ModuleIndex
from refusal_lint.static.bind.resolve import Resolver
from refusal_lint.static.extract.python import visitor as python


def facts(source: str, path: str = "agent/tools.py") -> FileFacts:
    return python.extract(path, textwrap.dedent(source))


def fired(files: dict[str, str], ids: set[str] | None = None) -> list[tuple[str, str | None, int]]:
    """(status, rule id, line) of every bound guard of a repo of `files`."""
    all_facts = {p: facts(src, p) for p, src in files.items()}
    res = Resolver(all_facts, ModuleIndex(all_facts))
    guard_ids = GuardIds(res, all_facts.values())
    out = []
    for f in all_facts.values():
        for g in f.guards:
            out += [(b.status, b.rule_id, b.loc.line) for b in bind_guard(res, guard_ids, g, ids or set())]
    return sorted(set(out), key=lambda t: (t[2], t[1] or ""))


# ---- extraction: prompts ---------------------------------------------------------------------

PROMPTS = [
    ('SYSTEM_PROMPT = "You are the analyst."', "assignment", "SYSTEM_PROMPT"),
    (
        'class A:\n    def __init__(self):\n        self._system_prompt = "You are the analyst."',
        "assignment",
        "_system_prompt",
    ),
    ('Agent(instruction="You are the analyst.")', "keyword", "instruction="),
    ('Agent(backstory="You have run audience research.")', "keyword", "backstory="),
    ('CONFIG = {"system_prompt": "You are the analyst."}', "dict-entry", '"system_prompt"'),
    ('agent.prompt_templates["system_prompt"] = "You are the analyst."', "dict-entry", '"system_prompt"'),
    ('def f(t):\n    t["instructions"] += "Refuse these."', "dict-entry", '"instructions"'),
    ('msgs = [{"role": "system", "content": "You are the analyst."}]', "chat-message", 'role="system"'),
    (
        'p = ChatPromptTemplate.from_messages([("system", "You are the analyst.")])',
        "chat-message",
        "(system, ...)",
    ),
    ('m = SystemMessage(content="You are the analyst.")', "chat-message", "SystemMessage"),
    ('m = [Messages.System("You are the analyst.")]', "chat-message", "System"),  # Mirascope
    ('@agent.system_prompt\ndef rules(ctx):\n    return "You are the analyst."', "prompt-function", "@rules"),
]


@pytest.mark.parametrize(("source", "form", "origin"), PROMPTS, ids=[p[1] + ":" + p[2] for p in PROMPTS])
def test_prompt_shapes_are_recorded(source: str, form: str, origin: str) -> None:
    found = [(p.form, p.source) for p in facts(source).py_prompts]
    assert (form, origin) in found


def test_values_are_kept_symbolic() -> None:
    f = facts(
        """
        TEMPLATE = "You are the {name} analyst."
        FILLED = TEMPLATE.format(name="survey")

        def build(rule, detail=None):
            return refuse(rule, detail=detail)

        class Check(NamedTuple):
            rule: str
            hit: object
        """
    )
    defs = dict(f.defs)
    assert isinstance(defs["FILLED"], Fmt)
    assert isinstance(defs["build"], Fn) and defs["build"].params == ("rule", "detail")
    check = defs["Check"]
    assert check == Fn("agent/tools.py", "Check", "class", ("rule", "hit"), (), (), check.loc, check.bases)
    assert [b.name for b in check.bases if isinstance(b, Ref)] == [
        "NamedTuple"
    ]  # no __init__: its base's builds it


def test_loop_variables_and_calls() -> None:
    f = facts(
        """
        def check(q):
            for rule, hit in POLICIES.items():
                refuse(rule)
            x = compute(q)
            refuse(x)
        """
    )
    loop, computed = f.guards
    assert isinstance(loop.rule, Each) and (loop.rule.mode, loop.rule.index) == ("items", 0)
    assert isinstance(computed.rule, CallV)


def test_card_given_the_extension_twice_is_one_card() -> None:
    f = facts(
        """
        caps = AgentCapabilities(extensions=[AgentExtension(uri=U, params=R)])
        card = AgentCard(name="A", capabilities=caps)
        card.capabilities.extensions.append(AgentExtension(uri=U, params=R))
        """
    )
    first, second = f.py_exts
    assert first.card == second.card and first.agent_name == "A"


# ---- binding: which ids a guard fires --------------------------------------------------------


BINDING = [
    ("a library callee: the first positional", {"t.py": 'refuse("seg-mix")'}, [("id", "seg-mix", 1)]),
    ("prose is never an id", {"t.py": 'get_refusal_message("I cannot help.")'}, []),
    (
        "a repo callee binds by its rule parameter",
        {"t.py": 'def refuse(updater, rule):\n    pass\n\nrefuse(u, "seg-mix")'},
        [("id", "seg-mix", 4)],
    ),
    (
        "a repo callee without one is no guard",
        {"t.py": 'def refusal(model, token=None):\n    return 1\n\nrefusal("primary-model", "t")'},
        [],
    ),
    (
        "a helper is followed to its call sites",
        {
            "h.py": "def emit(updater, which):\n    return refuse(which)\n",
            "t.py": 'from h import emit\n\nemit(u, "seg-mix")\nemit(u, "invalid-cut")',
        },
        [("id", "seg-mix", 3), ("id", "invalid-cut", 4)],
    ),
    (
        "a helper no call site feeds is pass-through (no finding)",
        {"t.py": "def emit(which):\n    return refuse(which)"},
        [("passthrough", None, 2)],
    ),
    (
        "a table fires each key",
        {"t.py": 'P = {"seg-mix": 1, "invalid-cut": 2}\nfor r, h in P.items():\n    refuse(r)'},
        [("id", "invalid-cut", 3), ("id", "seg-mix", 3)],
    ),
    (
        "a list of repo-class checks fires each rule field",
        {
            "t.py": 'class C(NamedTuple):\n    rule: str\n\nCHECKS = [C("seg-mix"), C("invalid-cut")]\n'
            "for c in CHECKS:\n    raise RefusalError(c.rule)"
        },
        [("id", "invalid-cut", 6), ("id", "seg-mix", 6)],
    ),
    *(
        (
            f"a check class made by {made} fires each rule field",
            {
                "t.py": f"C = {made}\n"
                'CHECKS = [C("seg-mix", 1), C("invalid-cut", 2)]\nfor c in CHECKS:\n    refuse(c.rule)'
            },
            [("id", "invalid-cut", 4), ("id", "seg-mix", 4)],
        )
        for made in (
            'namedtuple("C", ["rule", "hit"])',
            'namedtuple("C", "rule, hit")',
            'collections.namedtuple("C", field_names=("rule", "hit"))',
            'NamedTuple("C", [("rule", str), ("hit", int)])',
        )
    ),
    (
        "a namedtuple whose fields are computed is no known class",
        {"t.py": 'C = namedtuple("C", FIELDS)\nfor c in [C("seg-mix", 1)]:\n    refuse(c.rule)'},
        [("unresolved", None, 3)],
    ),
    (
        "a table looked up by a run-time key fires each of its ids",
        {"t.py": 'L = {"A": "seg-mix", "B": "invalid-cut"}\ndef f(label):\n    refuse(L[label])'},
        [("id", "invalid-cut", 3), ("id", "seg-mix", 3)],
    ),
    (
        "a table of reasons looked up is no id",
        {"t.py": 'R = {"seg-mix": "Not crossed."}\ndef f(rule):\n    refuse(R[rule])'},
        [("unresolved", None, 3)],
    ),
    (
        "a local bound once to a conditional fires each choice",
        {"t.py": 'def f(k):\n    rule = "seg-mix" if k else "invalid-cut"\n    refuse(rule)'},
        [("id", "invalid-cut", 3), ("id", "seg-mix", 3)],
    ),
    ("a run-time id is unresolved", {"t.py": "def f(q):\n    refuse(pick(q))"}, [("unresolved", None, 2)]),
    (
        "except-as stays pass-through, at module level too",
        {"t.py": "try:\n    x()\nexcept E as exc:\n    refuse(exc.rule)"},
        [("passthrough", None, 4)],
    ),
]


@pytest.mark.parametrize(("why", "files", "want"), BINDING, ids=[b[0] for b in BINDING])
def test_binding(why: str, files: dict[str, str], want: list[tuple[str, Any, int]]) -> None:
    assert fired(files) == want


def test_string_id_resolves_through_a_constant() -> None:
    f = facts('SEG = "seg-mix"\nrefuse(SEG)')
    assert f.guards[0].rule != Str("seg-mix", f.guards[0].loc)  # kept symbolic at extraction
    assert fired({"t.py": 'SEG = "seg-mix"\nrefuse(SEG)'}) == [("id", "seg-mix", 2)]


def test_a_finding_names_the_id_bound_to_the_rule_parameter() -> None:
    """`refuse("other", "seg-mix")` with `def refuse(a, rule)` fires seg-mix, and says so."""
    from refusal_lint.core.model import Loc, Rule, RuleSet
    from refusal_lint.static.checks import guards as guard_checks

    source = 'def refuse(a, rule):\n    pass\n\nrefuse("other", "seg-mix")'
    all_facts = {"t.py": facts(source, "t.py")}
    res = Resolver(all_facts, ModuleIndex(all_facts))
    bound = [
        b
        for g in all_facts["t.py"].guards
        for b in bind_guard(res, GuardIds(res, all_facts.values()), g, set())
    ]
    card = RuleSet(Loc("c.json"), (Rule("invalid-cut", "r", Loc("c.json", 2)),), usable=True)
    rl302 = [f for f in guard_checks.check_guards(card, bound, []) if f.code == "RL302"]
    assert [(f.rule_id, f.loc.line) for f in rl302] == [("seg-mix", 4)]
    assert "`seg-mix`" in rl302[0].message


# ---- binding: a card's params ----------------------------------------------------------------

_CARD = 'AgentExtension(uri="https://standards.upperhandai.com/ext/refusals/v1", params=PARAMS)\n'
_ROWS = (
    "from dataclasses import dataclass\n@dataclass\nclass Rule:\n    id: str\n    reason: str\n"
    'ROWS = [Rule("a-b", "Refused."), Rule(id="c-d", reason="Also refused.")]\n'
)
CARD_PARAMS = [
    ("literal", 'PARAMS = {"a-b": "Refused."}', ("a-b",)),
    ("spread", 'A = {"a-b": "Refused."}\nPARAMS = {**A, "c-d": "Also."}', ("a-b", "c-d")),
    ("union", 'A = {"a-b": "Refused."}\nB = {"c-d": "Also."}\nPARAMS = A | B', ("a-b", "c-d")),
    # Left-deep: past the nesting a spread follows, were the chain read as written.
    ("long union", 'A = {"a-b": "R."}\nZ = {"c-d": "A."}\nPARAMS = A' + " | {}" * 8 + " | Z", ("a-b", "c-d")),
    ("dict call", 'A = {"a-b": "Refused."}\nPARAMS = dict(A, **{"c-d": "Also."})', ("a-b", "c-d")),
    ("dict keywords", 'A = {"a-b": "Refused."}\nPARAMS = dict(**A, c_d="Also.")', ("a-b", "c_d")),
    ("comprehension", _ROWS + "PARAMS = {r.id: r.reason for r in ROWS}", ("a-b", "c-d")),
    ("of a dict", 'A = {"a-b": "R."}\nPARAMS = {k: v for k, v in A.items()}', ("a-b",)),
    ("filtered", _ROWS + "PARAMS = {r.id: r.reason for r in ROWS if r.id}", None),
    ("over a call", "PARAMS = {r.id: r.reason for r in load()}", None),
    ("two loops", _ROWS + "PARAMS = {r.id: s.reason for r in ROWS for s in ROWS}", None),
]


@pytest.mark.parametrize(("why", "source", "ids"), CARD_PARAMS, ids=[c[0] for c in CARD_PARAMS])
def test_card_params_read_as_the_dict_they_build(why: str, source: str, ids: tuple[str, ...] | None) -> None:
    """The rule ids a Python card's params give (None: computed at run time, unresolved)."""
    from refusal_lint.core.kinds import ParamsKind
    from refusal_lint.static.bind.bound import py_ext_decl

    found = facts(source + "\n" + _CARD, "agent/card.py")
    res = Resolver({found.path: found}, ModuleIndex({found.path: found}))
    decl = py_ext_decl(res, found.py_exts[0])
    assert decl is not None
    got = None if decl.params_kind == ParamsKind.UNRESOLVED else tuple(i.key for i in decl.items)
    assert got == ids


def test_a_call_of_os_system_is_no_prompt() -> None:
    """`os.system(...)` runs a shell: its prose argument is no system prompt (a class named
    `System`, Mirascope's `Messages.System`, takes one)."""
    assert facts('import os\nos.system("rm -rf build and dist")\n').py_prompts == ()
