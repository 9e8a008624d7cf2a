"""The definitions a Python module makes: what each module-level name holds (for binding
across modules), prompt assignments and prompt functions, and suppression comments."""

from __future__ import annotations

import re

import libcst as cst

from refusal_lint.core.facts import (
    Fmt,
    Fn,
    ImportRef,
    Join,
    Op,
    PyPrompt,
    Ref,
    Str,
    Suppression,
)
from refusal_lint.core.kinds import FnKind, PromptForm
from refusal_lint.static.extract import vocab
from refusal_lint.static.extract.python.scopes import Scope, dotted, last_name
from refusal_lint.static.extract.python.state import ExtractorState, params_of

SUPPRESS = re.compile(r"#\s*refusal-lint:\s*ignore(?:\[([A-Za-z0-9,\s]*)\])?")


class Definitions(ExtractorState):
    """Module-level names (constants, classes, functions, imports), prompt-holding
    assignments and prompt functions, and suppression comments."""

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
                params = params_of(init)
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
        positional, kwonly = params_of(original_node)
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

    def visit_Comment(self, node: cst.Comment) -> None:
        m = SUPPRESS.search(node.value)
        if m is None:
            return
        loc = self.loc(node)
        codes = tuple(c.strip().upper() for c in (m.group(1) or "").split(",") if c.strip())
        self.suppressions.append(Suppression(loc.line, codes, loc))


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
