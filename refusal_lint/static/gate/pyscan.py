"""The cheap pre-check before extraction, on the tree CPython's parser builds in C.

It finds syntax errors where DESIGN wants them reported (the line `ast.parse` gives), and proves
most files that mention refusals hold no fact that can matter, so the extractor never walks them:
a superset of what extraction can find and binding can use (in doubt, it says yes)."""

from __future__ import annotations

import ast

from refusal_lint.core import spec
from refusal_lint.static.extract import guardclass, vocab
from refusal_lint.static.extract.python.walk import field_children, unpacked, walk_fields
from refusal_lint.static.gate.treenames import (
    SCOPES,
    aliases,
    assigned_names,
    binds,
    computed_locals,
    dict_keys,
    last,
    module_names,
    refusal_locals,
    root_of,
    unread_uri,
)

_SELF = frozenset({"self", "cls"})


class _Relevance:
    """Could this node become a fact that matters (DESIGN §2, §3)?"""

    def __init__(self, tree: ast.Module, guard_names: frozenset[str], ids: frozenset[str]) -> None:
        self.tree = tree
        self.guard_names = guard_names
        self.ids = ids
        self._names: set[str] | None = None
        self._aliases: dict[str, str] | None = None  # card classes and guards imported under other names
        self._strings: dict[str, str] | None = None
        self.scope: ast.AST | None = None  # the function being looked at (None: the module)
        self._computed: dict[int, frozenset[str]] = {}
        self._refusals: dict[int, frozenset[str]] = {}
        self._locals: dict[int, frozenset[str]] = {}
        self.deferred: list[ast.Call] | None = None  # computed-id calls, where the caller asks

    @property
    def computed(self) -> frozenset[str]:
        """The computed locals of the function being looked at (none at module level):
        found when a call first asks, as most functions hold no call that does."""
        scope = self.scope
        if scope is None:
            return frozenset()
        found = self._computed.get(id(scope))
        if found is None:
            found = self._computed[id(scope)] = computed_locals(scope)
        return found

    def refusal_local(self, node: ast.AST | None) -> bool:
        """A name the function being looked at may bind to a refusal (treenames.refusal_locals)."""
        scope = self.scope
        if scope is None or not isinstance(node, ast.Name):
            return False
        found = self._refusals.get(id(scope))
        if found is None:
            found = self._refusals[id(scope)] = refusal_locals(scope, self.guard_names)
        return node.id in found

    def module_name(self, node: ast.expr) -> bool:
        """A name that may resolve to a module-level value (of this module or an import)."""
        root = root_of(node)
        if root is None or root in _SELF:
            return False
        if self._names is None:
            self._names = module_names(self.tree)
        return binds(self._names, root)

    def module_string(self, name: str) -> str | None:
        """The value of a module-level `NAME = "..."` (or an f-string of such names) of this file."""
        if self._strings is None:
            self._strings = {}
            for stmt in self.tree.body:
                if (
                    isinstance(stmt, ast.Assign)
                    and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)
                ):
                    value = self._literal(stmt.value)
                    if value is not None:
                        self._strings[stmt.targets[0].id] = value
        return self._strings.get(name)

    def _literal(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr) and self._strings is not None:
            parts = []
            for v in node.values:
                if (
                    isinstance(v, ast.FormattedValue)
                    and isinstance(v.value, ast.Name)
                    and v.format_spec is None
                ):
                    part = self._strings.get(v.value.id)
                else:
                    part = self._literal(v) if isinstance(v, ast.Constant) else None
                if part is None:
                    return None
                parts.append(part)
            return "".join(parts)
        return None

    def id_like(self, node: ast.expr, keyword: bool = False) -> bool:
        """An argument that can be a rule id: an id-shaped string, or a name that may hold one.

        A positional string without white space may be an id, and so may a name that is not
        a computed local; a keyword that is not `rule` only where it is a kebab string
        (`type="refusal"`, `refusal=message.refusal` are a library's fields, not ids)."""
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, str) or not spec.may_be_rule_id(node.value):
                return False
            return not keyword or "-" in node.value or node.value in self.ids
        if keyword:
            return False
        if isinstance(node, (ast.Name, ast.Attribute)):
            # `items[-1].raw` and a computed local (or its attributes) hold no literal id.
            root = root_of(node)
            self_alone = isinstance(node, ast.Name) and root in _SELF
            return root is not None and root not in self.computed and not self_alone
        return isinstance(node, (ast.Subscript, ast.Starred))

    def guard_call(self, node: ast.Call) -> bool:
        if any(k.arg in vocab.RULE_KWARGS for k in node.keywords):
            return True  # a rule= argument: an id, or RL304 when it is computed
        if any(k.arg is None or self.id_like(k.value, keyword=True) for k in node.keywords):
            return True
        if any(isinstance(a, ast.Constant) and self.id_like(a) for a in node.args):
            return True
        if isinstance(node.func, ast.Attribute) and not node.args:  # Rule.X.refuse()
            return self.module_name(node.func.value) or isinstance(node.func.value, ast.Constant)
        # A name that may hold an id; computed ids (f-strings, calls) are RL304 only against a
        # card's rules. Either is a guard only if binding finds the callee one (deferred.py).
        if not any(self.id_like(a) for a in node.args) and not (
            self.ids and any(not isinstance(a, ast.Constant) for a in node.args)
        ):
            return False
        if self.deferred is not None:
            self.deferred.append(node)
        return self.deferred is None

    def string_or_name(self, node: ast.expr | None, kind: str) -> bool:
        """A URI or media type that is ours (or almost), or a name that may hold one."""
        if node is None:
            return False
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, str):
                return kind == "uri"  # RL101: a uri that is not a string, beside params
            check = spec.uri_kind if kind == "uri" else spec.media_type_kind
            return check(node.value) is not None
        if isinstance(node, ast.Name) and (value := self.module_string(node.id)) is not None:
            return self.string_or_name(ast.Constant(value), kind)
        while isinstance(node, ast.Subscript):
            node = node.value  # a table's entry (`EXTENSIONS["refusals"]`): the table
        if not isinstance(node, (ast.Name, ast.Attribute, ast.Call)):
            return True  # an f-string, a concatenation, a choice: binding may resolve it
        # `self.URI`, `cls.MEDIA_TYPE`: a class attribute binding resolves (the text gate,
        # extension_text_may_declare, lets it through the same way); so does a local's value
        # and a uri that is a helper's parameter (not one's attribute: SDK code copying `ext.uri`).
        attribute_of_self = isinstance(node, ast.Attribute) and root_of(node) in _SELF
        helper = kind == "uri" and isinstance(node, ast.Name)
        return attribute_of_self or helper or self.bound(node)

    def bound(self, node: ast.expr) -> bool:
        """A name (or its attribute) the module or the function being looked at binds."""
        return self.module_name(node) or self.local(node)

    def local(self, node: ast.expr) -> bool:
        """A name the function being looked at assigns (not only a parameter)."""
        root = root_of(node)
        if self.scope is None or root is None:
            return False
        if id(self.scope) not in self._locals:
            self._locals[id(self.scope)] = assigned_names(self.scope)
        return root in self._locals[id(self.scope)]

    def refusal_inside(self, node: ast.AST) -> bool:
        """A refusal inside a protocol error: a guard call, a payload, a subscript of the map,
        or a local bound to a guard call or payload."""
        for sub in walk_fields(node):
            if sub is node:
                continue
            if isinstance(sub, ast.Call) and vocab.is_guard_name(self.callee(sub.func), self.guard_names):
                return True
            if isinstance(sub, ast.Dict) and "rule" in dict_keys(sub):
                return True
            if isinstance(sub, ast.Subscript) and self.ids:
                return True
            if self.refusal_local(sub):
                return True
        return False

    def fires_in_init(self, node: ast.ClassDef) -> bool:
        """A subclass of a guard calling its base's constructor with an id (guardclass.super_init),
        or of a protocol error building it with a refusal (guardclass.super_error)."""
        calls, bases = [sub for sub in walk_fields(node) if isinstance(sub, ast.Call)], node.bases
        errors = any(guardclass.super_error(c, bases) and self.refusal_inside(c) for c in calls)
        return errors or any((b := guardclass.super_init(c, bases)) and self.guard_call(b) for c in calls)

    def callee(self, func: ast.expr) -> str:
        """A callee's last name, a card class or guard imported under another name as itself."""
        name = last(func)
        if isinstance(func, ast.Name):
            if self._aliases is None:
                self._aliases = aliases(self.tree)
            name = self._aliases.get(name, name)
        return name

    def call(self, node: ast.Call) -> bool:
        if (made := guardclass.partial_call(node)) is not None and self.call(made):
            return True
        name = self.callee(node.func)
        kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if vocab.is_extension_call(name, node.func):
            uri, params = kw.get("uri"), kw.get("params")
            return unread_uri(uri, params, self.bound) or self.string_or_name(uri, "uri")
        if name in spec.PROTOCOL_ERRORS:
            return self.refusal_inside(node)
        if vocab.is_guard_name(name, self.guard_names) and self.guard_call(node):
            return True
        if any(self.string_or_name(kw[k], "media") for k in vocab.MEDIA_KEYS if k in kw):
            return True
        if isinstance(kw.get("metadata"), ast.Dict) and "data" in kw:
            meta = dict_keys(kw["metadata"])  # type: ignore[arg-type]
            if any(self.string_or_name(meta[k], "media") for k in vocab.METADATA_MEDIA_KEYS if k in meta):
                return True
        if vocab.is_payload(kw):
            return True  # dict(rule=..., reason=...)
        # A call passing a card's rule id, maybe to a helper that fires it.
        return bool(self.ids) and any(
            isinstance(a, ast.Constant) and a.value in self.ids for a in (*node.args, *kw.values())
        )

    def handler(self, node: ast.ExceptHandler | ast.If) -> bool:
        """`except Refusal: raise ServerError(...)` (or under `if isinstance(exc, Refusal):`):
        a caught refusal sent as a protocol error."""
        if not vocab.catches_refusal(node, self.guard_names):
            return False
        for sub in (n for stmt in node.body for n in walk_fields(stmt)):
            if isinstance(sub, ast.Call) and last(sub.func) in spec.PROTOCOL_ERRORS:
                return True
            if isinstance(sub, ast.Dict) and isinstance(dict_keys(sub).get("error"), (ast.Dict, ast.Call)):
                return True
        return False

    def dict(self, node: ast.Dict) -> bool:
        keys = dict_keys(node)
        if "uri" in keys and ("params" in keys or self.string_or_name(keys["uri"], "uri")):
            return True
        if vocab.is_payload(keys):
            return True
        media = vocab.part_media(keys)
        if media is not None and "data" in keys and self.string_or_name(media, "media"):
            return True
        error = keys.get("error")
        # As the extractor's envelope (calls.visit_Dict): an error object or a call.
        return (isinstance(error, (ast.Dict, ast.Call)) and self.refusal_inside(node)) or self.refusal_local(
            error
        )


