"""The ast pre-check: which files can hold a fact that matters (and so reach the extractor).

It must never say no where extraction would find something binding can use; it may say
yes in doubt. Each row: a snippet, whether it must be parsed, with and without card ids.
"""

from __future__ import annotations

import ast
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refusal_lint.core import spec
from refusal_lint.static.gate.pyscan import may_hold_facts

IDS = frozenset({"seg-mix", "forecast"})

# (snippet, parsed without a card, parsed with card ids)
CASES = [
    # Guards whose argument can be an id.
    ('refuse("seg-mix")', True, True),
    ("refuse(RULE)", True, True),
    ("refuse(Rule.SEG_MIX, detail=d)", True, True),
    ('refuse(updater, rule="seg-mix")', True, True),
    ("def f(rule):\n    return refuse(rule)", True, True),
    ("from rules import Rule\nRule.SEG_MIX.refuse(detail=d)", True, True),
    ('RULES["seg-mix"].refuse()', False, False),  # the receiver is no name: never an id
    ('emit_refusal(which="seg-mix")', True, True),
    # ... and whose argument cannot.
    ('get_refusal_message("I cannot help with that.")', False, False),
    ('ResponseOutputRefusal(refusal="", type="refusal")', False, False),
    ("ResponseOutputRefusal(refusal=message.refusal, type='refusal')", False, False),
    (
        "def f(items):\n    r = extract_refusal(items[-1].raw_item)\n    raise ModelRefusalError(r)",
        False,
        True,
    ),
    ("refuse(items[-1].raw)", False, True),  # computed: RL304, against a card only
    ('refuse(f"seg-{kind}")', False, True),
    ("refuse()", False, False),
    (f'refuse("{"seg-" * 20}mix")', True, True),  # an 83-character id is an id (RL302)
    # Cards.
    ('AgentExtension(uri="https://standards.upperhandai.com/ext/refusals/v1", params=RULES)', True, True),
    ('AgentExtension(uri="http://standards.upperhandai.com/ext/refusal/v2")', True, True),
    ('AgentExtension(uri="https://example.com/ext/traceability/v1", params={})', False, False),
    ('P = "example.com/ext/ts/v1"\nURI = f"https://{P}"\nAgentExtension(uri=URI)', False, False),
    ("from .rules import URI\nAgentExtension(uri=URI, params=RULES)", True, True),
    ("RULES = {}\nAgentExtension(uri=refusals_uri(), params=RULES)", True, True),
    (
        "def f(x):\n    return AgentExtension(uri=x.uri, params=to_struct(x.params) if x.params else None)",
        False,
        False,
    ),
    ('{"uri": "https://standards.upperhandai.com/ext/refusals/v1", "required": False}', True, True),
    ('from toolset import RULES, URI\nCARD = {"uri": URI, "params": RULES}', True, True),
    # Payloads, Parts and errors.
    ('{"rule": rule, "reason": reason}', True, True),
    ('{"rule": "x", "code": 3}', False, False),
    ('Part(data=d, media_type="application/vnd.upperhand.refusals+json")', True, True),
    ('Part(data=d, media_type="application/json")', False, False),
    ('DataPart(data=d, metadata={"mediaType": MEDIA})', False, False),
    (
        'MEDIA = "application/vnd.upperhand.refusal+json"\nDataPart(data=d, metadata={"mediaType": MEDIA})',
        True,
        True,
    ),
    ('raise ServerError(error=InvalidParamsError(message="bad cut"))', False, False),
    ("raise ServerError(error=InvalidParamsError(data=refuse(rule)))", True, True),
    ('{"error": {"code": -32602, "message": "bad"}}', False, False),
    ('{"error": {"code": -32602, "data": {"rule": r, "reason": x}}}', True, True),
    # A caught refusal sent as an error: in its handler, or told apart by isinstance.
    ("try:\n    f()\nexcept Refusal as exc:\n    raise ServerError(error=InternalError())", True, True),
    (
        "try:\n    f()\nexcept Exception as exc:\n    if isinstance(exc, Refusal):\n"
        "        raise ServerError(error=InternalError())",
        True,
        True,
    ),
    (
        "try:\n    f()\nexcept Exception as exc:\n    if isinstance(exc, Refusal):\n        pass\n"
        "    else:\n        raise ServerError(error=InternalError())",
        False,
        False,
    ),
    # A payload a tool returned, told apart by its `rule` key, sent as an error.
    ('if "rule" in item:\n    raise ServerError(error=InvalidParamsError(data=item))', True, True),
    ('if "rule" not in item:\n    raise ServerError(error=InvalidParamsError(data=item))', False, False),
    # A helper call passing a card's rule id.
    ('_emit(updater, "seg-mix")', False, True),
]


