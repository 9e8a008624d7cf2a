"""Whether a name a prompt candidate reads after a lead-in may hold a rule line
(composed/__init__.py): followed as binding's lookup follows it (bind/resolve.py) through
the tree's modules, to the statements that bind it, their text and the names they read."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

from refusal_lint.static.extract.data.prompts import card_keys, may_derive
from refusal_lint.static.gate.composed.grown import changing
from refusal_lint.static.gate.composed.leadins import IN_DOUBT
from refusal_lint.static.gate.composed.statements import (
    AFTER_TARGET,
    DEF_LINE,
    Code,
    assigned_names,
    code_of,
)
from refusal_lint.static.gate.imports import bindings_of
from refusal_lint.static.gate.text.glues import glue
from refusal_lint.static.gate.text.listing import listed_anywhere, refusing_spans
from refusal_lint.static.gate.text.lowered import name_at

# A binding: an assignment (`NAME =`, `NAME: T =`, `A = NAME =`, and unpacking: `X, NAME =`,
# `(X, NAME) =`, `X, *NAME =`), a class (whose attributes binding reads: `Policy.RULES`) or a
# function (a prompt function binding reads the returns of: `instruction=build_instruction()`),
# at the start of a line or after a `;`.
_NAME = rb"[ \t([]*\*?[A-Za-z_][A-Za-z0-9_]*[ \t)\]]*"
_TOP = re.compile(
    rb"(?:^([ \t]*)|;[ \t]*)(?:class[ \t]+([A-Za-z_][A-Za-z0-9_]*)"
    rb"|(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)"
    rb"|((?:" + _NAME + rb"(?:," + _NAME + rb")*,?[ \t]*(?::[^=\n]*)?(?:\+|\|)?=(?!=)[ \t]*)+))",
    re.M,
)
LISTED = "listed"  # a rule line may stand in the text
REFUSING = "refusing"  # a word of refusing may
NAMED = "named"  # a glued piece of a card id may (text/glues.py): read, whatever else is needed
INSTANCE = frozenset({"self", "cls"})  # names whose attributes are a class's (`self.RULES`)
BUDGET = 128  # (module, name) pairs followed from one candidate; past it, it is read in doubt


@lru_cache(maxsize=16)
def top_names(data: bytes) -> dict[str, list[int]]:
    """Where each module-level name is bound by an assignment, a class or a function, at column 0 or
    in a module-level `if`, `try`, `with` or loop (in no `def` or `class`): their lines'
    starts. A superset: a line of a string that looks like one counts (not one inside
    brackets). Only the module's own code is searched: between its outer blocks, and their
    headers."""
    out: dict[str, list[int]] = {}
    pos = 0
    code = code_of(data)
    for head, end in [*code.outer_blocks(), (len(data), len(data))]:
        header_end = data.find(b"\n", head)
        for m in _TOP.finditer(data, pos, len(data) if header_end < 0 else header_end):
            if code.depth_at(m.start()) > 0:
                continue  # a keyword argument of a call (`setup(\n    name="x",`): no binding
            for n in _bound_names(m):
                out.setdefault(n, []).append(m.start())
        pos = end
    return out


def bound_at(data: bytes, head: str) -> list[int]:
    """`top_names(data).get(head, [])`, found from the lines where `head` is assigned or
    names a class (every binding _TOP finds holds one), not where it is read (`Agent(` on
    most lines of an agents SDK): a module's few bindings of one name, not all of its names
    and blocks. Found by C's search for the word, not a regex compiled for each name."""
    word = head.encode()
    out: list[int] = []
    code: Code | None = None
    line_end = -1
    for at in name_at(data, word):
        if at < line_end:
            continue  # on a line looked at
        end = at + len(word)
        line_start = data.rfind(b"\n", 0, at) + 1
        before = data[line_start:at].rstrip(b" \t")
        if (
            AFTER_TARGET.match(data, end) is None
            and _IN_TARGETS.match(data, end) is None
            and not (before.endswith((b"class", b"def")) and len(before) < at - line_start)
        ):
            continue
        line_end = data.find(b"\n", end)
        line_end = len(data) if line_end < 0 else line_end
        code = code or code_of(data)
        for t in _TOP.finditer(data, line_start, line_end):
            if code.depth_at(t.start()) > 0 or _in_block(code, t.start()):
                continue
            if head in _bound_names(t):
                out.append(t.start())
    return out


