"""Facts of one Python file, read with libcst (imported here only, inside workers).

Everything is recorded symbolically (see facts.py); nothing of the user's code is run.
"""

from __future__ import annotations

import dataclasses
import re

import libcst as cst

from refusal_lint import sourcetext, spec
from refusal_lint.extract import vocab
from refusal_lint.extract.positions import Positions
from refusal_lint.extract.pyvalues import Scope, ValueBuilder, dotted, last_name, str_key
from refusal_lint.facts import (
    Attr,
    CallV,
    CtorCall,
    Dyn,
    Each,
    ErrorUse,
    FileFacts,
    Fmt,
    Fn,
    Guard,
    ImportRef,
    Join,
    Op,
    Param,
    PyExt,
    PyPrompt,
    Ref,
    Str,
    Sub,
    Suppression,
    Value,
)
from refusal_lint.filekinds import FileKind
from refusal_lint.kinds import FnKind, GuardKind, PromptForm
from refusal_lint.model import Loc

SUPPRESS = re.compile(r"#\s*refusal-lint:\s*ignore(?:\[([A-Za-z0-9,\s]*)\])?")


class _Extractor(ValueBuilder):
    """The recognisers: cards, guards, payloads, Parts, prompts, errors, definitions."""

    def __init__(
        self,
        path: str,
        module: cst.Module,
        pos: Positions,
        guard_callables: tuple[str, ...],
    ) -> None:
        super().__init__(path, module, pos)
        self.init_maps: dict[str, dict[str, tuple[int, str]]] = {}  # class -> self.attr -> __init__ arg
        self.ctor_calls: list[CtorCall] = []
        self.card_names: list[str | None] = []  # every AgentCard(name=...) of the file
        self.card_ids: list[str] = []  # every AgentCard(...) of the file
        self.cards: list[tuple[str, str | None]] = []  # enclosing AgentCard(...) calls
        self.errors: list[tuple[ErrorUse, list[Value]]] = []  # open protocol-error contexts
        self.consumed: set[int] = set()  # dict literals already taken as a Part's data
        self.payload_guards: dict[int, Guard] = {}  # dict literal -> its payload guard
        self.defs: dict[str, Value] = {}
        self.imports: dict[str, ImportRef] = {}
        self.guards: list[Guard] = []
        self.error_uses: list[ErrorUse] = []
        self.exts: list[PyExt] = []
        self.prompts: list[PyPrompt] = []
        self.calls: list[CallV] = []
        self.suppressions: list[Suppression] = []
        self.guard_plain = frozenset(g for g in guard_callables if "." not in g)
        self.guard_dotted = frozenset(g for g in guard_callables if "." in g)

    # ---- module-level definitions ------------------------------------------------------

    def define(self, target: cst.BaseExpression, value: cst.BaseExpression, prefix: str = "") -> None:
        if not isinstance(target, cst.Name):
            return
        name = prefix + target.value
        self.defs[name] = self.value(value)
        if vocab.is_prompt_name(target.value):
            self.prompts.append(
                PyPrompt(self.loc(target), self.defs[name], target.value, PromptForm.ASSIGNMENT)
            )

    def at_module_level(self) -> bool:
        return not self.scopes and not self.classes

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.scopes:
            self.bind_local_dicts(node)
            for t in node.targets:
                self.instance_prompt(t.target, node.value)
            return
        prefix = self.class_prefix()
        for t in node.targets:
            self.define(t.target, node.value, prefix)

    def instance_prompt(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        """`self._system_prompt = (...)` in a method: an instance attribute holding a prompt."""
        if (
            value is not None
            and self.classes
            and isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value in ("self", "cls")
            and vocab.is_prompt_name(target.attr.value)
        ):
            self.prompts.append(
                PyPrompt(self.loc(target), self.value(value), target.attr.value, PromptForm.ASSIGNMENT)
            )

    def bind_local_dicts(self, node: cst.Assign) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Name) and isinstance(node.value, cst.Dict):
                self.scopes[-1].dicts[t.target.value] = node.value

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is None:
            return
        if self.scopes:
            self.instance_prompt(node.target, node.value)
            return
        value = node.value
        if isinstance(value, cst.Call) and last_name(value.func) == "field":
            # A dataclass field: `system_prompt: str = field(default="...")`.
            default = next((a.value for a in value.args if a.keyword and a.keyword.value == "default"), None)
            if default is None:
                return
            value = default
        self.define(node.target, value, self.class_prefix())

    def visit_Import(self, node: cst.Import) -> None:
        if not self.at_module_level():
            return
        for alias in node.names:
            name_path = dotted(alias.name) or ""
            if alias.asname is not None:
                self.imports[dotted(alias.asname.name) or name_path] = ImportRef(name_path, None, 0)
            else:
                head = name_path.split(".")[0]
                self.imports[head] = ImportRef(head, None, 0)
                if "." in name_path:
                    self.imports[name_path] = ImportRef(name_path, None, 0)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not self.at_module_level() or isinstance(node.names, cst.ImportStar):
            return
        module = dotted(node.module) if node.module is not None else ""
        for alias in node.names:
            name = dotted(alias.name) or ""
            local = dotted(alias.asname.name) if alias.asname else name
            self.imports[local or name] = ImportRef(module or "", name, len(node.relative))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        attrs: set[str] = set()
        fields: list[str] = []
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        init: cst.FunctionDef | None = None
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign):
                        attrs |= {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
                    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        attrs.add(small.target.value)
                        if "ClassVar" not in self.module.code_for_node(small.annotation.annotation):
                            fields.append(small.target.value)
            elif isinstance(stmt, cst.FunctionDef):
                attrs.add(stmt.name.value)
                if stmt.name.value == "__init__":
                    init = stmt
                    self.init_maps[node.name.value] = _init_map(stmt)
        if not self.scopes:
            # The class as a callee: `Check("seg-mix", hit)` binds by __init__ or by its fields
            # (dataclass, NamedTuple, pydantic model).
            if init is not None:
                params = _params(init)
                ctor = (params[0][1:], params[1])
            else:
                ctor = (tuple(fields), ())
            name = self.class_prefix() + node.name.value
            self.defs[name] = Fn(self.path, name, FnKind.CLASS, ctor[0], ctor[1], (), self.loc(node.name))
        is_enum = any((last_name(b.value) or "").endswith("Enum") for b in node.bases)
        if is_enum and not self.scopes:
            prefix = self.class_prefix()
            str_enum = any(last_name(b.value) == "StrEnum" for b in node.bases)
            for stmt in body:
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for small in stmt.body:
                    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                        continue
                    target = small.targets[0].target
                    if (
                        str_enum
                        and isinstance(target, cst.Name)
                        and isinstance(small.value, cst.Call)
                        and last_name(small.value.func) == "auto"
                    ):
                        self.defs[f"{prefix}{node.name.value}.{target.value}"] = Str(
                            target.value.lower(), self.loc(small.value), literal=False
                        )
        self.classes.append((node.name.value, attrs))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # Functions of the module or of a class have a name call sites can reach; nested ones do not.
        qualname = self.class_prefix() + node.name.value if not self.scopes else ""
        scope = Scope(func=qualname)
        params = node.params
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            scope.passthrough.add(p.name.value)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.passthrough.add(star.name.value)
        scope.body = node.body
        self.scopes.append(scope)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        scope = self.scopes.pop()
        if not scope.func:
            return
        decorators = {last_name(d.decorator) or "" for d in original_node.decorators}
        decorators |= {
            last_name(d.decorator.func) or ""
            for d in original_node.decorators
            if isinstance(d.decorator, cst.Call)
        }
        kind = FnKind.METHOD if self.classes and "staticmethod" not in decorators else FnKind.FUNCTION
        positional, kwonly = _params(original_node)
        self.defs[scope.func] = Fn(
            self.path,
            scope.func,
            kind,
            positional,
            kwonly,
            tuple(scope.returns),
            self.loc(original_node.name),
        )
        if decorators & vocab.PROMPT_DECORATORS and not self.classes:
            for value in scope.returns:
                self.prompts.append(
                    PyPrompt(value.loc, value, f"@{original_node.name.value}", PromptForm.PROMPT_FUNCTION)
                )

    def visit_Return(self, node: cst.Return) -> None:
        if self.scopes and self.scopes[-1].is_function and node.value is not None:
            value = self.value(node.value)
            if isinstance(value, (Str, Join, Op, Fmt, Ref)):
                self.scopes[-1].returns.append(value)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        scope = Scope(is_function=False)
        for p in node.params.params:
            scope.passthrough.add(p.name.value)
        self.scopes.append(scope)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.scopes.pop()

    # ---- comments ------------------------------------------------------------------

    def visit_Comment(self, node: cst.Comment) -> None:
        m = SUPPRESS.search(node.value)
        if m is None:
            return
        loc = self.loc(node)
        codes = tuple(c.strip().upper() for c in (m.group(1) or "").split(",") if c.strip())
        self.suppressions.append(Suppression(loc.line, codes, loc))

    # ---- calls: cards, guards, parts, prompts, errors ----------------------------------

    def kwarg(self, node: cst.Call, *names: str) -> cst.BaseExpression | None:
        for a in node.args:
            if a.keyword is not None and a.keyword.value in names:
                return a.value
        return None

    def first_arg(self, node: cst.Call) -> cst.BaseExpression | None:
        for a in node.args:
            if a.keyword is None and a.star == "":
                return a.value
            break
        return None

    def is_guard_call(self, node: cst.Call, name: str) -> bool:
        if vocab.is_guard_name(name, self.guard_plain):
            return True
        if not self.guard_dotted:
            return False
        full = self.qualified(dotted(node.func) or name)
        return any(full == g or full.endswith("." + g) for g in self.guard_dotted)

    def qualified(self, name_path: str) -> str:
        """`p.block` with `import myagent.policy as p` -> `myagent.policy.block`."""
        head, _, rest = name_path.partition(".")
        ref = self.imports.get(head)
        if ref is None:
            return name_path
        base = f"{ref.module}.{ref.name}" if ref.name and ref.module else ref.name or ref.module
        return f"{base}.{rest}" if rest else base

    def visit_Call(self, node: cst.Call) -> None:
        name = last_name(node.func) or ""
        loc = self.loc(node)
        if name == "AgentCard":
            card_name = str_key(self.kwarg(node, "name"))
            card_id = loc.ident
            self.cards.append((card_id, card_name))
            self.card_names.append(card_name)
            self.card_ids.append(card_id)
        if name in spec.PROTOCOL_ERRORS:
            self.errors.append((ErrorUse(loc, name, None), []))
        if name == "AgentExtension":
            self.agent_extension(node, loc)
        elif name[:1].isupper() and (name.endswith("Extension") or vocab.is_guard_name(name)):
            self.ctor_calls.append(
                CtorCall(
                    name,
                    tuple(self.value(a.value) for a in node.args if a.keyword is None and a.star == ""),
                    tuple((a.keyword.value, self.value(a.value)) for a in node.args if a.keyword is not None),
                    loc,
                )
            )
        self.chat_prompt(node, name)
        for a in node.args:
            if a.keyword is not None and a.keyword.value in vocab.PROMPT_KWARGS:
                self.prompt_arg(a.value, f"{a.keyword.value}=", PromptForm.KEYWORD)
        media = self.kwarg(node, *vocab.MEDIA_KEYS)
        meta = self.kwarg(node, "metadata")
        if media is None and isinstance(meta, cst.Dict) and self.kwarg(node, "data") is not None:
            # a2a-sdk 0.3: DataPart(data=..., metadata={"mediaType": ...})
            media = next(
                (
                    el.value
                    for el in meta.elements
                    if isinstance(el, cst.DictElement) and str_key(el.key) in vocab.MEDIA_KEYS
                ),
                None,
            )
        if media is not None:
            data = self.kwarg(node, "data") or self.first_arg(node)
            self.part(media, data, loc)
        if name == "dict" and self.kwarg(node, "rule") is not None:
            self.dict_call_payload(node, loc)
        if name and self.is_guard_call(node, name):
            self.guard_call(node, loc)
        elif node.args:
            call = self.call_of(node, loc)
            if call is not None and any(_may_carry_id(v) for v in (*call.args, *(v for _, v in call.kwargs))):
                self.calls.append(call)  # may pass a rule id to a repo helper

    def guard_call(self, node: cst.Call, loc: Loc) -> None:
        rule = self.kwarg(node, *vocab.RULE_KWARGS) or self.first_arg(node)
        reason = self.kwarg(node, "reason")
        reason_value = self.value(reason) if reason is not None else None
        call = self.call_of(node, loc)
        if rule is not None and not isinstance(rule, cst.Dict):
            self.add_guard(Guard(loc, GuardKind.CALL, self.value(rule), reason_value, call=call))
        elif rule is None and isinstance(node.func, cst.Attribute):
            # `Rule.SEG_MIX.refuse(detail=...)`: the receiver is the rule, if it is one.
            receiver = self.value(node.func.value)
            if isinstance(receiver, (Ref, Str)):
                self.add_guard(Guard(loc, GuardKind.CALL, receiver, reason_value, receiver=True))
        elif rule is None and call is not None:
            # `refuse(updater, rule=...)` is handled above; a repo helper may still bind the id
            # by a parameter of its own: keep the call for the binder.
            self.add_guard(Guard(loc, GuardKind.CALL, None, reason_value, call=call))

    def agent_extension(self, node: cst.Call, loc: Loc) -> None:
        uri = self.kwarg(node, "uri")
        if uri is None:
            return
        req = self.kwarg(node, "required")
        params = self.kwarg(node, "params")
        card, card_name = self.cards[-1] if self.cards else (self.path, None)
        pvalue = self.value(params) if params else None
        owner, init_arg = None, None
        if isinstance(pvalue, Param) and pvalue.name.startswith("self.") and self.classes:
            owner = self.classes[-1][0]
            init_arg = self.init_maps.get(owner, {}).get(pvalue.name[5:])
        self.exts.append(
            PyExt(
                loc,
                card,
                self.value(uri),
                self.value(req) if req else None,
                pvalue,
                card_name,
                owner=owner,
                init_arg=init_arg,
            )
        )

    def chat_prompt(self, node: cst.Call, name: str) -> None:
        """`SystemMessage(X)`, `SystemMessage(content=X)`, `SystemMessagePromptTemplate.from_template(X)`."""
        arg: cst.BaseExpression | None = None
        if name == "SystemMessage":
            arg = self.kwarg(node, "content") or self.first_arg(node)
        elif (
            name in ("from_template", "from_messages")
            and isinstance(node.func, cst.Attribute)
            and last_name(node.func.value) == "SystemMessagePromptTemplate"
        ):
            arg = self.kwarg(node, "template") or self.first_arg(node)
        if arg is not None:
            self.prompt_arg(arg, name, PromptForm.CHAT_MESSAGE)

    def leave_Call(self, original_node: cst.Call) -> None:
        name = last_name(original_node.func) or ""
        if name == "AgentCard" and self.cards:
            self.cards.pop()
        if name in spec.PROTOCOL_ERRORS and self.errors:
            self.close_error()

    def close_error(self) -> None:
        use, values = self.errors.pop()
        if use.rule is None and not values:
            return
        if self.errors:
            # A nested error (ServerError(error=InvalidParamsError(...))) is reported once, outermost.
            outer, outer_values = self.errors[-1]
            self.errors[-1] = (
                outer if outer.rule else ErrorUse(outer.loc, outer.name, use.rule),
                outer_values + values,
            )
            return
        self.error_uses.append(ErrorUse(use.loc, use.name, use.rule, tuple(values)))

    def add_guard(self, guard: Guard) -> None:
        if self.errors:
            use, values = self.errors[-1]
            if use.rule is None and guard.rule is not None:
                use = ErrorUse(use.loc, use.name, guard.rule)
            self.errors[-1] = (use, values)
            return
        self.guards.append(guard)

    def dict_call_payload(self, node: cst.Call, loc: Loc) -> None:
        """`dict(rule=..., reason=..., detail=...)`: a payload as much as the literal is."""
        keys = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if "reason" not in keys and "detail" not in keys:
            return
        extra = tuple(sorted(k for k in keys if k not in spec.PAYLOAD_KEYS))
        reason = keys.get("reason")
        self.add_guard(
            Guard(
                loc,
                GuardKind.PAYLOAD,
                self.value(keys["rule"]),
                self.value(reason) if reason is not None else None,
                extra,
            )
        )

    def prompt_arg(self, node: cst.BaseExpression, source: str, form: PromptForm) -> None:
        value = self.value(node)
        if isinstance(value, (Str, Join, Op, Ref, Dyn, Fmt, CallV)):
            self.prompts.append(PyPrompt(self.loc(node), value, source, form))

    def part(self, media_node: cst.BaseExpression, data: cst.BaseExpression | None, loc: Loc) -> None:
        """A Part with a media type: its data is a refusal payload if the type (bound later) says so."""
        media = self.value(media_node)
        literal = data if isinstance(data, cst.Dict) else None
        if isinstance(data, cst.Name):
            for scope in reversed(self.scopes):
                if data.value in scope.dicts:
                    literal = scope.dicts[data.value]
                    break
        if literal is None:
            if isinstance(media, Str) and spec.media_type_kind(media.value) == "near":
                self.add_guard(Guard(loc, GuardKind.PART, None, media=media, shaped=False))
            return
        earlier = self.payload_guards.pop(id(literal), None)
        if earlier is not None and earlier in self.guards:
            self.guards.remove(earlier)
        self.consumed.add(id(literal))
        # DESIGN §3: RL306 stands at the payload dict literal, also where the Part names it.
        self.payload(literal, self.loc(literal), GuardKind.PART, media)

    def payload(self, node: cst.Dict, loc: Loc, kind: GuardKind, media: Value | None = None) -> None:
        keys = _str_keys(node)
        shaped = "rule" in keys and ("reason" in keys or "detail" in keys)
        if kind == GuardKind.PAYLOAD and not shaped:
            return
        rule = keys.get("rule")
        reason = keys.get("reason")
        extra = tuple(sorted(k for k in keys if k not in spec.PAYLOAD_KEYS))
        guard = Guard(
            loc,
            kind,
            self.value(rule) if rule is not None else None,
            self.value(reason) if reason is not None else None,
            extra,
            media=media,
            shaped=shaped,
        )
        self.add_guard(guard)
        if kind == GuardKind.PAYLOAD and self.scopes:
            self.payload_guards[id(node)] = guard

    def visit_Dict(self, node: cst.Dict) -> None:
        keys = _str_keys(node)
        loc = self.loc(node)
        if "error" in keys and isinstance(keys["error"], cst.Dict):
            self.errors.append((ErrorUse(loc, '{"error": ...}', None), []))
        if "uri" in keys:
            uri = self.value(keys["uri"])
            if "params" in keys or (isinstance(uri, Str) and spec.uri_kind(uri.value)):
                req = keys.get("required")
                params = keys.get("params")
                card, card_name = self.cards[-1] if self.cards else (self.path, None)
                self.exts.append(
                    PyExt(
                        self.key_loc(node, "uri"),
                        card,
                        uri,
                        self.value(req) if req is not None else None,
                        self.value(params) if params is not None else None,
                        card_name,
                    )
                )
        media_key = next((k for k in keys if k in vocab.MEDIA_KEYS), None)
        if media_key is not None and "data" in keys:
            self.part(keys[media_key], keys["data"], loc)
        if id(node) not in self.consumed:
            self.payload(node, loc, GuardKind.PAYLOAD)
        self.dict_prompts(keys)

    def dict_prompts(self, keys: dict[str, cst.BaseExpression]) -> None:
        """`{"role": "system", "content": X}` and `{"system_prompt": X}`."""
        role = str_key(keys.get("role"))
        if role in vocab.CHAT_SYSTEM_ROLES and "content" in keys:
            self.prompt_arg(keys["content"], f'role="{role}"', PromptForm.CHAT_MESSAGE)
        for key, value in keys.items():
            if vocab.is_prompt_key(key):
                self.prompt_arg(value, f'"{key}"', PromptForm.DICT_ENTRY)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        # ("system", X) in a message list: ChatPromptTemplate.from_messages([("system", X), ...])
        if len(node.elements) == 2 and str_key(node.elements[0].value) in vocab.CHAT_SYSTEM_ROLES:
            self.prompt_arg(node.elements[1].value, "(system, ...)", PromptForm.CHAT_MESSAGE)

    def key_loc(self, node: cst.Dict, key: str) -> Loc:
        for el in node.elements:
            if isinstance(el, cst.DictElement) and str_key(el.key) == key:
                return self.loc(el.key)
        return self.loc(node)

    def leave_Dict(self, original_node: cst.Dict) -> None:
        # The envelope visit_Dict opened for this very dict, if it opened one.
        if (
            self.errors
            and self.errors[-1][0].name == '{"error": ...}'
            and (self.errors[-1][0].loc == self.loc(original_node))
        ):
            self.close_error()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.errors:
            value = self.value(node)
            if isinstance(value, Sub):
                self.errors[-1][1].append(value)


def _params(fn: cst.FunctionDef) -> tuple[tuple[str, ...], tuple[str, ...]]:
    positional = tuple(p.name.value for p in (*fn.params.posonly_params, *fn.params.params))
    return positional, tuple(p.name.value for p in fn.params.kwonly_params)


def _may_carry_id(value: Value) -> bool:
    """An argument that can be a rule id passed on to a helper: an id-like string or a name."""
    if isinstance(value, Str):
        return 0 < len(value.value) <= 80 and not any(c.isspace() for c in value.value)
    return isinstance(value, (Ref, Param, Each, Attr, Sub))


def _str_keys(node: cst.Dict) -> dict[str, cst.BaseExpression]:
    """A dict literal's string-keyed members (the last of a repeated key, as Python keeps)."""
    return {
        k: el.value
        for el in node.elements
        if isinstance(el, cst.DictElement) and (k := str_key(el.key)) is not None
    }


def _init_map(init: cst.FunctionDef) -> dict[str, tuple[int, str]]:
    """`self.rules = rules` in __init__: attribute -> (position after self, parameter name)."""
    params = [p.name.value for p in (*init.params.posonly_params, *init.params.params)][1:]
    kwonly = {p.name.value for p in init.params.kwonly_params}
    out: dict[str, tuple[int, str]] = {}
    body = init.body.body if isinstance(init.body, cst.IndentedBlock) else ()
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if not isinstance(small, (cst.Assign, cst.AnnAssign)) or not isinstance(small.value, cst.Name):
                continue
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            for t in targets:
                if isinstance(t, cst.Attribute) and dotted(t.value) == "self":
                    arg = small.value.value
                    if arg in params:
                        out[t.attr.value] = (params.index(arg), arg)
                    elif arg in kwonly:
                        out[t.attr.value] = (-1, arg)
    return out


def extract(path: str, text: str, guard_callables: tuple[str, ...] = ()) -> FileFacts:
    """Facts of a Python file; raises libcst's ParserSyntaxError (or SyntaxError) when unreadable."""
    module = cst.parse_module(text)
    ex = _Extractor(path, module, Positions(module), guard_callables)
    module.visit(ex)
    exts = ex.exts
    if len(ex.card_ids) == 1:
        # `capabilities = AgentCapabilities(extensions=[...])` built before `AgentCard(name=...)`,
        # or `card.capabilities.extensions.append(AgentExtension(...))` after it: the file's one
        # card holds the extension and names the agent (a second declaration is RL108).
        exts = [
            dataclasses.replace(
                e,
                agent_name=e.agent_name or ex.card_names[0],
                card=ex.card_ids[0] if e.card == path else e.card,
            )
            for e in exts
        ]
    return FileFacts(
        path=path,
        kind=FileKind.PYTHON,
        py_exts=tuple(exts),
        py_prompts=tuple(ex.prompts),
        guards=tuple(ex.guards),
        errors=tuple(ex.error_uses),
        defs=tuple(ex.defs.items()),
        imports=tuple(ex.imports.items()),
        suppressions=tuple(ex.suppressions),
        string_lines=_string_lines([ex.prompts, tuple(ex.defs.values()), ex.calls, ex.ctor_calls], text),
        ctor_calls=tuple(ex.ctor_calls),
        calls=tuple(ex.calls),
    )


def _string_lines(values: list[object], text: str) -> tuple[tuple[int, str], ...]:
    """The file's text of each line that a string among `values` stands on."""
    wanted: set[int] = set()
    stack = list(values)
    while stack:
        v = stack.pop()
        if isinstance(v, Str):
            wanted.update(v.lines or (v.loc.line,))
        elif isinstance(v, (tuple, list)):
            stack.extend(v)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
    if not wanted:
        return ()
    lines = sourcetext.lines(text)
    return tuple((n, lines[n - 1]) for n in sorted(wanted) if 0 < n <= len(lines))
