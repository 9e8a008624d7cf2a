"""Prompts by their content (DESIGN §2): in an agent with a card, a prose string that
mentions a card rule id is a prompt candidate wherever it stands (`form: content`), so a
framework whose prompt shape no table names still gets its rules checked.

Not candidates: the card itself (an extension's call or dict, a params map), a guard call's
arguments and a refusal payload's values, logging calls, exception messages, assertions.
Comments are no strings, and documentation files are never read as prompts.
"""

from __future__ import annotations

import ast

from refusal_lint.core import prompttext, spec
from refusal_lint.core.facts import Fmt, Join, PyPrompt, Str, Value
from refusal_lint.core.kinds import PromptForm
from refusal_lint.static.extract import vocab
from refusal_lint.static.extract.python.scopes import last_name
from refusal_lint.static.extract.python.state import ExtractorState, str_keys
from refusal_lint.static.extract.python.walk import children, template_of
from refusal_lint.static.gate.text.listing import slotted

_PAYLOAD_KEYS = frozenset(spec.PAYLOAD_KEYS)


class ContentPrompts(ExtractorState):
    """Strings that mention a card id, outside the places that are never prompts."""

    content_ids: frozenset[str] = frozenset()
    _quiet: list[ast.AST]
    _functions: list[ast.AST]  # the functions being walked, innermost last
    _lists: set[int]  # the lists of texts read whole (`_text_list`)
    _passed: set[int]  # the lists passed as keyword arguments
    _in_string = 0

    def on_visit(self, node: ast.AST) -> bool:
        descend = super().on_visit(node)
        if not self.content_ids:
            return descend
        if not hasattr(self, "_quiet"):
            self._quiet, self._functions, self._lists, self._passed = [], [], set(), set()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            self._functions.append(node)
        elif isinstance(node, ast.keyword) and isinstance(node.value, (ast.List, ast.Tuple)):
            self._passed.add(id(node.value))  # a list where a call accepts a text (`_text_list`)
        if self._never_prompt(node) or self._quiet_local(node):
            self._quiet.append(node)
        elif isinstance(node, ast.expr) and ((texts := self._text_list(node)) or _is_string(node)):
            if not self._in_string and not self._quiet:
                self._candidate(node, texts or [node])
            self._in_string += 1
        return descend

    def on_leave(self, original_node: ast.AST) -> None:
        super().on_leave(original_node)
        if not self.content_ids:
            return
        if self._functions and self._functions[-1] is original_node:
            self._functions.pop()
        if self._quiet and self._quiet[-1] is original_node:
            self._quiet.pop()
        elif _is_string(original_node) or id(original_node) in self._lists:
            self._in_string -= 1

    def _quiet_local(self, node: ast.AST) -> bool:
        """`why = "invalid-cut: ..."` in a function that reads `why` only where no prompt
        is (`refuse(..., detail=why)`, a payload's value, a log call, an exception): the
        string is those places' text, as if written there."""
        if not (self._functions and isinstance(node, ast.Assign) and _is_string(node.value)):
            return False
        target = node.targets[0] if len(node.targets) == 1 else None
        if not isinstance(target, ast.Name):
            return False
        if not prompttext.names_card_rule(_literal_text(self.value(node.value)), self.content_ids):
            return False
        uses = 0
        todo: list[tuple[ast.AST, bool]] = [(self._functions[-1], False)]
        while todo:
            sub, quiet = todo.pop()
            quiet = quiet or self._never_prompt(sub)
            if isinstance(sub, ast.Name) and sub.id == target.id and isinstance(sub.ctx, ast.Load):
                if not quiet:
                    return False
                uses += 1
            todo.extend((child, quiet) for child in children(sub))
        return uses > 0

    def _never_prompt(self, node: ast.AST) -> bool:
        if isinstance(node, (ast.Raise, ast.Assert)):
            return True
        if isinstance(node, ast.Call):
            name = self.card_class(node.func) or last_name(node.func) or ""
            return (
                name in vocab.CARD_CLASSES
                or name == "AgentSkill"  # a card's skill, built on its own
                or self.is_guard_call(node, name)
                or vocab.is_log_call(name, node.func)
                or vocab.is_exception_name(name)
                or name.startswith("assert")
            )
        if isinstance(node, ast.Dict):
            keys = str_keys(node)
            # a refusal payload (or its detail), a card's extension entry, a params map, the
            # card itself as a dict (its description and skills are the card's, no prompt)
            return (
                not _PAYLOAD_KEYS.isdisjoint(keys)
                or "uri" in keys
                or "capabilities" in keys
                or bool(self.content_ids.intersection(keys))
            )
        # `detail=` and `reason=` of any call: a refusal's values, never instructions
        return isinstance(node, ast.keyword) and node.arg in _PAYLOAD_KEYS

    def _text_list(self, node: ast.AST) -> list[ast.expr]:
        """A list or tuple of two texts or more passed as a keyword argument, where a text is
        accepted (`output_instructions=["...", "..."]`, Griptape's `rules=[Rule("..."), ...]`:
        a library's call of one string): their strings; else none. A list bound to a name
        (`TOOLTIPS = [...]`, `HELP_LINES = [...]`) holds texts of its own, each a candidate."""
        if id(node) not in self._passed or not isinstance(node, (ast.List, ast.Tuple)) or len(node.elts) < 2:
            return []
        texts = [e if _is_string(e) else _one_string(e) for e in node.elts]
        if None in texts or any(isinstance(e, ast.Call) and self._never_prompt(e) for e in node.elts):
            return []
        self._lists.add(id(node))
        return texts  # type: ignore[return-value]

    def _candidate(self, node: ast.expr, strings: list[ast.expr]) -> None:
        # A list of texts is one candidate where one of them names a rule (binding reads
        # each its own, as a table shape's list): its other lines are the same prompt's
        # (`"small-base: ..."` beside `"seg-mix: ..."` is RL202, as under `instructions=`).
        # An f-string whose rule line's id a name fills in (`f"- {EVASION}: ..."`) may name
        # one: binding keeps it where its text, resolved, does (agents._prompts).
        if any(
            prompttext.names_card_rule(_literal_text(self.value(s)), self.content_ids)
            or (
                (isinstance(s, ast.JoinedStr) or _template(s))
                and slotted(self.src.segment(s).encode("utf-8", "replace"))
            )
            for s in strings
        ):
            self.prompts.append(PyPrompt(self.loc(node), self.value(node), "content", PromptForm.CONTENT))


def _is_string(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.JoinedStr)
        or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))
        or _template(node)
    )


def _template(node: ast.AST) -> bool:
    """`"- {}: ...".format(...)`, `"- %s: ..." % ...`: a string whose slots binding fills
    (bind/strs.py `filled_in`), one candidate with them."""
    base = template_of(node)
    return isinstance(base, ast.Constant) and isinstance(base.value, str)


def _one_string(node: ast.expr) -> ast.expr | None:
    """`Rule("...")`: a call of a named callee with one string and nothing else, its string."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and _is_string(node.args[0]):
        return node.args[0] if isinstance(node.func, (ast.Name, ast.Attribute)) else None
    return None


def _literal_text(value: Value) -> str:
    """The literal text of a string value (an f-string's or template's literal parts)."""
    if isinstance(value, Str):
        return value.value
    if isinstance(value, Join):
        return "".join(_literal_text(p) if isinstance(p, (Str, Join, Fmt)) else " " for p in value.parts)
    if isinstance(value, Fmt):
        return _literal_text(value.base)
    return ""
