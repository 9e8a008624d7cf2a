"""Does a fixed text still read as it did, and state the card's reason where the finding
stood: each edit of --fix is kept only if so (else the reason cannot be written there
safely)."""

from __future__ import annotations

import ast
import json
import warnings

from refusal_lint.core.filekinds import is_kind
from refusal_lint.core.kinds import FileKind
from refusal_lint.static.gate.treenames import last


def still_reads(path: str, before: str, after: str, news: list[str], line: int) -> bool:
    """The fixed file parses as it did, and states the new reasons (in Python, in the
    string standing on `line`, as its text: `_python_states`)."""
    if is_kind(path, FileKind.PYTHON):
        try:
            tree, warned = _parse_warned(after)
            _, warned_before = _parse_warned(before)
        except (SyntaxError, ValueError):  # ValueError: a NUL byte, on early 3.11 releases
            return False
        # No new invalid escape (`\d` written raw into a plain literal: a SyntaxWarning on
        # 3.12, an error under -W error), though it reads the same: the escaped one is written.
        return warned <= warned_before and all(_python_states(tree, line, new) for new in news)
    if is_kind(path, FileKind.YAML):
        from refusal_lint.static.extract.data.yamlsafe import YamlError, load_plain

        try:
            data = load_plain(after)
        except YamlError:
            return False
        flat = repr(data)
        return all(repr(new)[1:-1] in flat or new in flat for new in news)
    if is_kind(path, FileKind.JSON):
        from refusal_lint.static.extract.data.tree import plain_nodes

        try:
            doc = json.loads(after)
        except (ValueError, RecursionError):
            return False
        strings = [n for n in plain_nodes(doc) if isinstance(n, str)]
        return all(any(new in s for s in strings) for new in news)
    return True


def _parse_warned(text: str) -> tuple[ast.Module, int]:
    """`_parse`, and how many warnings the parse gives (invalid escape sequences)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tree = _parse(text)
    return tree, len(caught)


def _parse(text: str) -> ast.Module:
    """`ast.parse`, or for Python newer than this one (a `type X = ...` alias, 3.12) the text
    as extraction reads it (python/newer.py: the same lines and columns); SyntaxError else."""
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        from refusal_lint.static.extract.python import newer

        module = newer.parses(text, str(exc.msg))
        readable = newer.rewritten(module, text) if module is not None else None
        if readable is None:
            raise
        return ast.parse(readable)


def _python_states(tree: ast.Module, line: int, new: str) -> bool:
    """Does a string literal standing on `line` hold `new` as its text: in an f-string
    outside its fields; in a `.format()` template (called on it or on the name it is bound
    to) with its braces doubled; in a `%` template or a `string.Template` only with no `%` or
    `$` (`100%`, `{budget}`, `$500`: written plain there, they break it)?"""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    formats, mods = _template_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if isinstance(parents.get(node), ast.JoinedStr):
                continue  # a part of an f-string: the f-string is asked
            parts = [node.value]
        else:
            continue
        if not node.lineno <= line <= (node.end_lineno or node.lineno):
            continue
        parent = parents.get(node)
        call = parent if isinstance(parent, ast.Call) else None
        bound = _bound_name(parents.get(call) if call is not None else parent)
        formatted = (isinstance(parent, ast.Attribute) and parent.attr in _FORMATS) or bound in formats
        mod = (isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Mod) and parent.left is node) or (
            bound in mods
        )
        dollar = call is not None and last(call.func) == "Template"
        if (mod and "%" in new) or (dollar and "$" in new):
            continue  # `$$`, `%%` would read as the card's reason to the model, not to the check
        need = new.replace("{", "{{").replace("}", "}}") if formatted else new
        if any(need in p for p in parts):
            return True
    return False


_FORMATS = ("format", "format_map")


def _template_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names a module fills as `.format()` templates (`T.format(...)`) and as `%` ones."""
    formats: set[str] = set()
    mods: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _FORMATS and isinstance(node.value, ast.Name):
            formats.add(node.value.id)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Name):
            mods.add(node.left.id)
    return formats, mods


def _bound_name(node: ast.AST | None) -> str:
    """The one name an assignment binds (`T = "..."`, `T: str = "..."`), else ""."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    return ""