def _bound_names(m: re.Match[bytes]) -> list[str]:
    """The names a match of `_TOP` binds: its class's, its function's or its targets'."""
    named = m[2] or m[3]
    return [named.decode()] if named else assigned_names(m[4])


_IN_TARGETS = re.compile(rb"[ \t]*[,)\]]")  # `LEAD, X = ...`, `(X, RULES) = ...`: _TOP decides
_COMMON = 64  # a name written more often than this is looked up among all of the module's


@lru_cache(maxsize=256)  # a file's prompt values read the same few names (`x`, `system_prompt`) often
def bound_lines(data: bytes, head: str) -> list[int]:
    """`top_names(data).get(head, [])`: from all of the module's names (found once a module)
    for a common name (`self`, `name`), by `bound_at` (a name at a time) for the others."""
    if data.count(head.encode()) > _COMMON:
        return top_names(data).get(head, [])
    return bound_at(data, head)


def _in_block(code: Code, pos: int) -> bool:
    """Does `pos` stand in a `def` or `class` block's body (past its header's line)?"""
    return code.enclosing(code.data.rfind(b"\n", 0, pos) + 1) is not None


_CLASS_NAME = re.compile(rb"[ \t]*class[ \t]+([A-Za-z_][A-Za-z0-9_]*)")


def class_attrs(data: bytes, name: str) -> list[str]:
    """`Class.name` for each class whose body assigns `name` (first on an indented line):
    found from where the name is assigned, not from every class of the module."""
    word = name.encode()
    code: Code | None = None
    out: set[str] = set()
    for at in name_at(data, word):
        line = data.rfind(b"\n", 0, at) + 1
        bound = _TOP.match(data, line) if data[line : line + 1] in (b" ", b"\t") else None
        if bound is None or name not in _bound_names(bound):
            continue  # not indented, or not among the targets its line assigns
        code = code or code_of(data)
        block = code.enclosing(line) if code.token_at(at) < 0 else None
        header = _CLASS_NAME.match(data, block[0]) if block is not None else None
        if header is not None:
            out.add(f"{header[1].decode()}.{name}")
    return sorted(out)


_DEF_NAME = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.M)


@lru_cache(maxsize=16)
def def_lines(data: bytes) -> dict[str, list[int]]:
    """Where each function of the module is defined, at any depth (a method, a nested one):
    its header lines' starts by name, found in one pass (a line of a string that looks like
    one counts)."""
    out: dict[str, list[int]] = {}
    for m in _DEF_NAME.finditer(data):
        out.setdefault(m[1].decode(), []).append(m.start())
    return out


_CLASS_LINE = re.compile(rb"[ \t]*class[ \t]")


def is_class(data: bytes, start: int) -> bool:
    """Does the line at `start` open a class (not `classes = ...`)?"""
    return _CLASS_LINE.match(data, start) is not None


def is_def(data: bytes, start: int) -> bool:
    """Does the line at `start` open a function (not `default = ...`)?"""
    return DEF_LINE.match(data, start) is not None


def binding(data: bytes, name: str, may: Callable[[bytes | None], bool]) -> list[Any]:
    """What module-level `name` (or `Class.attr`) holds, as its statements' text shows:
    [what may stand in it (`held`, and `NAMED` where a glue `may` be part of a card id),
    the dotted names its code reads]. A class only for the attribute asked (binding
    composes no instance of it); a function (or method) whole: a prompt function's returns
    are read (`instruction=build_instruction()`)."""
    head, _, attr = name.partition(".")
    code = code_of(data)
    found: set[str] = set()
    refs: set[str] = set()
    spans: list[tuple[int, int]] = []
    assigned = False
    for start in bound_lines(data, head):
        if code.token_at(start) >= 0:
            continue  # a line of a string that looks like a binding
        if is_class(data, start):
            line = member(data, start, code.block(start), attr.partition(".")[0]) if attr else None
            spans += spans_of(code, line) if line is not None else []
        else:
            spans += spans_of(code, start)
            assigned = assigned or not is_def(data, start)
    # What grows a value assigned here (`LINES.append(...)`), its statements once.
    spans += changing(code, head, None) if assigned else []
    for s, e in spans:
        found.update(held(data[s:e]))
        refs.update(code.names(s, e))
    if any(may(p) for s, e in spans for p in glue(data, s, e)):
        found.add(NAMED)
    refs.discard(head)
    return [sorted(found), sorted(refs)]