@pytest.mark.parametrize(("source", "plain", "carded"), CASES, ids=[c[0][:48] for c in CASES])
def test_pre_check(source: str, plain: bool, carded: bool) -> None:
    tree = ast.parse(source)
    assert may_hold_facts(tree, frozenset()) is plain
    assert may_hold_facts(tree, frozenset(), IDS) is carded


# The text stage (before any parser): (source, worth parsing)
TEXT_CASES = [
    ('return refuse("seg-mix", detail=d)', True),
    ("raise RefusalError(rule)", True),
    ("self.refuse(Rule.SEG_MIX)", True),
    ("Rule.SEG_MIX.refuse()", True),
    ("parts = build_refusal_parts(\n    RULES['seg-mix'],  # the map\n    detail,\n)", True),
    ("def test_refusal_is_reported(model):\n    pass", False),
    ("class RefusalError(Exception):\n    pass", False),
    ('content=[ResponseOutputRefusal(type="refusal", refusal="I cannot help.")]', False),
    ('msg = get_refusal_message("I cannot help with that request.")', False),
    ("# a refusal (typed) is not an error", False),
    ("raise ConnectionRefusedError(host)", False),
    ('refuse(f"seg-{kind}"', True),  # does not close: parsed with its file, in doubt
    ('AgentExtension(uri="https://standards.upperhandai.com/ext/refusals/v1", params=RULES)', True),
    ("from .rules import REFUSALS_URI\nAgentExtension(uri=REFUSALS_URI, params=RULES)", True),
    ("class Ext:\n    def card(self):\n        return AgentExtension(uri=self.URI, params=self.rules)", True),
    ("def to_v1(ext):\n    return AgentExtension(uri=ext.uri, params=ext.params)", False),
    # A uri computed beside params that may be a rules map: read, for RL001's hint; SDK
    # conversion code computing its params too is not.
    ("RULES = {}\nAgentExtension(uri=refusals_uri(), params=RULES)", True),
    ('AgentExtension(uri=os.environ["URI"], params={"seg-mix": "No."})', True),
    (
        "def f(x):\n    return AgentExtension(uri=x.uri, params=to_struct(x.params) if x.params else None)",
        False,
    ),
    ("AgentExtension(**spec)", True),
    ('AgentExtension(uri="https://a2a.dev/ext/timestamp/v1", description="Adds timestamps.")', False),
    ("from a2a.types import AgentExtension\n\nexts: list[AgentExtension] = []", False),
    # A dict card of names from a sibling module: no refusal word in the file.
    ('from toolset import RULES, URI\n\nCARD = {"extensions": [{"uri": URI, "params": RULES}]}', True),
    ("EXT = {\n    'uri' : URI,\n    'params': RULES,\n}", True),
    ('PAGE = {"url": "https://example.com", "title": "Home"}', False),
    ('from toolset import MEDIA\nPART = {"mediaType": MEDIA, "data": payload}', True),
    ("from toolset import MEDIA\nPart(data=payload, media_type=MEDIA)", True),
    (f'raise Refusal("{"seg-" * 20}mix")', True),  # a long id is an id
    # The call's `(` on the next line: after a backslash, or within brackets.
    ('raise Refusal \\\n    ("age-cap")', True),
    ('raise (\n    Refusal  # why\n    ("age-cap")\n)', True),
    ("a refusal\n(typed) is prose", False),
    ('raise \uff32efusal("age-cap")', True),  # Python reads the name NFKC: `Refusal`
    ("except Exception as e:\n    if isinstance(e, (KeyError, Refusal)):\n        raise ServerError()", True),
    ("if isinstance(exc, KeyError):\n    raise ServerError()  # refusals are not here", False),
    ("if isinstance(item, dict) and ('rule') in item:\n    raise ServerError(data=item)", True),
    ('if r"""rule""" in item:\n    raise ServerError(data=item)', True),
    ('if "myrule" in item:\n    raise ServerError(data=item)', False),
    # The error is built in the body, after the test: one named only before it is none.
    ("raise ServerError()\ntry:\n    f()\nexcept Refusal:\n    pass", False),
    ("except Refusal as exc:\n    return {'error'  # why\n        : {'code': 1}}", True),
    ("except Refusal as exc:\n    return {'kind': 'error', 'message': str(exc)}", False),
]


