"""A YAML prompt in a folded block scalar (`>`, CrewAI's usual style) is read as written; a
template prompt is derived only from a placeholder that may hold every rule."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refusal_lint.core.kinds import ValueKind
from refusal_lint.static.extract.data import yamlsafe
from refusal_lint.static.extract.data.prompts import CARD_KEYS, card_keys, data_prompts, may_derive
from refusal_lint.static.extract.data.prompts import derived as is_derived
from refusal_lint.static.extract.data.tree import TNode


def _backstory(text: str) -> TNode:
    lines = text.splitlines()
    (doc,) = yamlsafe.compose_all(text)
    root = yamlsafe.to_tree(doc, "agents.yaml", lines=lines)
    member = root.items[0][1].get("backstory")
    assert member is not None
    return member[1]


_WORD = st.text(alphabet="abcdefghij-:", min_size=1, max_size=8).filter(lambda w: w[0] not in "-:")
_LINE = st.lists(_WORD, min_size=1, max_size=5).map(" ".join)


@given(st.lists(_LINE, min_size=1, max_size=6), st.sampled_from([">", ">-", ">+"]), st.integers(2, 6))
def test_a_folded_scalar_is_its_lines_as_written_and_folds_to_yamls_value(
    lines: list[str], indicator: str, indent: int
) -> None:
    pad = " " * indent
    text = (
        f"analyst:\n  backstory: {indicator}\n"
        + "".join(f"  {pad}{line}\n" for line in lines)
        + "  role: x\n"
    )
    node = _backstory(text)
    assert node.kind == ValueKind.STRING
    assert node.written == "\n".join(lines)
    assert str(node.value).rstrip("\n") == " ".join(lines)  # YAML's own reading is kept


def test_blank_and_more_indented_lines_keep_their_places() -> None:
    text = "a:\n  backstory: >\n    You refuse:\n\n      - seg-mix: no\n    - invalid-cut: no\n\n\nb: 1\n"
    node = _backstory(text)
    assert node.written == "You refuse:\n\n  - seg-mix: no\n- invalid-cut: no"
    root = yamlsafe.to_tree(yamlsafe.compose_all(text)[0], "crew/agents.yaml", lines=text.splitlines())
    (prompt,) = data_prompts("crew/prompts.yaml", root)
    assert [(pl.line, pl.text) for pl in prompt.lines] == [
        (3, "You refuse:"),
        (4, ""),
        (5, "  - seg-mix: no"),
        (6, "- invalid-cut: no"),
    ]


def test_a_literal_scalar_and_a_card_reason_are_not_rewritten() -> None:
    text = "analyst:\n  backstory: |\n    one\n    two\n  reason: >\n    folded\n    reason\n"
    lines = text.splitlines()
    root = yamlsafe.to_tree(yamlsafe.compose_all(text)[0], "agents.yaml", lines=lines)
    entry = root.items[0][1]
    backstory, reason = entry.get("backstory"), entry.get("reason")
    assert backstory is not None and backstory[1].written is None
    assert reason is not None and reason[1].value == "folded reason\n"  # a card reads the value


@pytest.mark.parametrize(
    ("template", "derived"),
    [
        ("{% for rule_id, reason in rules.items() %}- {{ rule_id }}: {{ reason }}\n{% endfor %}", True),
        ("Refuse these:\n{rules}", True),
        ("Refuse these:\n{{ refusal_policy }}", True),
        ("Refuse these:\n{{ refusalRules }}", True),
        ("{{#each rules}}- {{this.id}}: {{this.reason}}{{/each}}", True),
        # One rule's value, not the list: no text of every rule derives from it.
        ("Rule: {{$rule}}", False),
        ("The last refusal: {{ last_refusal }} ({{ refusal.rule }})", False),
        ("{{ rule_id }}", False),
        ("{% block rules %}{% endblock %}{% if rules_enabled %}x{% endif %}", False),
        # Other rules a template names so: a judge's input rules, a style guide's, a contract's.
        ("Cite sources using these citation rules:\n{{ citation_rules }}", False),
        ("{{ _fragments.multimodal_input_rules }}", False),
        ("{% for rule in expression_contract_rules %}- {{ rule }}\n{% endfor %}", False),
        ("Keep in mind: {{ rules_of_thumb }}", False),
        # A placeholder's body holds no opener of its kind: each `{{` is read to its own `}}`.
        ("{{ rules {{ rule_id }}", False),
        ("Refuse these:\n" + "{{ " * 200_000, False),  # read once, not from each opener to the end
        ("{% if x {% for r in rules %}- {{ r }}{% endfor %}", True),
    ],
)
def test_a_template_is_derived_only_from_what_may_hold_every_rule(template: str, derived: bool) -> None:
    assert is_derived(template) is derived


_DERIVED = [
    "Refuse:\n{% for rule_id, reason in rules.items() %}- {{ rule_id }}: {{ reason }}\n{% endfor %}",
    "Name the rule:\n{{$refusal_rules}}",
    "Policy: {{ refusal_policy }}",
    "Refuse these:\n{rules}",
]


def _escaped(char: str, how: int) -> str:
    """`char` as a Python string literal may spell it."""
    code = ord(char)
    return [char, f"\\x{code:02x}", f"\\u{code:04x}", f"\\U{code:08x}", f"\\{code:o}", char][how]


@given(
    st.sampled_from(_DERIVED),
    st.lists(st.integers(0, 5), min_size=1, max_size=120),
    st.sampled_from(['"""', "'"]),
)
def test_a_derived_template_is_seen_by_the_byte_gate_however_its_string_is_escaped(
    template: str, hows: list[int], quote: str
) -> None:
    """The gates' byte test (`may_derive`) holds wherever binding reads a derived template
    from a Python string, escapes spelling its braces or its name's letters included."""
    body = "".join(_escaped(c, hows[i % len(hows)]) if c != "\n" else "\\n" for i, c in enumerate(template))
    source = f"TEMPLATE = {quote}{body}{quote}\n".encode()
    (value,) = [v for k, v in _module_strings(source)]
    assert is_derived(value)
    assert may_derive(source)


def _module_strings(source: bytes) -> list[tuple[str, str]]:
    import ast

    tree = ast.parse(source)
    return [
        (node.targets[0].id, node.value.value)  # type: ignore[attr-defined]
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
    ]


def test_the_byte_gate_passes_a_file_with_no_rules_name() -> None:
    assert not may_derive(b'GREETING = "Hello {name}, {{ user }}"\nx = "\\x1b[0m"\n')


_ESCAPE_LIKE = st.sampled_from(
    [b"\\x", b"\\u", b"\\U", b"\\N{", b"\\7", b"\\", b"{", b"}", b"rules", b"params", b"ffff"]
)


@given(st.lists(st.one_of(_ESCAPE_LIKE, st.binary(max_size=12)), max_size=30))
def test_the_byte_gates_read_any_bytes(parts: list[bytes]) -> None:
    """Escapes past the last code point (`\\UFFFFFFFF`), unknown names (`\\N{nothing}`),
    cut-off escapes: the gates' tests answer, never raise (a worker's batch died on the
    standard library's `\\U` escapes)."""
    data = b"".join(parts)
    assert isinstance(may_derive(data), bool)
    assert card_keys(data) <= set(CARD_KEYS)
    assert not may_derive(b'x = "\\UFFFFFFFF \\N{NO SUCH NAME} \\777"\n')