def may_hold_facts(
    tree: ast.Module,
    guard_names: frozenset[str],
    ids: frozenset[str] = frozenset(),
    deferred: list[ast.Call] | None = None,
) -> bool:
    """True unless no node of the tree can become a card, guard, payload, error or helper
    call fact that matters (prompt candidates are the second stage's); `deferred`: see guard_call."""
    check = _Relevance(tree, guard_names, ids)
    check.deferred = deferred
    # Each node with the function whose locals it sees (a function's own: from its node on).
    stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, SCOPES):
            scope = node
        check.scope = scope
        if isinstance(node, ast.Call) and check.call(node):
            return True
        if isinstance(node, ast.ClassDef):
            if guardclass.builds_guard(node) or check.fires_in_init(node) or vocab.declares_extension(node):
                return True
        elif (isinstance(node, ast.Dict) and check.dict(node)) or (
            isinstance(node, (ast.ExceptHandler, ast.If)) and check.handler(node)
        ):
            return True
        stack.extend((child, scope) for child in field_children(node))
    return False


_NO_MODULE = ast.Module(body=[], type_ignores=[])


def call_alone(text: bytes) -> ast.Call | None:
    """One call's text parsed alone; None where it does not parse so (then: in doubt, yes)."""
    try:
        node = ast.parse(text.decode("utf-8"), mode="eval").body
    except (SyntaxError, UnicodeDecodeError, ValueError, RecursionError, MemoryError):
        return None
    return node if isinstance(node, ast.Call) else None


