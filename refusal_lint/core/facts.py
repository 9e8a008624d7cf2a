"""What extraction yields per file: frozen, JSON-serialisable facts (the cache stores them).

Python values are kept symbolic (`Ref`, `Sub`, ...) so one file's extraction never needs
another file; `resolve.py` binds them across the repo afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass

from refusal_lint.core.kinds import (
    FileKind,
    FnKind,
    GuardKind,
    ParamsKind,
    ProblemKind,
    PromptForm,
    ValueKind,
)
from refusal_lint.core.model import Loc, Prompt

# ---- symbolic Python values -------------------------------------------------------------


@dataclass(frozen=True)
class Str:
    value: str
    loc: Loc
    lines: tuple[int, ...] = ()  # real file line of each line of `value`
    literal: bool = True  # a plain literal written at this spot (fixable in place)
    # The file of each line, where some is not `loc.path` (strings of several modules joined).
    paths: tuple[str, ...] = ()

    def line_paths(self) -> tuple[str, ...]:
        return self.paths or (self.loc.path,) * len(self.lines)


@dataclass(frozen=True)
class Const:
    """A value that is not a string: a number, bool, None, list, set, ..."""

    kind: ValueKind
    loc: Loc
    # The module names a list built by a comprehension reads (`[f"- {k}: {v}" for k, v in
    # RULES.items()]`): joined into a prompt, it is derived from what it iterates.
    refs: tuple[Ref, ...] = ()


@dataclass(frozen=True)
class Ref:
    """A module-scope dotted name (`RULES`, `Rule.SEG_MIX`, `policy.RULES`) of module `module`."""

    module: str
    name: str
    loc: Loc


@dataclass(frozen=True)
class Param:
    """A parameter of function `func` (its qualified name in the module; "" for a nested
    function, a lambda or `except ... as`), or an attribute of one (`event.rule`)."""

    name: str
    loc: Loc
    func: str = ""


@dataclass(frozen=True)
class Dyn:
    """Computed at run time; `refs` are the module names the expression reads."""

    loc: Loc
    refs: tuple[Ref, ...] = ()


@dataclass(frozen=True)
class Join:
    """Concatenation: implicit, `+`, or an f-string (placeholders are non-Str parts)."""

    parts: tuple[Value, ...]
    loc: Loc


@dataclass(frozen=True)
class Sub:
    base: Value
    key: Value
    loc: Loc


@dataclass(frozen=True)
class Item:
    key: Value
    value: Value
    loc: Loc  # the key

    @property
    def spread(self) -> bool:
        """A dict display's `**rest` item."""
        return isinstance(self.key, Const) and self.key.kind == ValueKind.SPREAD


@dataclass(frozen=True)
class DictV:
    items: tuple[Item, ...]
    loc: Loc

    @property
    def ident(self) -> str:
        return self.loc.ident


@dataclass(frozen=True)
class Seq:
    """A list, tuple or set literal."""

    items: tuple[Value, ...]
    loc: Loc


@dataclass(frozen=True)
class CallV:
    """A call of a named callee, kept with its arguments: bound later to a repo function or
    class (`Check("seg-mix", ...)`, `build_instruction()`), else computed at run time."""

    func: Value
    args: tuple[Value, ...]
    kwargs: tuple[tuple[str, Value], ...]
    loc: Loc


@dataclass(frozen=True)
class Each:
    """A `for` or comprehension variable: one element of `over` at a time.

    `mode` says what is iterated (iter, keys, values, items); `index` picks a member of a
    tuple target (`for rule, check in X.items()`: 0 is the key), -1 the whole element."""

    over: Value
    mode: str
    index: int
    loc: Loc


@dataclass(frozen=True)
class Attr:
    """`base.name` where base is not a module-level name (a loop element, a local)."""

    base: Value
    name: str
    loc: Loc


@dataclass(frozen=True)
class Fmt:
    """A template filled at run time: `T.format(...)`, `T % (...)`; its text is T's, its
    escapes read (`%%` or `{{`)."""

    base: Value
    args: tuple[Value, ...]
    loc: Loc
    style: str = "{"  # "%" for `T % (...)`
    names: tuple[str, ...] = ()  # each argument's keyword ("" positional, "*"/"**" a spread)