@pytest.mark.parametrize(("source", "worth"), TEXT_CASES, ids=[c[0][:40] for c in TEXT_CASES])
def test_text_stage(source: str, worth: bool) -> None:
    from refusal_lint.static.gate.prefilter import python_worth_parsing

    assert python_worth_parsing(source.encode(), ()) is worth


# The second stage's gate: a prompt-shaped node whose value can be prose.
PROMPT_CASES = [
    ('Agent(instructions="You are the analyst.")', True),
    ("def make(instructions):\n    return Agent(instructions=instructions)", False),
    ('Agent(instructions="gpt-4o")', False),  # no white space: an id, not prose
    ("Agent(instructions=SYSTEM_PROMPT)", True),
    ("class A:\n    def f(self):\n        return Agent(instruction=self._instruction)", True),
    ('SYSTEM_PROMPT = "You are the analyst."', True),
    ("prompt_tokens = 512", False),
    ('msgs = [{"role": "system", "content": question}]', True),
    ('msgs = [{"role": "user", "content": "What is it?"}]', False),
    ('@agent.system_prompt\ndef rules(ctx):\n    return "x"', True),
    ('t = ("system", "You are the analyst.")', True),
    ('Analyst = QA.with_instructions("You are the analyst.")', True),  # a call setting it
    ('text = load_instructions("You are the analyst.")', False),
    ('m = ChatMessage.from_str("You are the analyst.", role="system")', True),
]


@pytest.mark.parametrize(("source", "gate"), PROMPT_CASES, ids=[c[0][:40] for c in PROMPT_CASES])
def test_prompt_gate(source: str, gate: bool) -> None:
    from refusal_lint.static.gate.pyscan import may_hold_prompt

    assert may_hold_prompt(ast.parse(source)) is gate


# Every gate decides from the same shapes: whatever the ast stage keeps, the text stage keeps.
# All orders of up to three keys, as a dict literal (either quote) or a call's keywords.
_KEYS = (
    "uri",
    "params",
    "rule",
    "rule_id",
    "reason",
    "detail",
    "required",
    "data",
    "media_type",
    "mediaType",
)
_ENTRIES = [
    (keys, value, style)
    for n in (1, 2, 3)
    for keys in itertools.permutations(_KEYS, n)
    for value in ("URI", '"seg-mix"')
    for style in ('"', "'", "kw")
]


def test_text_stage_keeps_what_the_ast_stage_keeps() -> None:
    from refusal_lint.static.gate.prefilter import python_worth_parsing

    missed = []
    for keys, value, style in _ENTRIES:
        if style == "kw":
            body = ", ".join(f"{k}={value}" for k in keys)
            source = f"from toolset import URI\n\nENTRY = Part({body})\n"
        else:
            body = ", ".join(f"{style}{k}{style}: {value}" for k in keys)
            source = f"from toolset import URI\n\nENTRY = {{{body}}}\n"
        if may_hold_facts(ast.parse(source), frozenset()) and not python_worth_parsing(source.encode(), ()):
            missed.append(source)
    assert missed == []


COMPUTED_ARGS = [
    "refuse(next((r for r, p in TABLE.items() if p.search(q)), None))",
    'refuse(f"{family}-mix")',
    "refuse(pick(question))",
    "Refusal(RULES[kind] if kind else DEFAULT)",
]