def call_text_may_fire(text: bytes, receiver: bool, ids: frozenset[str] = frozenset()) -> bool:
    """The text of one guard call (`refuse("seg-mix", ...)`), read alone: can its arguments
    carry a rule id (with a card's `ids`, a computed one: RL304)? In doubt, yes."""
    node = call_alone(text)
    if node is None:
        return True
    node = guardclass.partial_call(node) or node  # `partial(refuse, "x-y")`: as `refuse("x-y")`
    if receiver and not node.args and not node.keywords:
        return True  # `Rule.SEG_MIX.refuse()`: the receiver may be the rule
    return _Relevance(_NO_MODULE, frozenset(), ids).guard_call(node)


def may_hold_prompt(tree: ast.Module) -> bool:
    """True unless no node can become a prompt candidate (DESIGN §2's table) whose value
    can be prose: a parameter passed on (`instructions=instructions`) never is one."""
    stack: list[tuple[ast.AST, frozenset[str]]] = [(tree, frozenset())]
    renamed = aliases(tree)  # `PromptTemplateConfig as PTC`: read as itself
    while stack:
        node, params = stack.pop()
        if isinstance(node, SCOPES):
            a = node.args
            params = params | {
                p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p
            }
            if not isinstance(node, ast.Lambda) and any(
                last(d.func if isinstance(d, ast.Call) else d) in vocab.PROMPT_DECORATORS
                for d in node.decorator_list
            ):
                return True
        if _prompt_node(node, params, renamed):
            return True
        stack.extend((child, params) for child in field_children(node))
    return False