@dataclass(frozen=True)
class Fn:
    """A function, method or class defined in the repo, as a callee or a prompt provider."""

    path: str
    qualname: str
    kind: FnKind
    params: tuple[str, ...]  # positional-or-keyword, in order (a method's include self)
    kwonly: tuple[str, ...]
    returns: tuple[Value, ...]  # string-like returned values (prompt functions)
    loc: Loc
    # A class without an `__init__` of its own: its bases, whose constructor builds it
    # (bind/classes.py; its own fields follow theirs, as a dataclass's do).
    bases: tuple[Value, ...] = ()
    # Maps it returns, read out of a structure (`return dict(ext["params"])`: a loaded
    # card's params, bind/prompts.loaded_params); no prompt text.
    maps: tuple[Value, ...] = ()
    # Its parameters' defaults (`rule="seg-mix"`): what a call passing none binds.
    defaults: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True)
class Op:
    """A string transform applied to a value: dedent, strip, lstrip, rstrip, cleandoc, value;
    `JOIN` + a separator: the separator's `.join` of a list bound elsewhere; `OR`."""

    op: str
    base: Value
    loc: Loc


Value = Str | Const | Ref | Param | Dyn | Join | Sub | DictV | Op | Seq | CallV | Each | Attr | Fmt | Fn
JOIN, OR = "join:", "or"  # Op.op of `sep.join(NAME)` (JOIN + sep); of `a or b` (base: Seq((a, b)))

# ---- card declarations --------------------------------------------------------------------


@dataclass(frozen=True)
class ParamItem:
    key: str
    loc: Loc
    reason: str | None  # None: the value is not a string
    kind: ValueKind  # the value's, where the reason is not a string


@dataclass(frozen=True)
class ExtDecl:
    """One refusals extension entry (exact or near-miss URI) as written in a card."""

    loc: Loc
    card: str  # identity of the card holding it (RL108 compares within one card)
    uri: str | None
    problems: tuple[str, ...] = ()  # RL101 messages
    params_kind: ParamsKind = ParamsKind.OBJECT
    params_loc: Loc | None = None
    items: tuple[ParamItem, ...] = ()
    params_id: str = ""
    agent_name: str | None = None


@dataclass(frozen=True)
class PyExt:
    """An AgentExtension(...) call or {"uri": ...} dict in Python, before resolution."""

    loc: Loc
    card: str
    uri: Value
    required: Value | None
    params: Value | None
    agent_name: str | None = None
    # `params=self.rules` in a helper class: the class and the __init__ argument it came from.
    owner: str | None = None
    init_arg: tuple[int, str] | None = None

    def helper(self) -> bool:
        """Built by a helper from what its callers pass (`self.rules`, a parameter)?"""
        return (self.owner is not None and self.init_arg is not None) or any(
            isinstance(v, Param) for v in (self.uri, self.params)
        )


@dataclass(frozen=True)
class CtorCall:
    """A call that may construct an extension helper class: `RefusalsExtension(RULES)`."""

    callee: str
    args: tuple[Value, ...]
    kwargs: tuple[tuple[str, Value], ...]
    loc: Loc


# ---- guards and the rest of a Python file ----------------------------------------------


@dataclass(frozen=True)
class Guard:
    """A call, payload dict or Part that fires a refusal."""

    loc: Loc
    kind: GuardKind
    rule: Value | None  # the `rule=` keyword, else the first positional argument
    reason: Value | None = None
    extra_keys: tuple[str, ...] = ()  # RL306: payload keys beyond rule/reason/detail
    media: Value | None = None  # a Part's media type
    shaped: bool = True  # the payload has `rule` and `reason` or `detail`
    # A Part of opaque data whose media type binding resolves (`media_type=MT`): a near miss
    # or nothing, so it ties its file to no agent (FileFacts.fires).
    opaque: bool = False
    receiver: bool = False  # the rule is the object the method is called on: a guard only if a string
    call: CallV | None = None  # the whole call: a repo callee binds the id by parameter name
    configured: bool = False  # a `guard-callables` name: its first argument is the id, whatever the callee's


@dataclass(frozen=True)
class ErrorUse:
    """A protocol error (or {"error": ...} envelope) that carries a refusal (RL305)."""

    loc: Loc
    name: str
    rule: Value | None
    values: tuple[Value, ...] = ()  # other values inside that may resolve into the params map
    caught: bool = False  # inside `except <a refusal>`: it carries the refusal caught


