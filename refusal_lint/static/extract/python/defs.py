"""The definitions a Python module makes: what each module-level name holds (for binding
across modules), prompt assignments and prompt functions; and its suppression comments."""

from __future__ import annotations

import ast
import dataclasses
import re

from refusal_lint.core.facts import (
    Attr,
    CallV,
    DictV,
    Dyn,
    Fmt,
    Fn,
    ImportRef,
    Item,
    Join,
    Op,
    PyPrompt,
    Ref,
    Seq,
    Str,
    Sub,
    Suppression,
    Value,
)
from refusal_lint.core.kinds import FnKind, PromptForm
from refusal_lint.core.model import Loc
from refusal_lint.static.extract import guardclass, vocab
from refusal_lint.static.extract.python.classes import (
    extension_class,
    init_map,
    is_enum,
    namedtuple_fields,
    read_body,
)
from refusal_lint.static.extract.python.scopes import GROWERS, Scope, grown, last_name, rebound, str_key
from refusal_lint.static.extract.python.source import Source
from refusal_lint.static.extract.python.state import ExtractorState, defaults_of, deps_context, params_of
from refusal_lint.static.extract.python.walk import unpacked

SUPPRESS = re.compile(r"#\s*refusal-lint:\s*ignore(?:\[([A-Za-z0-9,\s]*)\])?")