def _prompt_node(node: ast.AST, params: frozenset[str], renamed: dict[str, str]) -> bool:
    if isinstance(node, ast.Call):
        if any(k.arg in vocab.PROMPT_KWARGS and _prose(k.value, params) for k in node.keywords):
            return True
        role = next((k.value for k in node.keywords if k.arg == vocab.ROLE_KWARG), None)
        texts = (*node.args[:1], *(k.value for k in node.keywords if k.arg in vocab.SYSTEM_CALL_TEXT_KWARGS))
        if role is not None and vocab.is_system_role(role) and any(_prose(v, params) for v in texts):
            return True
        name = renamed.get(last(node.func), last(node.func))
        receiver = last(node.func.value) if isinstance(node.func, ast.Attribute) else None
        if vocab.is_system_call(name) or vocab.is_system_template(receiver, name):
            return any(_prose(v, params) for v in (*node.args, *(k.value for k in node.keywords)))
    elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
        pairs = [(t, node.value) for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]
        while pairs:  # `SYSTEM_PROMPT, MODEL = "...", "..."` unpacked, as defs.py reads it
            t, value = pairs.pop()
            pairs += unpacked(t, value)
            named = vocab.is_prompt_name(t.id if isinstance(t, ast.Name) else getattr(t, "attr", ""))
            if (named or vocab.prompt_key_assigned(t) is not None) and _prose(value, params):
                return True
    elif isinstance(node, ast.Dict):
        keys = dict_keys(node)
        role = keys.get("role")
        if isinstance(role, ast.Constant) and role.value in vocab.CHAT_SYSTEM_ROLES and "content" in keys:
            return _prose(keys["content"], params)
        return any(vocab.is_prompt_key(k) and _prose(v, params) for k, v in keys.items())
    elif isinstance(node, ast.Tuple) and len(node.elts) == 2:
        first = node.elts[0]
        return (
            isinstance(first, ast.Constant)
            and first.value in vocab.CHAT_SYSTEM_ROLES
            and _prose(node.elts[1], params)
        )
    return False


def _prose(value: ast.expr, params: frozenset[str]) -> bool:
    """May it become prompt text: a string with white space, a template, a call, a name no parameter?"""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str) and any(c.isspace() for c in value.value.strip())
    if isinstance(value, (ast.Name, ast.Attribute)):
        root = root_of(value)
        return root is not None and (root in _SELF or root not in params)
    if isinstance(value, (ast.List, ast.Tuple)):
        # instruction strings, or text blocks (`[{"type": "text", "text": ...}]`)
        return any(isinstance(e, ast.Dict) or _prose(e, params) for e in value.elts)
    if isinstance(value, ast.Lambda):  # `instructions=lambda agent: "You are ..."`: what it returns
        return _prose(value.body, params | {a.arg for a in value.args.args})
    return isinstance(value, (ast.JoinedStr, ast.BinOp, ast.Call, ast.Subscript, ast.IfExp, ast.BoolOp))