@dataclass(frozen=True)
class Suppression:
    line: int
    codes: tuple[str, ...]  # empty: every code
    loc: Loc
    end_line: int = 0  # the last line it covers (a YAML block scalar under its key), 0: its own
    first_line: int = 0  # the first it covers (a Python string over several lines ending here)


@dataclass(frozen=True)
class ImportRef:
    module: str  # dotted, without leading dots
    name: str | None  # None for `import x`
    level: int  # leading dots


@dataclass(frozen=True)
class PyPrompt:
    loc: Loc
    value: Value
    source: str  # SYSTEM_PROMPT, instruction=, ...
    form: PromptForm = PromptForm.ASSIGNMENT


@dataclass(frozen=True)
class Problem:
    """A file whose facts are unknown, and why: the standard parser rejects it, or it is
    valid but a limit (CPU time, memory, depth, a parser crash) stopped us. Extraction
    records it; the file check (checks/files.py) says which code it is."""

    loc: Loc
    message: str
    kind: ProblemKind = ProblemKind.UNPARSABLE
    # A JSON or YAML card by its name or its extension URI: broken, it still marks an agent's
    # folder, so its files are judged against no other agent's card (bind/scoping.py).
    card: bool = False
    # A file that may hold the agent's prompt (gate/text/shapes.py): unread, that
    # prompt is unknown, not missing (checks/prompt.py: no RL200 beside its RL002).
    prompt: bool = False
    # False: a file no check needs but for one thing, that it may hold the prompt; its RL002
    # is reported only where its agent has no other prompt (checks/files.py), the only case
    # RL200 would otherwise decide on without it.
    needed: bool = True


@dataclass(frozen=True)
class FileFacts:
    path: str
    kind: FileKind
    problem: Problem | None = None
    exts: tuple[ExtDecl, ...] = ()
    py_exts: tuple[PyExt, ...] = ()
    prompts: tuple[Prompt, ...] = ()
    py_prompts: tuple[PyPrompt, ...] = ()
    guards: tuple[Guard, ...] = ()
    protocol_errors: tuple[ErrorUse, ...] = ()
    defs: tuple[tuple[str, Value], ...] = ()
    imports: tuple[tuple[str, ImportRef], ...] = ()
    stars: tuple[ImportRef, ...] = ()  # `from m import *`: where a name bound nowhere else may come from
    suppressions: tuple[Suppression, ...] = ()
    # Python: the file's own text of each line a string literal stands on, so a prompt built
    # from strings can place its findings on the file's real column.
    string_lines: tuple[tuple[int, str], ...] = ()
    ctor_calls: tuple[CtorCall, ...] = ()
    calls: tuple[CallV, ...] = ()  # calls that may pass a rule id to a repo helper
    complete: bool = True  # False: a cheap scan proved no facts, but defs were not read

    def claims(self) -> bool:
        """Facts that tie this file to one agent (a pass-through helper alone does not, nor an
        extension helper whose params or uri its callers pass: bind/bound.py declares it
        where they stand, agent by agent)."""
        return bool(
            self.exts
            or any(not e.helper() for e in self.py_exts)
            or self.prompts
            or self.py_prompts
            or any(not isinstance(e.rule, Param) for e in self.protocol_errors)
            or any(not isinstance(g.rule, Param) and not g.opaque for g in self.guards)
        )

    def fires(self) -> bool:
        """Guards or protocol errors that may send a refusal (not only an opaque Part's media type)."""
        return bool(self.protocol_errors) or any(not g.opaque for g in self.guards)

    def unchecked(self) -> bool:
        """Its facts are unknown: a limit hit or a crashed parser (RL005). They depend on the
        limits and may come out next run, so no cache keeps them."""
        return self.problem is not None and self.problem.kind == ProblemKind.UNCHECKED

    def holds_nothing(self) -> bool:
        """No fact, problem, suppression or definition: as good as a file passed over."""
        return not (
            self.has_facts()
            or self.problem
            or self.suppressions
            or self.defs
            or self.imports
            or self.stars
            or self.calls
            or self.ctor_calls
        )

    def has_facts(self) -> bool:
        return bool(
            self.exts
            or self.py_exts
            or self.prompts
            or self.py_prompts
            or self.guards
            or self.protocol_errors
        )
