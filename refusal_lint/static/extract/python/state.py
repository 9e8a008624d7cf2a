"""The state the Python extractor's visitors share (defs.py reads definitions, calls.py
recognises calls, dicts and Parts): what was found so far, and the small helpers both use."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import NamedTuple

from refusal_lint.core.facts import (
    CallV,
    Const,
    CtorCall,
    Dyn,
    Each,
    ErrorUse,
    Fmt,
    Guard,
    ImportRef,
    Item,
    Join,
    Op,
    Param,
    PyExt,
    PyPrompt,
    Ref,
    Seq,
    Str,
    Sub,
    Value,
)
from refusal_lint.core.kinds import PromptForm, ValueKind
from refusal_lint.core.model import Loc
from refusal_lint.static.extract import vocab
from refusal_lint.static.extract.python.scopes import dotted, str_key
from refusal_lint.static.extract.python.source import Source
from refusal_lint.static.extract.python.values import ValueBuilder

_CHOICE_DEPTH = 4  # nested conditionals and locals followed for the ids a guard may take


def _null(value: Value) -> bool:
    return isinstance(value, Const) and value.kind == ValueKind.NULL


class CardCall(NamedTuple):
    """An `AgentCard(...)` call: where it is (the card's identity) and its `name=`."""

    ident: str
    name: str | None


@dataclass
class OpenError:
    """A protocol error whose arguments are being visited: the id of a guard inside it, and
    the `RULES[...]` lookups inside it (they may name the rule)."""

    use: ErrorUse
    lookups: list[Value]


class ExtractorState(ValueBuilder):
    """What the visitors have found so far, and the helpers every recogniser uses."""

    def __init__(
        self,
        src: Source,
        guard_callables: tuple[str, ...],
    ) -> None:
        super().__init__(src)
        self.init_maps: dict[str, dict[str, tuple[int, str]]] = {}  # class -> self.attr -> __init__ arg
        self.ctor_calls: list[CtorCall] = []
        self.all_cards: list[CardCall] = []  # every AgentCard(...) of the file
        self.open_cards: list[CardCall] = []  # the enclosing AgentCard(...) calls
        self.open_errors: list[OpenError] = []  # protocol errors being built, innermost last
        # The `except` handlers being walked, innermost last: does each catch a refusal?
        self.caught: list[bool] = []
        # Dict literals no payload of their own: a Part's data, a log record, a value compared.
        self.consumed: set[int] = set()
        self.payload_guards: dict[int, Guard] = {}  # dict literal -> its payload guard
        self.defs: dict[str, Value] = {}
        self.filled: dict[str, list[Item]] = {}  # module dicts' items set in functions (defs.py)
        self.imports: dict[str, ImportRef] = {}
        self.stars: list[ImportRef] = []  # `from m import *` at module level, in order
        self.guards: list[Guard] = []
        self.error_uses: list[ErrorUse] = []
        self.exts: list[PyExt] = []
        self.prompts: list[PyPrompt] = []
        self.calls: list[CallV] = []
        self.guard_plain = frozenset(g for g in guard_callables if "." not in g)
        self.guard_dotted = frozenset(g for g in guard_callables if "." in g)

    def visit_Compare(self, node: ast.Compare) -> None:
        # A payload compared (`assert payload == {"rule": "seg-mix", ...}` in a test): the
        # value expected, no refusal sent.
        self.consumed.update(id(n) for n in (node.left, *node.comparators) if isinstance(n, ast.Dict))

    def kwarg(self, node: ast.Call, *names: str) -> ast.expr | None:
        for k in node.keywords:
            if k.arg in names:
                return k.value
        return None

    def first_arg(self, node: ast.Call) -> ast.expr | None:
        """The first argument written, if it is a plain positional one."""
        if not node.args or isinstance(node.args[0], ast.Starred):
            return None
        first = node.args[0]
        if any((k.lineno, k.col_offset) < (first.lineno, first.col_offset) for k in node.keywords):
            return None  # `f(rule=x, *rest)`: a keyword stands first
        return first

    def forwarded(self, node: ast.Call) -> Param | None:
        """The id a call passes on from its function's own `*args` or `**kwargs`
        (`return refuse(*args, **kwargs)`): what the function's call sites pass there."""
        scope = self.scopes[-1] if self.scopes else None
        if scope is None or not scope.func:
            return None
        star, double = scope.stars
        first = node.args[0] if node.args else None
        if (
            star
            and isinstance(first, ast.Starred)
            and isinstance(first.value, ast.Name)
            and first.value.id == star
        ):
            return Param(f"*{star}", self.loc(first), scope.func)
        for k in node.keywords:
            if double and k.arg is None and isinstance(k.value, ast.Name) and k.value.id == double:
                return Param(f"**{double}", self.loc(k.value), scope.func)
        return None

    def qualified(self, name_path: str) -> str:
        """`p.block` with `import myagent.policy as p` -> `myagent.policy.block`."""
        head, _, rest = name_path.partition(".")
        ref = self.imports.get(head)
        if ref is None:
            return name_path
        module = ref.module
        if ref.level:  # `from .policy import block` in ops/tools.py: `ops.policy`
            package = self.path.split("/")[: -ref.level]
            module = ".".join([*package, *([module] if module else [])])
        base = f"{module}.{ref.name}" if ref.name and module else ref.name or module
        return f"{base}.{rest}" if rest else base

    def card_class(self, func: ast.expr) -> str | None:
        """The card class or prompt callee a callee names under a name of its module's own
        (`Ext`, after `from a2a.types import AgentExtension as Ext`), else None."""
        if isinstance(func, ast.Name):
            ref = self.imports.get(func.id)
            if ref is not None and ref.name is not None and vocab.renamed_as_itself(ref.name):
                return ref.name
        return None

    def argument(self, node: ast.expr) -> Value:
        """A call's argument, which may be a guard's id: where it is one of a few names or
        literals the function writes (`"a" if c else "b"`, a local assigned only those in
        its branches or by such a conditional, `None` aside), each of them, as a loop over
        them takes each."""
        choices = self._choices(node, 0)
        if choices is None:
            return self.value(node)
        values = [v for v in map(self.value, choices) if not _null(v)]
        if not values or not all(isinstance(v, (Str, Ref)) for v in values):
            return self.value(node)
        loc = self.loc(node)
        return values[0] if len(values) == 1 else Each(Seq(tuple(values), loc), "iter", -1, loc)

    def _choices(self, node: ast.expr, depth: int) -> list[ast.expr] | None:
        """The literals and names a conditional or a local assigned more than once may give
        (None: it is neither, or may give something else too: a call, an operation)."""
        if depth > _CHOICE_DEPTH:
            return None
        if isinstance(node, ast.IfExp):
            options: tuple[ast.expr, ...] = (node.body, node.orelse)
        elif isinstance(node, ast.Name) and self.scopes and self.scopes[-1].is_function:
            options = self.scopes[-1].ready().assigned.get(node.id, ())
            if len(options) < 2 and not (options and isinstance(options[0], ast.IfExp)):
                return None  # one value: the local's own (`rule = pick(x)`), unless a conditional
        else:
            return None
        out: list[ast.expr] = []
        for option in options:
            if isinstance(option, ast.IfExp) or (
                isinstance(option, ast.Name) and option.id != getattr(node, "id", "")
            ):
                deeper = self._choices(option, depth + 1)
                if deeper is not None:
                    out.extend(deeper)
                    continue
            if not isinstance(option, (ast.Constant, ast.Name, ast.Attribute)):
                return None  # a call, an operation: not one of a few literals
            out.append(option)
        return out

    def run_deps(self, node: ast.Call) -> None:
        """`agent.run_sync(q, deps=REFUSAL_PARAMS)`: what `ctx.deps` holds in that agent's
        prompt functions (the first run found speaks for all)."""
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _RUNS and isinstance(func.value, ast.Name):
            for kw in node.keywords:
                if kw.arg == "deps":
                    self.defs.setdefault(f"{func.value.id}@deps", self.value(kw.value))

    def aliased(self, node: ast.Call) -> bool:
        """A guard imported under another name (`from errors import Refusal as Deny`: `Deny(...)`)."""
        if not isinstance(node.func, ast.Name):
            return False
        ref = self.imports.get(node.func.id)
        return ref is not None and ref.name is not None and vocab.is_guard_name(ref.name)

    def local_forwarded(self, name: str) -> bool:
        """A local of the function bound only to a refusal read under its key (vocab.reads_refusal)."""
        if not self.scopes or not self.scopes[-1].is_function:
            return False
        values = self.scopes[-1].ready().assigned.get(name, ())
        return bool(values) and all(vocab.reads_refusal(v) for v in values)

    def is_guard_call(self, node: ast.Call, name: str) -> bool:
        if vocab.is_guard_name(name, self.guard_plain) or self.aliased(node):
            return True
        if not self.guard_dotted:
            return False
        full = self.qualified(dotted(node.func) or name)
        return any(full == g or full.endswith("." + g) for g in self.guard_dotted)

    def local_import(self, local: str, module: str, name: str, level: int) -> str | None:
        """A function-level `from m import n as local`, kept among the module's imports under
        a key no Python name can be (it holds `@`, and no `.`, which lookups split at): the
        key spells the import itself, so equal keys are the same import."""
        key = f"{local}@{level}:{module.replace('.', ':')}:{name}"
        self.imports.setdefault(key, ImportRef(module, name, level))
        return key

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        super().visit_ExceptHandler(node)
        self.caught.append(vocab.catches_refusal(node, self.guard_plain))

    def leave_ExceptHandler(self, original_node: ast.ExceptHandler) -> None:
        self.caught.pop()

    def visit_If(self, node: ast.If) -> bool:
        """`if isinstance(exc, Refusal):`: its body holds a refusal, as a handler's does; its
        `else` does not."""
        if not vocab.catches_refusal(node, self.guard_plain):
            return True
        self.walk(node.test)
        self.caught.append(True)
        for stmt in node.body:
            self.walk(stmt)
        self.caught.pop()
        for stmt in node.orelse:
            self.walk(stmt)
        return False

    def current_card(self) -> CardCall:
        """The card an extension declared here belongs to: the enclosing `AgentCard(...)`, else the file."""
        return self.open_cards[-1] if self.open_cards else CardCall(self.path, None)

    def open_error(self, loc: Loc, name: str) -> None:
        self.open_errors.append(OpenError(ErrorUse(loc, name, None), []))

    def close_error(self) -> None:
        closed = self.open_errors.pop()
        use = closed.use
        caught = use.rule is None and not self.open_errors and bool(self.caught) and self.caught[-1]
        if caught and not closed.lookups:
            # `except Refusal as exc: raise ServerError(...)`: the refusal caught is sent as
            # the error, whichever it was (its id is not known here: `rule_id` null).
            use = ErrorUse(use.loc, use.name, Dyn(use.loc))
        if use.rule is None and not closed.lookups:
            return
        if self.open_errors:
            # A nested error (ServerError(error=InvalidParamsError(...))) is reported once, outermost.
            outer = self.open_errors[-1]
            if outer.use.rule is None:
                outer.use = ErrorUse(outer.use.loc, outer.use.name, use.rule)
            outer.lookups += closed.lookups
            return
        # With lookups (`{"error": {..., "id": body["id"]}}`) caught too: RL305 whether or
        # not a lookup into the params map names the rule.
        self.error_uses.append(ErrorUse(use.loc, use.name, use.rule, tuple(closed.lookups), caught=caught))

    def add_guard(self, guard: Guard) -> None:
        if self.open_errors:
            # A guard inside a protocol error: the refusal travels as that error (RL305), and
            # is a guard still, its id and payload checked as any other's.
            current = self.open_errors[-1]
            if current.use.rule is None and guard.rule is not None:
                current.use = ErrorUse(current.use.loc, current.use.name, guard.rule)
        self.guards.append(guard)

    def dict_prompts(self, keys: dict[str, ast.expr]) -> None:
        """`{"role": "system", "content": X}` and `{"system_prompt": X}`."""
        role = str_key(keys.get("role"))
        if role in vocab.CHAT_SYSTEM_ROLES and "content" in keys:
            self.prompt_arg(keys["content"], f'role="{role}"', PromptForm.CHAT_MESSAGE)
        for key, value in keys.items():
            if vocab.is_prompt_key(key):
                self.prompt_arg(value, f'"{key}"', PromptForm.DICT_ENTRY)

    def visit_Tuple(self, node: ast.Tuple) -> None:
        # ("system", X) in a message list: ChatPromptTemplate.from_messages([("system", X), ...])
        if len(node.elts) == 2 and str_key(node.elts[0]) in vocab.CHAT_SYSTEM_ROLES:
            second = node.elts[1]
            self.prompt_arg(
                second.value if isinstance(second, ast.Starred) else second,
                "(system, ...)",
                PromptForm.CHAT_MESSAGE,
            )

    def prompt_arg(self, node: ast.expr, source: str, form: PromptForm) -> None:
        if isinstance(node, ast.Lambda):
            node = node.body  # `instructions=lambda agent: "You are ..."`: the text it returns
        if isinstance(node, ast.IfExp):
            # `instructions=FORMAL if formal else CASUAL`: either is sent, each a candidate.
            self.prompt_arg(node.body, source, form)
            self.prompt_arg(node.orelse, source, form)
            return
        value = self.value(node)
        # A list or tuple where one string is accepted (`instructions=[...]`, text blocks):
        # binding reads each item (bind/bound.py); a starred one (`*[f"- {k}: {v}" for ...]`)
        # as the items it unpacks.
        if isinstance(node, (ast.List, ast.Tuple)) and any(isinstance(e, ast.Starred) for e in node.elts):
            value = Seq(
                tuple(self.value(e.value if isinstance(e, ast.Starred) else e) for e in node.elts), value.loc
            )
        if isinstance(value, (Str, Join, Op, Ref, Dyn, Fmt, CallV, Seq, Sub)):  # Sub: `TEXTS["desk"]`
            self.prompts.append(PyPrompt(self.loc(node), value, source, form))

    def key_loc(self, node: ast.Dict, key: str) -> Loc:
        for k in node.keys:
            if str_key(k) == key:
                assert k is not None
                return self.loc(k)
        return self.loc(node)


def params_of(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple[str, ...], tuple[str, ...]]:
    positional = tuple(p.arg for p in (*fn.args.posonlyargs, *fn.args.args))
    return positional, tuple(p.arg for p in fn.args.kwonlyargs)


def defaults_of(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, ast.expr]]:
    """The parameters that have a default, with it."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    pairs = [*zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)]
    pairs += [(p, d) for p, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    return [(p.arg, d) for p, d in pairs]


def str_keys(node: ast.Dict) -> dict[str, ast.expr]:
    """A dict literal's string-keyed members (the last of a repeated key, as Python keeps)."""
    return {k: v for key, v in zip(node.keys, node.values, strict=True) if (k := str_key(key)) is not None}


# The calls that run a pydantic-ai agent, handing its prompt functions their `deps=`.
_RUNS = frozenset({"run", "run_sync", "run_stream", "iter"})


def deps_context(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, str] | None:
    """A module function decorated `@agent.system_prompt` (or `@agent.instructions`): its
    first parameter (the run context) and the agent's name."""
    params = node.args.posonlyargs + node.args.args
    for d in node.decorator_list:
        d = d.func if isinstance(d, ast.Call) else d
        if (
            isinstance(d, ast.Attribute)
            and d.attr in vocab.PROMPT_DECORATORS
            and isinstance(d.value, ast.Name)
        ):
            return (params[0].arg, d.value.id) if params else None
    return None
