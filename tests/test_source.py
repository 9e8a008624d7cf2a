"""Where the extractor says a node stands, and the string tokens it reads a literal from,
agree with CPython's own answers: `ast.get_source_segment` and the tokenizer."""

from __future__ import annotations

import ast
import io
import sys
import tokenize
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refusal_lint.core import sourcetext
from refusal_lint.static.extract.python import visitor
from refusal_lint.static.extract.python.source import Source, scan

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(p for d in ("testdata", "refusal_lint") for p in (ROOT / d).rglob("*.py"))

TRICKY = '''\
# header comment
"""Doc."""
import textwrap  # trailing

NAME = "café"; RULE = "seg-mix"  # non-ASCII before a name on the same line
πρ = {"ü": f"{NAME!r:>{10}} {{lit}} \\N{EM DASH} {RULE}", **extra}


@decorator(arg="x")
class A(Base):
    X = f"{BASE}/refusals/{V}"  # refusal-lint: ignore[RL304]

    async def m(self, rule, *a, **kw):
        return refuse(rule, detail=(
            "implicit"  # a comment between the tokens
            'concatenation' f"{rule}"
        )), {"rule": "seg-mix", **kw}, (1, 2), tuple(x for x in a)
'''


def _string_tokens(text: str) -> list[tuple[int, int]]:
    """Each string literal token's [start, end) offsets, by the tokenizer (3.12+ splits an
    f-string into FSTRING_START ... FSTRING_END: rejoined here)."""
    starts = sourcetext.line_starts(text)
    out: list[tuple[int, int]] = []
    opened: list[int] = []
    fstart = getattr(tokenize, "FSTRING_START", -1)
    fend = getattr(tokenize, "FSTRING_END", -1)
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        at = starts[tok.start[0] - 1] + tok.start[1]
        end = starts[tok.end[0] - 1] + tok.end[1]
        if tok.type == tokenize.STRING and not opened:
            out.append((at, end))
        elif tok.type == fstart:
            opened.append(at)
        elif tok.type == fend:
            begin = opened.pop()
            if not opened:
                out.append((begin, end))
    return out


def _check_file(text: str) -> None:
    src = Source("x.py", text)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):  # ValueError: a NUL byte, on early 3.11 releases
        return  # a fixture of a broken file
    expected = _string_tokens(text)
    raw = [line.encode() for line in text.split("\n")]
    found: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.GeneratorExp)):
            continue  # their spans leave out their own parentheses, unlike CPython's
        segment = _segment(raw, node)
        if segment is not None:
            loc = src.loc(node)
            assert src.segment(node) == segment, (type(node).__name__, loc)
    inner = {
        id(n) for f in ast.walk(tree) if isinstance(f, ast.JoinedStr) for v in f.values for n in ast.walk(v)
    }
    specs = {id(f.format_spec) for f in ast.walk(tree) if isinstance(f, ast.FormattedValue)}
    for node in ast.walk(tree):
        if id(node) in inner and not isinstance(node, ast.JoinedStr):
            continue  # the pieces of an f-string: only its expressions' strings are their own
        if id(node) in specs:
            continue
        if _is_string(node):
            tokens = src.tokens(node)
            found += [(t.start, t.end) for t in tokens]
            if isinstance(node, ast.JoinedStr):
                fields = [p for t in tokens for p in t.parts if p.field]
                assert len(fields) == sum(isinstance(v, ast.FormattedValue) for v in node.values)
            for t in tokens:
                if t.parts:
                    assert "".join(p.raw for p in t.parts) == t.body(text)
    # Format specs are f-strings of their own in the tree: the tokens found are a subset.
    assert set(found) <= set(expected)
    assert set(expected) - set(found) == {e for e in expected if _in_fstring(e, found)}