def held(text: bytes) -> list[str]:
    """What of a rule list may stand in `text`: a rule line (`LISTED`), a word of refusing
    (`REFUSING`); both where a template placeholder may fill in the rules, or a card loaded
    at run time be read (a derived prompt needs neither)."""
    if may_derive(text) or card_keys(text):
        return [LISTED, REFUSING]
    return [w for w, f in ((LISTED, listed_anywhere), (REFUSING, refusing_spans)) if f(text)]


def spans_of(code: Code, start: int) -> list[tuple[int, int]]:
    """The text the binding whose line starts at `start` holds: a function's (`def`) what it
    returns; an assignment's its statement."""
    if is_def(code.data, start):
        return code.returned(start, code.block(start))
    return [(start, code.statement(start)[1])]


def member(data: bytes, start: int, end: int, attr: str) -> int | None:
    """The line of a class body (between `start` and `end`) whose statement assigns `attr`,
    or where the method called `attr` starts; None where there is none. `_TOP.finditer`'s
    first such match, tried only at the start of a line that holds `attr` (every name a
    match binds stands in it, and no match spans a line, so finditer tries each line's
    start): its `^` makes sre try every offset of a class body otherwise."""
    word = attr.encode()
    at = data.find(word, start, end) if word else -1  # no match binds "": none is found
    while at >= 0:
        line = data.rfind(b"\n", 0, at) + 1
        if line >= start:  # a line starting before `start` finditer never tries at its `^`
            m = _TOP.match(data, line, end)
            if m is not None and m[1] and attr in _bound_names(m):
                return line
        nl = data.find(b"\n", at, end)
        at = data.find(word, nl + 1, end) if nl >= 0 else -1
    return None