class Definitions(ExtractorState):
    """Module-level names (constants, classes, functions, imports), prompt-holding
    assignments and prompt functions."""

    def define(self, target: ast.expr, value: ast.expr, prefix: str = "") -> None:
        for t, v in unpacked(target, value):  # `SEG_MIX, INVALID_CUT = "seg-mix", "invalid-cut"`
            self.define(t, v, prefix)
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and not prefix:
            self.set_item(target.value.id, target.slice, value)
        if not isinstance(target, ast.Name):
            return
        name = prefix + target.id
        new = self.value(value)
        if (old := self.defs.get(name)) is not None:
            new = rebound(new, Ref(self.path, name, self.loc(target)), old)
        self.defs[name] = new
        if vocab.is_prompt_name(target.id):
            self.prompts.append(PyPrompt(self.loc(target), self.defs[name], target.id, PromptForm.ASSIGNMENT))

    def set_item(self, name: str, key: ast.expr, value: ast.expr) -> None:
        """`RULES["seg-mix"] = "..."` at module level: the dict bound to the name holds the
        item from here on (`RULES = {}` filled so is no empty params map); with a key
        computed at run time, what it holds is not known."""
        old = self.defs.get(name)
        if isinstance(old, DictV):
            at, text = self.loc(key), str_key(key)
            item = Item(Str(text, at, (at.line,)), self.value(value), at) if text is not None else None
            self.defs[name] = DictV((*old.items, item), old.loc) if item else Dyn(old.loc)

    def at_module_level(self) -> bool:
        return not self.scopes and not self.classes

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self.keyed_prompt(t, node.value)
            if isinstance(t, ast.Attribute) and t.attr == "params" and isinstance(t.value, ast.Name):
                self.fill_params(t.value.id, node.value, replace=True)  # `ext.params = RULES`
        if self.scopes:
            self.bind_local_dicts(node.targets, node.value)
            for t in node.targets:
                self.instance_prompt(t, node.value)
                self.global_item(t, node.value)
            return
        prefix = self.class_prefix()
        fields = namedtuple_fields(node.value)
        for t in node.targets:
            if fields is not None and isinstance(t, ast.Name) and not prefix:
                # `Check = namedtuple("Check", ["rule", "test"])`: a class, as a NamedTuple is.
                self.defs[t.id] = Fn(self.path, t.id, FnKind.CLASS, fields, (), (), self.loc(t))
            else:
                self.define(t, node.value, prefix)

    def global_item(self, target: ast.expr, value: ast.expr) -> None:
        """`CHECKS[rule] = check` in a function, CHECKS a module's dict (a decorator's
        registry): the dict holds an item under that key too; a parameter's is what the
        function's callers pass (`@content_check("malware")`), as a helper's id is. Added
        once the module is walked (`fill_globals`: the dict may be bound below)."""
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
            return
        name = target.value.id
        if not any(name in s.ready().local or name in s.passthrough for s in self.scopes):  # not shadowed
            item = Item(self.value(target.slice), self.value(value), self.loc(target.slice))
            self.filled.setdefault(name, []).append(item)

    def fill_globals(self) -> None:
        for name, items in self.filled.items():
            if isinstance(old := self.defs.get(name), DictV):
                self.defs[name] = DictV((*old.items, *items), old.loc)

    def instance_prompt(self, target: ast.expr, value: ast.expr | None) -> None:
        """`self._system_prompt = (...)` in a method: an instance attribute holding a prompt
        (also unpacked: `self.system_prompt, self.model = PROMPT, model`)."""
        for t, v in unpacked(target, value):
            self.instance_prompt(t, v)
        if (
            value is not None
            and self.classes
            and isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id in ("self", "cls")
            and vocab.is_prompt_name(target.attr)
        ):
            self.prompts.append(
                PyPrompt(self.loc(target), self.value(value), target.attr, PromptForm.ASSIGNMENT)
            )

    def keyed_prompt(self, target: ast.expr, value: ast.expr) -> None:
        """`agent.prompt_templates["system_prompt"] = ...`: a prompt key assigned, as a dict
        entry under it is one (smolagents' templates, a config dict filled in code)."""
        key = vocab.prompt_key_assigned(target)
        if key is not None:
            self.prompt_arg(value, f'"{key}"', PromptForm.DICT_ENTRY)

    def bind_local_dicts(self, targets: list[ast.expr], value: ast.expr) -> None:
        for t in targets:
            if isinstance(t, ast.Name) and isinstance(value, ast.Dict):
                self.scopes[-1].dicts[t.id] = value

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            return
        if self.scopes:
            self.bind_local_dicts([node.target], node.value)  # `payload: dict[str, str] = {...}`
            self.instance_prompt(node.target, node.value)
            return
        value = node.value
        if isinstance(value, ast.Call) and last_name(value.func) in vocab.FIELD_CALLS:
            # A dataclass or pydantic field: `system_prompt: str = field(default="...")`.
            default = next((k.value for k in value.keywords if k.arg == "default"), None)
            if default is None and last_name(value.func) == "Field" and value.args:
                default = value.args[0]  # pydantic: `Field("...", description=...)`
            if default is None:
                return
            value = default
        self.define(node.target, value, self.class_prefix())

    def visit_Expr(self, node: ast.Expr) -> None:
        call = node.value
        if isinstance(call, ast.Call) and (filled := _params_filled(call)) is not None:
            self.fill_params(filled[0], filled[1], replace=False)
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in GROWERS
            and isinstance(call.func.value, ast.Name)
            and len(call.args) == 1
            and not call.keywords
        ):
            self.grow(call.func.value.id, GROWERS[call.func.attr], self.value(call.args[0]))
        elif isinstance(call, ast.Call) and last_name(call.func) == "print" and len(call.args) == 1:
            # `print(line, file=buf)`: the buffer grows by the line and its end.
            out = next((k.value for k in call.keywords if k.arg == "file"), None)
            if isinstance(out, ast.Name) and all(k.arg in ("file", "flush") for k in call.keywords):
                loc = self.loc(call)
                end = Str("\n", loc, (loc.line, loc.line), literal=False)
                self.grow(out.id, "+=", Join((self.value(call.args[0]), end), loc))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.op, ast.Add):
            self.keyed_prompt(node.target, node.value)  # `t["system_prompt"] += ...`: the text added
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            self.grow(node.target.id, "+=", self.value(node.value))

    def fill_params(self, name: str, node: ast.expr, replace: bool) -> None:
        """`ext.params = RULES` or `ext.params.update(RULES)` after `ext = AgentExtension(uri=...)`
        (a protobuf field is filled so, not assigned): the params of that extension, as if
        passed to it."""
        bound = self.scopes[-1].ready().values.get(name) if self.scopes else self.defs.get(name)
        if bound is None:
            return
        at = self.loc(bound) if isinstance(bound, ast.AST) else getattr(bound, "loc", None)
        for i, ext in enumerate(self.exts):
            if ext.loc == at:
                added = self.value(node)
                if not replace and ext.params is not None:  # `{**PASSED, **ADDED}`, whatever each is
                    added = (
                        grown(DictV((), ext.params.loc), [("update", ext.params), ("update", added)]) or added
                    )
                self.exts[i] = dataclasses.replace(ext, params=added)

    def grow(self, name: str, how: str, added: Value) -> None:
        """`lines.append(x)`, `lines.extend(xs)`, `text += x`: what a list or text bound in this
        scope holds from here on (read here, in the loop the statement stands in)."""
        if self.scopes:
            scope = self.scopes[-1].ready()
            if name in scope.local and name in scope.values:
                scope.grown.setdefault(name, []).append((how, added))
            return
        old = self.defs.get(name)
        new = grown(old, [(how, added)]) if old is not None and not self.classes else None
        if new is not None:
            self.defs[name] = new
            self.prompts = [dataclasses.replace(p, value=new) if p.value is old else p for p in self.prompts]

    def visit_Import(self, node: ast.Import) -> None:
        if not self.at_module_level():
            return
        for alias in node.names:
            name_path = alias.name
            if alias.asname is not None:
                self.imports[alias.asname] = ImportRef(name_path, None, 0)
            else:
                head = name_path.split(".")[0]
                self.imports[head] = ImportRef(head, None, 0)
                if "." in name_path:
                    self.imports[name_path] = ImportRef(name_path, None, 0)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if not self.at_module_level():
            return
        if any(alias.name == "*" for alias in node.names):
            self.stars.append(ImportRef(node.module or "", "*", node.level))
            return
        module = node.module or ""
        for alias in node.names:
            self.imports[alias.asname or alias.name] = ImportRef(module, alias.name, node.level)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        body = read_body(node, self.src.segment)
        if body.init is not None:
            self.init_maps[node.name] = init_map(body.init)
        if not self.scopes:
            # The class as a callee binds by __init__, or by its fields (dataclass, NamedTuple, attrs).
            bases: tuple[Value, ...] = ()
            if body.init is not None:
                params = params_of(body.init)
                ctor = (params[0][1:], params[1])
            else:
                ctor = (tuple(body.fields), ())
                bases = tuple(self.value(b) for b in node.bases)  # `class CutRefusal(Refusal): ...`
            name = self.class_prefix() + node.name
            loc = self.src.name_loc(node)
            defaults = tuple((p, self.value(d)) for p, d in body.defaults)  # what a call passing none binds
            self.defs[name] = Fn(self.path, name, FnKind.CLASS, *ctor, (), loc, bases, defaults=defaults)
            self.defs[f"{name}.{vocab.CLASS_BASES}"] = Seq(tuple(self.value(b) for b in node.bases), loc)
            if (kept := guardclass.kept_rule(node)) and kept[2]:  # `self.rule = "x"` in `__init__`
                self.defs[f"{name}.{kept[0]}"] = self.value(kept[1])
        if not self.scopes and is_enum(node):
            self.enum_members(node)
        self.classes.append((node.name, body.attrs))
        self.class_bases.append(node.bases)
        self.class_depths.append(len(self.scopes))

    def enum_members(self, node: ast.ClassDef) -> None:
        """`SEG_MIX = auto()` in a StrEnum: its value is the member's name in lower case."""
        if not any(last_name(b) == "StrEnum" for b in node.bases):
            return
        prefix = self.class_prefix()
        for stmt in node.body:
            if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                continue
            target = stmt.targets[0]
            if (
                isinstance(target, ast.Name)
                and isinstance(stmt.value, ast.Call)
                and last_name(stmt.value.func) == "auto"
            ):
                self.defs[f"{prefix}{node.name}.{target.id}"] = Str(
                    target.id.lower(), self.loc(stmt.value), literal=False
                )

    def leave_ClassDef(self, original_node: ast.ClassDef) -> None:
        if not self.scopes and is_enum(original_node):
            # `for rule in Rule:` takes each member, in the order written (vocab.ENUM_MEMBERS).
            name = self.class_prefix()[:-1]  # this class's own name is the last of it still
            members = [
                self.defs[f"{name}.{t.id}"]
                for stmt in original_node.body
                if isinstance(stmt, ast.Assign)
                for t in stmt.targets
                if isinstance(t, ast.Name) and not t.id.startswith("_") and f"{name}.{t.id}" in self.defs
            ]
            self.defs[f"{name}.{vocab.ENUM_MEMBERS}"] = Seq(tuple(members), self.src.name_loc(original_node))
        if not self.scopes and vocab.declares_extension(original_node):
            ext = extension_class(self.class_prefix()[:-1], self.defs, self.loc(original_node))
            self.exts.extend([ext] if ext else [])
        self.classes.pop()
        self.class_bases.pop()
        self.class_depths.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        # Functions of the module or of a class have a name call sites can reach; nested ones do not.
        qualname = self.class_prefix() + node.name if not self.scopes else ""
        scope = Scope(func=qualname)
        args = node.args
        for p in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if p is not None:
                scope.passthrough.add(p.arg)
        scope.body = node.body
        scope.stars = (args.vararg.arg if args.vararg else "", args.kwarg.arg if args.kwarg else "")
        scope.deps = deps_context(node) if not self.scopes and not self.classes else None
        self.scopes.append(scope)

    def leave_FunctionDef(self, original_node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        scope = self.scopes.pop()
        if not scope.func:
            return
        decorators = {last_name(d) or "" for d in original_node.decorator_list}
        decorators |= {
            last_name(d.func) or "" for d in original_node.decorator_list if isinstance(d, ast.Call)
        }
        kind = FnKind.METHOD if self.classes and "staticmethod" not in decorators else FnKind.FUNCTION
        positional, kwonly = params_of(original_node)
        self.defs[scope.func] = Fn(
            self.path,
            scope.func,
            kind,
            positional,
            kwonly,
            tuple(scope.returns),
            self.src.name_loc(original_node),
            maps=tuple(scope.maps),
            # Read in the scope the `def` stands in, where Python evaluates them.
            defaults=tuple((p, self.value(d)) for p, d in defaults_of(original_node)),
        )
        if decorators & vocab.PROMPT_DECORATORS and not self.classes:
            for value in scope.returns:
                self.prompts.append(
                    PyPrompt(value.loc, value, f"@{original_node.name}", PromptForm.PROMPT_FUNCTION)
                )

    visit_AsyncFunctionDef = visit_FunctionDef
    leave_AsyncFunctionDef = leave_FunctionDef

    def visit_Return(self, node: ast.Return) -> None:
        if self.scopes and self.scopes[-1].is_function and node.value is not None:
            value = self.value(node.value)
            # Text, a list of texts, or built at run time from names (a join over the params map).
            if isinstance(value, (Str, Join, Op, Fmt, Ref, Seq)) or (isinstance(value, Dyn) and value.refs):
                self.scopes[-1].returns.append(value)
            # A map read out of a structure (`return dict(ext["params"])`: a loaded card's).
            elif isinstance(value, (Sub, Attr)) or (
                isinstance(value, CallV) and isinstance(value.func, Ref) and value.func.name == "dict"
            ):
                self.scopes[-1].maps.append(value)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        scope = Scope(is_function=False)
        for p in node.args.args:
            scope.passthrough.add(p.arg)
        self.scopes.append(scope)

    def leave_Lambda(self, original_node: ast.Lambda) -> None:
        self.scopes.pop()


def suppressions(src: Source) -> list[Suppression]:
    """`# refusal-lint: ignore[...]` comments (a file without the words has none)."""
    if "refusal-lint" not in src.text:
        return []
    out: list[Suppression] = []
    for line, col, text, first in src.comments():
        m = SUPPRESS.search(text)
        if m is None:
            continue
        loc = Loc(src.path, line, col + 1, line, col + len(text) + 1)
        codes = tuple(c.strip().upper() for c in (m.group(1) or "").split(",") if c.strip())
        out.append(Suppression(loc.line, codes, loc, first_line=first))
    return out


def _params_filled(call: ast.Call) -> tuple[str, ast.expr] | None:
    """`ext.params.update(RULES)`, protobuf's `ParseDict(RULES, ext.params)` (A2A v1.0): the
    extension's name and the map it is filled from."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "update" and len(call.args) == 1:
        target, source = func.value, call.args[0]
    elif last_name(func) in vocab.STRUCT_FROM_DICT and len(call.args) == 2:
        source, target = call.args
    else:
        return None
    if isinstance(target, ast.Attribute) and target.attr == "params" and isinstance(target.value, ast.Name):
        return target.value.id, source
    return None
