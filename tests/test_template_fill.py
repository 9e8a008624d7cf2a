"""A template's slots filled where binding knows their strings (bind/strs.py `filled_in`):
the text is what Python's own `.format` / `%` gives, each line still on the file line
where its text stands; a slot it cannot fill stays as written."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from refusal_lint.core.facts import Str
from refusal_lint.core.model import Loc
from refusal_lint.static.bind.strs import filled_in

LOC = Loc("survey/agent.py", 10, 5)
ID_LOC = Loc("survey/ids.py", 2, 11)


def _template(text: str, first_line: int = 10) -> Str:
    return Str(text, LOC, tuple(range(first_line, first_line + text.count("\n") + 1)))


def _fills(values: dict[int | str, str]):  # type: ignore[no-untyped-def]
    def value_of(key: int | str) -> Str | None:
        text = values.get(key)
        return None if text is None else Str(text, ID_LOC, (ID_LOC.line,) * (text.count("\n") + 1))

    return value_of


_chars = st.characters(blacklist_characters="{}%\r", blacklist_categories=("Cs",))
_plain = st.text(alphabet=_chars, max_size=12)


@given(st.lists(st.tuples(_plain, _plain), min_size=1, max_size=5), _plain)
def test_braces_give_what_format_gives(pairs: list[tuple[str, str]], tail: str) -> None:
    template = "".join(text + "{}" for text, _ in pairs) + tail
    values = [v for _, v in pairs]
    out = filled_in(_template(template), "{", _fills(dict(enumerate(values))))
    assert out.value == template.format(*values)
    assert len(out.lines) == out.value.count("\n") + 1


@given(st.lists(st.tuples(_plain, _plain), min_size=1, max_size=5), _plain)
def test_percent_gives_what_the_operator_gives(pairs: list[tuple[str, str]], tail: str) -> None:
    template = "".join(text + "%s" for text, _ in pairs) + tail + "%%"
    values = [v for _, v in pairs]
    out = filled_in(_template(template), "%", _fills(dict(enumerate(values))))
    assert out.value == template % tuple(values)
    assert len(out.lines) == out.value.count("\n") + 1


def test_each_line_stays_where_its_text_stands() -> None:
    template = "Refuse these:\n- {}: One family per cut.\n- {rule}: Not defined."
    out = filled_in(_template(template), "{", _fills({0: "seg-mix", "rule": "invalid-cut"}))
    assert out.value == "Refuse these:\n- seg-mix: One family per cut.\n- invalid-cut: Not defined."
    assert out.lines == (10, 11, 12)
    assert not out.literal


def test_a_slot_it_cannot_fill_stays_as_written() -> None:
    template = "- {0:>8}: a {1}, {x.y}, {2!r} and {3} {{kept}}"
    out = filled_in(_template(template), "{", _fills({0: "seg-mix", 1: "cut", 2: "x"}))
    # A format spec or a conversion is applied at run time; an attribute is no name binding
    # reads here; the fourth argument is not known.
    assert out.value == "- {0:>8}: a cut, {x.y}, {2!r} and {3} {kept}"


def test_an_enum_members_value_is_the_member() -> None:
    out = filled_in(
        _template("- {0.value}: one family; - {rule.value}: defined"), "{", _fills({0: "a", "rule": "b"})
    )
    assert out.value == "- a: one family; - b: defined"


def test_percent_conversions_and_star_widths() -> None:
    out = filled_in(_template("%d rules; - %s: reason; %(rule)s"), "%", _fills({1: "seg-mix", "rule": "x"}))
    assert out.value == "%d rules; - seg-mix: reason; x"
    # A `*` width takes an argument more: no later slot is known by its place.
    out = filled_in(_template("%*d then %s"), "%", _fills({0: "a", 1: "b", 2: "c"}))
    assert out.value == "%*d then %s"


def test_nothing_known_is_the_template_as_before() -> None:
    template = _template("- {}: 100%% sure {{x}}")
    assert filled_in(template, "{", _fills({})).value == "- {}: 100%% sure {x}"
    assert filled_in(template, "%", _fills({})).value == "- {}: 100% sure {{x}}"