class Reach:
    """Follows the names a prompt candidate reads to the statements that bind them, in its
    own module and the tree's others, as binding's lookup does (resolve.py): an assignment's
    or a class attribute's text and the names its code reads, re-exports, star imports.
    Each answer about a file is a function of its bytes and the tree's modules (`noted`,
    kept in the cache's notes)."""

    def __init__(
        self,
        noted: Callable[[str, str, Callable[[bytes], Any]], Any],
        module: Callable[[str, str, int], str | None],
        may: Callable[[bytes | None], bool],
    ) -> None:
        self.noted = noted
        self.module = module
        self.may = may
        self._memo: dict[tuple[str, str], tuple[list[str], list[tuple[str, str]]]] = {}

    def lists(self, rel: str, names: list[str], need: frozenset[str] = frozenset({LISTED})) -> bool:
        """May `names`, read by the file `rel` after a lead-in (`leads`: a rule line is
        `need`ed) or in a prompt's value (`passed`), hold what `need`s: bound in the file, by
        an import, or a class attribute read as `self.X` or in its class's body?"""
        if IN_DOUBT in names or not need:
            return True  # past the lead-ins' budget, or the value holds all itself: read it
        todo: list[tuple[str, str]] = []
        for name in names:
            head, _, rest = name.partition(".")
            if head in INSTANCE and rest:
                todo.extend((rel, f"{c}.{rest}") for c in self.noted(rel, "classes", _classes) or ())
            else:
                todo.extend(self._resolve(rel, name))
                if not rest and not self._binds(rel, head):  # maybe read in a class body
                    todo.extend(
                        (rel, a)
                        for a in self.noted(rel, "attr " + head, partial(class_attrs, name=head)) or ()
                    )
        seen: set[tuple[str, str]] = set()
        met: set[str] = set()
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            if len(seen) >= BUDGET:
                return True
            seen.add(node)
            found, after = self._step(node)
            met.update(found)
            if need <= met or NAMED in met:
                return True
            todo.extend(after)
        return False

    def _step(self, node: tuple[str, str]) -> tuple[list[str], list[tuple[str, str]]]:
        """What one (module, name) may hold (`held`), and the pairs its statements read."""
        if node not in self._memo:
            module, name = node
            if name == "*":
                self._memo[node] = (self.noted(module, "held", self._held) or [], self._star(module))
            elif not self._binds(module, name.split(".", 1)[0]):
                self._memo[node] = ([], self._resolve(module, name, here=False))
            else:
                found, refs = self.noted(module, "bound " + name, lambda d: binding(d, name, self.may))
                self._memo[node] = (found, [n for ref in refs for n in self._resolve(module, ref)])
        return self._memo[node]

    def _held(self, data: bytes) -> list[str]:
        """`held` of a whole module (a star import's), and `NAMED` where a glue may be."""
        named = [NAMED] if any(self.may(p) for p in glue(data)) else []
        return held(data) + named

    def _bound(self, rel: str, level: int, module: str, name: str, attrs: list[str]) -> list[tuple[str, str]]:
        """The (module, name) an import binds, and `name.attr` for each of `attrs` read of
        it (a class's attribute); for a module, each of `attrs` as a name of it."""
        dotted = module if not name else (f"{module}.{name}" if module else name)
        sub = self.module(rel, dotted, level)
        if sub is not None:
            return [n for attr in attrs for n in self._module_attr(sub, attr)]
        target = self.module(rel, module, level) if name else None
        if target is None:
            return []
        return [(target, name), *((target, f"{name}.{a.split('.', 1)[0]}") for a in attrs)]

    def _module_attr(self, module: str, attr: str) -> list[tuple[str, str]]:
        """`attr` of a module: a name it binds, or a submodule's (`pkg.policy.RULES`)."""
        head, _, rest = attr.partition(".")
        out = [(module, attr if "." in attr else head)]
        if rest and module.endswith("__init__.py"):
            sub = self.module(module, head, 1)
            if sub is not None:
                out.extend(self._module_attr(sub, rest))
        return out

    def _binds(self, module: str, head: str) -> bool:
        """Does `module` bind `head` at its top level?"""
        return bool(self.noted(module, "binds " + head, lambda d: bool(bound_lines(d, head))))

    def _resolve(self, module: str, ref: str, here: bool = True) -> list[tuple[str, str]]:
        """Where `ref`, read by code of `module`, is bound: the module itself (unless not
        `here`), or an import."""
        head, _, rest = ref.partition(".")
        # Bound here, and maybe imported too (`try: from x import R` / `except: R = ...`).
        out: list[tuple[str, str]] = [(module, ref)] if here and self._binds(module, head) else []
        for local, level, source, name in self.noted(module, "bindings", bindings_of) or ():
            if name == "*":
                target = self.module(module, source, level)
                out.extend([(target, ref)] if target is not None else [])
            elif local == head:
                out.extend(self._bound(module, level, source, name, [rest] if rest else []))
        return out

    def _star(self, module: str) -> list[tuple[str, str]]:
        """What a star import of `module` brings besides its own strings: the names it
        imports (and its own star imports)."""
        out: list[tuple[str, str]] = []
        for _local, level, source, name in self.noted(module, "bindings", bindings_of) or ():
            target = self.module(module, source, level) if name else None
            if target is not None:
                out.append((target, name))
        return out


def _classes(data: bytes) -> list[str]:
    return sorted(n for n, starts in top_names(data).items() if any(is_class(data, s) for s in starts))


_MODULE_DEF = re.compile(rb"^(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.M)


def module_names(data: bytes) -> frozenset[str]:
    """Names bound at a module's top level, as text shows them: a function defined at
    column 0, assigned or a class outside any def or class (reach.top_names: in an `if` or
    `try` too), or imported anywhere (an import inside a block may be module level too); as
    treenames.module_names, `*` for a star import."""
    names = {n.decode() for n in _MODULE_DEF.findall(data)} | set(top_names(data))
    # Imported in any spelling (`from m import (\n    URI,\n)`, as ruff and black write it).
    names.update(local for local, _, _, _ in bindings_of(data))
    return frozenset(names)