@pytest.mark.parametrize("call", COMPUTED_ARGS)
def test_a_computed_argument_passes_both_stages_where_a_card_has_ids(call: str) -> None:
    """With a card's ids known, a guard call with a computed argument is RL304 to binding: the
    text stage keeps it as the ast gate does (the generated differential's 400-example run
    found `next(...)` over a table of long ids dropped by the text stage alone)."""
    from refusal_lint.static.gate.prefilter import python_worth_parsing

    source = f"def check(q):\n    return {call}\n"
    ids = frozenset({"invalid-cut"})
    assert may_hold_facts(ast.parse(source), frozenset(), ids)
    assert python_worth_parsing(source.encode(), (), ids)


# A local bound to a guard call whose callee binding must judge (deferred) and sent inside
# a protocol error: RL305 whatever the callee, so the file is parsed outright. (source,
# parsed outright)
LOCAL_ERRORS = [
    ("def f(m):\n    p = refusal(m)\n    raise HTTPException(status_code=422, detail=p)", True),
    ("def f(m):\n    p = refusal(m)\n    raise ServerError(error=InvalidParamsError(data=p))", True),
    ('def f(m):\n    p = refusal(m)\n    return {"error": {"code": -32602, "data": p}}', True),
    ('def f(m):\n    p = refusal(m)\n    return {"jsonrpc": "2.0", "error": p}', True),
    ("def f(m):\n    p = refusal(m)\n    return p", False),  # no error: binding judges the callee
    ("def g(m):\n    p = refusal(m)\n\ndef f(p):\n    raise HTTPException(detail=p)", False),
    ("def f(m):\n    refusal(m)\n    p = {}\n    raise HTTPException(detail=p)", False),
]


@pytest.mark.parametrize(("source", "outright"), LOCAL_ERRORS, ids=[c[0][-40:] for c in LOCAL_ERRORS])
def test_a_local_bound_to_a_refusal_inside_an_error_is_parsed(source: str, outright: bool) -> None:
    deferred: list[ast.Call] = []
    assert may_hold_facts(ast.parse(source), frozenset(), IDS, deferred) is outright
    if not outright:
        assert deferred  # the guard call waits for binding, as it would alone


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(min_codepoint=33, max_codepoint=126, exclude_characters='"\\'), max_size=120))
def test_any_string_without_white_space_is_an_id(rule: str) -> None:
    """What binding takes for a fired id (spec.may_be_rule_id) no gate drops, whatever its length."""
    from refusal_lint.static.gate.prefilter import python_worth_parsing

    source = f'raise Refusal("{rule}")\n'
    assert spec.may_be_rule_id(rule)
    assert may_hold_facts(ast.parse(source), frozenset())
    assert python_worth_parsing(source.encode(), ())


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(['"', "'", "uri", "mediaType", "media_type", ":", "=", " ", "\n", "x", "_"]),
        max_size=12,
    )
)
def test_the_uri_key_literals_hold_every_match(parts: list[str]) -> None:
    """The literal pre-check before `_URI_KEY` (a regex sre must try at every offset) never
    hides one of its matches."""
    from refusal_lint.static.gate import prefilter

    data = "".join(parts).encode()
    if prefilter._URI_KEY.search(data) is not None:
        assert any(n in data for n in (*prefilter._QUOTED_URI, *prefilter._MEDIA_WORDS))


def test_a_parts_media_type_is_the_first_written_whatever_the_hash_seed() -> None:
    """Where a dict literal Part names its media type twice, the first key written decides,
    in the extractor and the gate alike (not the order of a set of key names)."""
    import ast

    from refusal_lint.static.extract import vocab
    from refusal_lint.static.extract.python.state import str_keys

    for first, second in (("mediaType", "media_type"), ("media_type", "mediaType")):
        node = ast.parse(f'{{"data": d, "{first}": "a", "{second}": "b"}}', mode="eval").body
        meta = ast.parse(f'{{"data": d, "metadata": {{"{first}": "a", "{second}": "b"}}}}', mode="eval").body
        for part in (node, meta):
            assert isinstance(part, ast.Dict)
            media = vocab.part_media(str_keys(part))
            assert isinstance(media, ast.Constant) and media.value == "a"
