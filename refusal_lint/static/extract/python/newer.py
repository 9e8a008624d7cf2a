"""Python newer than the one running, read by it (DESIGN §6: valid newer code is never RL002).

libcst's grammar follows the newest Python. Where CPython's parser rejects a file libcst
reads, PEP 695's syntax (3.12+: `type X = ...` aliases, `def f[T](...)`, `class C[T]:`)
is rewritten in place, each span to one of the same length on the same lines, so `ast`
reads the rest of the file with every other line and column unchanged: an alias becomes
`X = ...`, a type parameter list blanks, and a PEP 701 f-string field whose expression
holds a quote, a backslash or a `#` (`f"offer {offer["id"]}"`, 3.12+) becomes a name of
underscores (`{___________}`): a value known at run time only, as the field's is, the
string's own text kept. Other newer syntax has no such rewrite: its file stays unchecked
(RL005).
"""

from __future__ import annotations

from typing import Any


def parses(text: str, message: str) -> Any | None:
    """libcst's module of a file this Python's parser rejected with `message`; None where
    libcst rejects it too (a syntax error), or the rejection is a parser limit."""
    if "too many nested" in message or "too complex" in message:
        return None  # a parser limit, not a grammar: libcst's native parser may crash on it
    try:
        import libcst
    except ImportError:
        return None
    try:
        return libcst.parse_module(text)
    except Exception:  # ParserSyntaxError, or whatever else it raises on broken text
        return None


def rewritten(module: Any, text: str) -> str | None:
    """`text` with its PEP 695 and PEP 701 spans rewritten (module docstring); None where a
    span holds a line break (no rewrite of the same length keeps it valid) or there is none."""
    import libcst
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    where = wrapper.resolve(PositionProvider)
    spans: list[tuple[Any, Any, str]] = []  # (start, end, new text), positions of libcst

    class _Spans(libcst.CSTVisitor):
        def visit_TypeAlias(self, node: Any) -> None:
            # `type Name[T] = value` -> `Name       = value`: the name where `type` stood.
            start, value = where[node].start, where[node.value].start
            spans.append((start, value, node.name.value + " ="))

        def visit_FunctionDef(self, node: Any) -> None:
            self._blank(node)

        def visit_ClassDef(self, node: Any) -> None:
            self._blank(node)

        def visit_FormattedStringExpression(self, node: Any) -> None:
            r = where[node.expression]
            text = libcst.Module([]).code_for_node(node.expression)
            if any(c in text for c in "\"'\\#"):
                spans.append((r.start, r.end, "_" * len(text)))

        def _blank(self, node: Any) -> None:
            if node.type_parameters is not None:
                r = where[node.type_parameters]
                spans.append((r.start, r.end, ""))

    wrapper.visit(_Spans())
    if not spans:
        return None
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    out = text
    for start, end, new in sorted(spans, key=lambda s: (s[0].line, s[0].column), reverse=True):
        a = starts[start.line - 1] + start.column
        b = starts[end.line - 1] + end.column
        old = out[a:b]
        if "\n" in old or "\r" in old or len(new) > len(old):
            return None
        out = out[:a] + new.ljust(len(old)) + out[b:]
    return out