def _segment(raw: list[bytes], node: ast.AST) -> str | None:
    """`ast.get_source_segment` (byte columns on the UTF-8 lines), without splitting the
    text again for every node."""
    if getattr(node, "end_col_offset", None) is None:
        return None
    n: ast.expr = node  # type: ignore[assignment]
    first, last = n.lineno - 1, (n.end_lineno or n.lineno) - 1
    if first == last:
        return raw[first][n.col_offset : n.end_col_offset].decode()
    middle = b"".join(line + b"\n" for line in raw[first + 1 : last])
    return (raw[first][n.col_offset :] + b"\n" + middle + raw[last][: n.end_col_offset]).decode()


def _is_string(node: ast.AST) -> bool:
    if isinstance(node, ast.JoinedStr):
        return True
    return isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))


def _in_fstring(span: tuple[int, int], found: list[tuple[int, int]]) -> bool:
    return any(a < span[0] and span[1] < b for a, b in found)


def test_tricky_source() -> None:
    _check_file(TRICKY)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_file_of_the_repo(path: Path) -> None:
    _check_file(path.read_text(encoding="utf-8"))


def test_columns_count_characters() -> None:
    facts = visitor.extract("x.py", 'NAME = "café"; SYSTEM_PROMPT = "Refuse seg-mix."\n')
    [prompt] = facts.py_prompts
    assert (prompt.loc.line, prompt.loc.col) == (1, 16)


def test_suppression_comments_by_the_tokenizer() -> None:
    facts = visitor.extract("x.py", TRICKY)
    assert [(s.line, s.codes, s.loc.col) for s in facts.suppressions] == [(11, ("RL304",), 33)]
    # A comment-like text inside a string is no comment.
    facts = visitor.extract("x.py", 'X = "# refusal-lint: ignore"\n')
    assert facts.suppressions == ()


_PREFIXES = st.sampled_from(["", "r", "b", "rb", "f", "rf", "u", "F", "Rb"])
_BODY = st.text(alphabet=st.sampled_from(list("ab {}\\'\"\nxé")), max_size=12)


@settings(max_examples=1000, deadline=None)
@given(
    prefix=_PREFIXES,
    quote=st.sampled_from(["'", '"', "'''", '"""']),
    body=_BODY,
    tail=st.sampled_from(["", " + 1", "  # c"]),
)
def test_scan_ends_each_token_where_the_tokenizer_does(prefix: str, quote: str, body: str, tail: str) -> None:
    text = f"x = {prefix}{quote}{body}{quote}{tail}\n"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
        expected = _string_tokens(text)
    except (SyntaxError, tokenize.TokenError):
        return
    value = tree.body[0].value  # type: ignore[attr-defined]
    if isinstance(value, ast.BinOp):
        value = value.left
    token = scan(text, 4)
    assert token is not None
    assert (token.start, token.end) == expected[0]
    assert isinstance(value, (ast.Constant, ast.JoinedStr))


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 701 f-strings")
def test_pep701_nested_quotes() -> None:
    text = 'x = f"{d["k"]} and {f"{y}"}" "z"\n'
    _check_file(text)


@given(
    st.text(st.characters(exclude_characters="\x00")),
    st.sampled_from(["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]),
)
def test_a_wide_file_reads_as_the_same_text_before_and_after_its_utf8_copy(text: str, encoding: str) -> None:
    """The gates read `as_utf8`'s copy, --fix and the baseline read the file itself: both
    must give one text, and writing it back in the decoded encoding must give the file's bytes."""
    data = ("\ufeff" + text).encode(encoding, "surrogatepass")
    try:
        wide = sourcetext.decode(data)
    except UnicodeDecodeError:  # a lone surrogate: neither reads it, both say so
        assert sourcetext.as_utf8(data) == data
        return
    copy = sourcetext.decode(sourcetext.as_utf8(data))
    assert (wide.text, wide.bom, copy.text, copy.bom) == (text, True, text, True)
    assert ("\ufeff" + wide.text).encode(wide.encoding) == data
    assert sourcetext.as_utf8(data, python=True) == data  # CPython reads no wide source
