"""The recognisers of Python extraction: each call, dict literal and tuple is asked what it
is (a card, its extension, a guard, a refusal payload or Part, a prompt, a protocol error),
one handler per concern."""

from __future__ import annotations

import ast
import dataclasses

from refusal_lint.core import spec
from refusal_lint.core.facts import (
    Attr,
    CallV,
    CtorCall,
    Dyn,
    Each,
    ErrorUse,
    Fmt,
    Guard,
    Join,
    Param,
    PyExt,
    Ref,
    Str,
    Sub,
    Value,
)
from refusal_lint.core.kinds import GuardKind, PromptForm
from refusal_lint.core.model import Loc
from refusal_lint.static.extract import guardclass, vocab
from refusal_lint.static.extract.python.scopes import last_name, str_key
from refusal_lint.static.extract.python.state import CardCall, ExtractorState, str_keys
from refusal_lint.static.extract.python.walk import children, positional


class Recognisers(ExtractorState):
    """Calls, dict literals and tuples: cards, guards, payloads, Parts, prompts, errors."""

    def callee_name(self, node: ast.Call) -> str:
        """The name a call is recognised by: a card class or guard as itself under another
        name; `super().__init__` in a protocol error's subclass as that error."""
        name = self.card_class(node.func) or last_name(node.func) or ""
        if name == "cls" and isinstance(node.func, ast.Name) and self.in_method():
            return self.classes[-1][0]  # a classmethod's `cls(rule)`: a construction of its class
        if name == "__init__" and self.class_bases:
            name = guardclass.super_error(node, self.class_bases[-1]) or name
        return name

    def visit_Call(self, node: ast.Call) -> None:
        name = self.callee_name(node)
        loc = self.loc(node)
        self.run_deps(node)
        # In this order: a card or an error opens before what is inside it is recorded.
        for handle in (
            self.card_call,
            self.error_call,
            self.extension_call,
            self.prompt_call,
            self.part_call,
            self.payload_call,
            self.guard_call,
            self.log_call,
        ):
            handle(node, name, loc)

    def log_call(self, node: ast.Call, name: str, loc: Loc) -> None:
        """`logger.info("refused", extra={"rule": ..., "detail": ...})`: a dict a logging call
        takes is a log record, no refusal payload (the refusal is sent elsewhere)."""
        if vocab.is_log_call(name, node.func):
            for value in (*node.args, *(k.value for k in node.keywords)):
                if isinstance(value, ast.Dict):
                    self.consumed.add(id(value))

    def card_call(self, node: ast.Call, name: str, loc: Loc) -> None:
        """`AgentCard(...)`: extensions declared inside it belong to it (leave_Call closes it)."""
        if name == "AgentCard":
            card_name = str_key(self.kwarg(node, "name"))
            call = CardCall(loc.ident, card_name)
            self.open_cards.append(call)
            self.all_cards.append(call)

    def error_call(self, node: ast.Call, name: str, loc: Loc) -> None:
        """A protocol error (`ServerError(...)`): a guard inside it sends a refusal as an error."""
        if name in spec.PROTOCOL_ERRORS:
            self.open_error(loc, name)

    def extension_call(self, node: ast.Call, name: str, loc: Loc) -> None:
        """`AgentExtension(uri=..., params=...)`, or a repo class that may build one (its
        arguments are kept for `params=self.rules` inside it)."""
        if vocab.is_extension_call(name, node.func):
            self.agent_extension(node, loc)
        elif name[:1].isupper() and (name.endswith("Extension") or vocab.is_guard_name(name)):
            self.ctor_calls.append(
                CtorCall(
                    name,
                    tuple(self.value(a) for a in positional(node)),
                    tuple((k.arg, self.value(k.value)) for k in node.keywords if k.arg is not None),
                    loc,
                )
            )

    def prompt_call(self, node: ast.Call, name: str, loc: Loc) -> None:
        """A chat message constructor, or a prompt keyword (`instruction=`, `system_prompt=`)."""
        self.chat_prompt(node, name)
        for k in node.keywords:
            if k.arg in vocab.PROMPT_KWARGS:
                self.prompt_arg(k.value, f"{k.arg}=", PromptForm.KEYWORD)

    def part_call(self, node: ast.Call, name: str, loc: Loc) -> None:
        """A Part built with a media type: `DataPart(data=..., media_type=...)`."""
        media = self.kwarg(node, *vocab.MEDIA_KEYS)
        meta = self.kwarg(node, "metadata")
        if media is None and isinstance(meta, ast.Dict) and self.kwarg(node, "data") is not None:
            media = vocab.metadata_media(meta)  # a2a-sdk 0.3: DataPart(data=..., metadata={...})
        if media is not None:
            data = self.kwarg(node, "data") or self.first_arg(node)
            self.part(media, data, loc)

    def payload_call(self, node: ast.Call, name: str, loc: Loc) -> None:
        if name == "dict" and self.kwarg(node, "rule") is not None:
            self.dict_call_payload(node, loc)

    def guard_call(self, node: ast.Call, name: str, loc: Loc) -> None:
        """A guard (`refuse("seg-mix")`), or a call that may pass a rule id to a repo helper."""
        if self.class_bases and (base := guardclass.super_init(node, self.class_bases[-1])) is not None:
            node, name = base, last_name(base.func) or ""
        made = guardclass.partial_call(node) if name == guardclass.PARTIAL else None
        if made is not None and (made_name := self.callee_name(made)) and self.is_guard_call(made, made_name):
            self.guard(made, loc, configured=not vocab.is_guard_name(made_name) and not self.aliased(made))
        if name and self.is_guard_call(node, name):
            self.guard(node, loc, configured=not vocab.is_guard_name(name) and not self.aliased(node))
        elif node.args or node.keywords or name[:1].isupper():  # a class's: its attribute may be the id
            call = self.call_of(node, loc)
            values = () if call is None else (*call.args, *(v for _, v in call.kwargs))
            if call is not None and (name[:1].isupper() or any(_may_carry_id(v) for v in values)):
                self.calls.append(call)

    def guard(self, node: ast.Call, loc: Loc, configured: bool = False) -> None:
        guard = self.guard_of(node, loc)
        if guard is not None:
            self.add_guard(dataclasses.replace(guard, configured=True) if configured else guard)

    def guard_of(self, node: ast.Call, loc: Loc) -> Guard | None:
        """The guard a guard call is (None: none, `refuse({...})`)."""
        rule = self.kwarg(node, *vocab.RULE_KWARGS) or self.first_arg(node)
        reason = self.kwarg(node, "reason")
        reason_value = self.value(reason) if reason is not None else None
        call = self.call_of(node, loc)
        if rule is not None and not isinstance(rule, ast.Dict):
            return Guard(loc, GuardKind.CALL, self.argument(rule), reason_value, call=call)
        if rule is None and (passed := self.forwarded(node)) is not None:
            return Guard(loc, GuardKind.CALL, passed, reason_value, call=call)  # `refuse(*args, **kw)`
        if rule is None and isinstance(node.func, ast.Attribute) and not node.func.attr[:1].isupper():
            # `Rule.SEG_MIX.refuse(detail=...)`: the receiver is the rule, if it is one.
            receiver = self.value(node.func.value)
            if isinstance(receiver, (Ref, Str)):
                return Guard(loc, GuardKind.CALL, receiver, reason_value, receiver=True)
        elif call is not None:
            # `refuse(updater, rule=...)` is handled above; a repo helper may still bind the id
            # by a parameter of its own (`emit(RULES_MAP, "seg-mix")`): keep the call for the binder.
            return Guard(loc, GuardKind.CALL, None, reason_value, call=call)
        return None

    def local_refusal(self, name: str) -> Value | None:
        """The rule a local of the function sends when every value it is bound to is a guard
        call or a refusal payload (`payload = refuse("seg-mix")`): what that value sends
        written where the name is (the first one's, as with guards). None for any other
        name: a parameter, one bound otherwise too (a loop, an import) or in another function."""
        if not self.scopes or not self.scopes[-1].is_function:
            return None
        values = self.scopes[-1].ready().assigned.get(name, ())
        rules = [self.refusal_rule(v) for v in values]
        return rules[0] if rules and None not in rules else None

    def refusal_rule(self, node: ast.expr) -> Value | None:
        """The rule id a guard call or a refusal payload sends (None: it is neither, or sends none)."""
        if isinstance(node, ast.Dict):
            keys = str_keys(node)
            if vocab.is_payload(keys):
                return self.value(keys["rule"])
            # An error object (`{"code": ..., "message": ..., "data": {"rule": ...}}`), whose
            # data a `rule` alone names the refusal in (as `payload` reads it in an error).
            data = keys.get("data") if "code" in keys or "message" in keys else None
            if (
                isinstance(data, ast.Dict)
                and "rule" in (inner := str_keys(data))
                and inner.keys() <= spec.PAYLOAD_KEYS
            ):
                return self.value(inner["rule"])
            return self.refusal_rule(data) if data is not None else None
        if not isinstance(node, ast.Call):
            return None
        name = self.card_class(node.func) or last_name(node.func) or ""
        if name == "dict":
            kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
            return self.value(kw["rule"]) if vocab.is_payload(kw) else None
        if name and self.is_guard_call(node, name):
            guard = self.guard_of(node, self.loc(node))
            return guard.rule if guard is not None else None
        return None

    def names_inside(self, node: ast.AST) -> None:
        """A local bound to a refusal inside the protocol error being closed: the refusal is
        sent as that error as if written there (`raise HTTPException(detail=payload)`)."""
        current = self.open_errors[-1]
        todo = [node]
        while todo and current.use.rule is None:
            sub = todo.pop()
            if (read := vocab.payload_read(sub)) is not None and self.local_forwarded(read):
                # A refusal passed on, its payload read (`refusal["reason"]`): its id not known here.
                current.use = ErrorUse(current.use.loc, current.use.name, Dyn(current.use.loc))
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                rule = self.local_refusal(sub.id)
                if rule is not None:
                    current.use = ErrorUse(current.use.loc, current.use.name, rule)
            elif not isinstance(sub, ast.Lambda):  # a lambda's names are its own scope's
                todo.extend(reversed(children(sub)))

    def agent_extension(self, node: ast.Call, loc: Loc) -> None:
        uri = self.kwarg(node, "uri")
        if uri is None:
            return
        req = self.kwarg(node, "required")
        params = self.kwarg(node, "params")
        card, card_name = self.current_card()
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

    def chat_prompt(self, node: ast.Call, name: str) -> None:
        """`SystemMessage(X)`, `SystemMessage(content=X)`, `ChatMessage.from_system(X)`,
        `add_system_message(X)`, `SystemMessagePromptTemplate.from_template(X)`, SK's
        `PromptTemplateConfig(template=X)`,
        `ChatMessage(role="system", content=X)`, `ChatMessage.from_str(X, role="system")`."""
        arg: ast.expr | None = None
        role = self.kwarg(node, vocab.ROLE_KWARG)
        if (role is not None and vocab.is_system_role(role)) or vocab.is_system_call(name):
            arg = self.kwarg(node, *vocab.SYSTEM_CALL_TEXT_KWARGS) or self.first_arg(node)
        elif vocab.is_system_template(
            last_name(node.func.value) if isinstance(node.func, ast.Attribute) else None, name
        ):
            arg = self.kwarg(node, "template") or self.first_arg(node)
        if arg is not None:
            self.prompt_arg(arg, name, PromptForm.CHAT_MESSAGE)

    def leave_Call(self, original_node: ast.Call) -> None:
        name = self.callee_name(original_node)
        if name == "AgentCard" and self.open_cards:
            self.open_cards.pop()
        if name in spec.PROTOCOL_ERRORS and self.open_errors:
            self.names_inside(original_node)
            self.close_error()

    def dict_call_payload(self, node: ast.Call, loc: Loc) -> None:
        """`dict(rule=..., reason=..., detail=...)`: a payload as much as the literal is."""
        keys = {k.arg: k.value for k in node.keywords if k.arg is not None}
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

    def part(self, media_node: ast.expr, data: ast.expr | None, loc: Loc) -> None:
        """A Part with a media type: its data is a refusal payload if the type (bound later) says so."""
        media = self.value(media_node)
        if isinstance(data, ast.Call) and last_name(data.func) in vocab.STRUCT_FROM_DICT and data.args:
            data = data.args[0]  # A2A v1.0: `Part(data=ParseDict(payload, Value()), ...)` sends the payload
        literal = data if isinstance(data, ast.Dict) else None
        if isinstance(data, ast.Name):
            for scope in reversed(self.scopes):
                if data.id in scope.dicts:
                    literal = scope.dicts[data.id]
                    break
        if literal is None:
            if isinstance(media, Str) and spec.media_type_kind(media.value) == "near":
                self.add_guard(Guard(loc, GuardKind.PART, None, media=media, shaped=False))
            elif not isinstance(media, Str):  # a constant binding resolves (`media_type=MT`)
                self.add_guard(Guard(loc, GuardKind.PART, None, media=media, shaped=False, opaque=True))
            return
        earlier = self.payload_guards.pop(id(literal), None)
        if earlier is not None and earlier in self.guards:
            self.guards.remove(earlier)
        self.consumed.add(id(literal))
        # DESIGN §3: RL306 stands at the payload dict literal, also where the Part names it.
        self.payload(literal, self.loc(literal), GuardKind.PART, media)

    def payload(self, node: ast.Dict, loc: Loc, kind: GuardKind, media: Value | None = None) -> None:
        keys = str_keys(node)
        shaped = vocab.is_payload(keys)
        # In a protocol error a `rule` alone names the refusal (`{"error": {"message": REASON,
        # "data": {"rule": "seg-mix"}}}`: the error's message carries its reason); not a
        # dict with other keys (a validation error's `{"rule": "max_length", "field": ...}`).
        alone = bool(self.open_errors) and "rule" in keys and keys.keys() <= spec.PAYLOAD_KEYS
        if kind == GuardKind.PAYLOAD and not shaped and not alone:
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

    def visit_Dict(self, node: ast.Dict) -> None:
        keys = str_keys(node)
        loc = self.loc(node)
        # An `{"error": ...}` envelope holding an error object or a call: a guard inside it
        # (`{"error": tool.refusal("id")}`) sends the refusal as a protocol error (RL305);
        # so does a local bound to one (`{"error": payload}`).
        error = keys.get("error")
        if isinstance(error, (ast.Dict, ast.Call)) or (
            isinstance(error, ast.Name) and self.local_refusal(error.id) is not None
        ):
            self.open_error(loc, '{"error": ...}')
        if "capabilities" in keys and "name" in keys:
            # A card written as a dict literal (served by a route): the extension inside it
            # belongs to it, and its `name` names the agent, as `AgentCard(name=...)` does.
            call = CardCall(loc.ident, str_key(keys["name"]))
            self.open_cards.append(call)
            self.all_cards.append(call)
        if "uri" in keys:
            uri = self.value(keys["uri"])
            if "params" in keys or (isinstance(uri, Str) and spec.uri_kind(uri.value)):
                req = keys.get("required")
                params = keys.get("params")
                card, card_name = self.current_card()
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
        media = vocab.part_media(keys)
        if media is not None and "data" in keys:
            self.part(media, keys["data"], loc)
        if id(node) not in self.consumed:
            self.payload(node, loc, GuardKind.PAYLOAD)
        self.dict_prompts(keys)

    def leave_Dict(self, original_node: ast.Dict) -> None:
        if self.open_cards and self.open_cards[-1].ident == self.loc(original_node).ident:
            self.open_cards.pop()  # the card dict visit_Dict opened
        # The envelope visit_Dict opened for this very dict, if it opened one.
        if (
            self.open_errors
            and self.open_errors[-1].use.name == '{"error": ...}'
            and (self.open_errors[-1].use.loc == self.loc(original_node))
        ):
            self.names_inside(original_node)
            self.close_error()

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if self.open_errors:
            value = self.value(node)
            if isinstance(value, Sub):
                self.open_errors[-1].lookups.append(value)


def _may_carry_id(value: Value) -> bool:
    """An argument that can be a rule id passed on to a helper: an id-like string, a name, or
    a string or value computed here (`"seg" "-mix"`, `f"cut-{kind}"`, `pick(q)`: which binding
    resolves, or reports as computed, RL304, where the helper fires it)."""
    if isinstance(value, Str):
        return spec.may_be_rule_id(value.value)
    return isinstance(value, (Ref, Param, Each, Attr, Sub, Join, Fmt, CallV))
