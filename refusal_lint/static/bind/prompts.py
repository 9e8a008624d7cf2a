"""Binding a Python prompt value to prompt candidates (DESIGN §2): its text as the file
holds it, line by line, whether it is derived from the rules, and for the items of a list,
the items before that may lead it in."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Set as AbstractSet
from typing import Any

from refusal_lint.core.facts import (
    JOIN,
    OR,
    Attr,
    CallV,
    DictV,
    Each,
    Fmt,
    Fn,
    Join,
    Op,
    Param,
    Ref,
    Seq,
    Str,
    Sub,
    Value,
)
from refusal_lint.core.kinds import FnKind, PromptForm
from refusal_lint.core.model import Loc, Prompt, PromptLine, lead_of
from refusal_lint.static.bind.classes import bound_value
from refusal_lint.static.bind.resolve import MAX_DEPTH, Resolver
from refusal_lint.static.bind.strs import join_strs, unescaped
from refusal_lint.static.extract import vocab
from refusal_lint.static.extract.data import prompts as dataprompts


def _str_prompt(res: Resolver, text: Str, derived: bool, form: PromptForm) -> Prompt:
    values = text.value.split("\n")
    here = text.loc.path
    if len(text.lines) == len(values):
        lines, paths = text.lines, text.line_paths()
    else:
        lines, paths = tuple(text.loc.line for _ in values), (here,) * len(values)
    # Where its text starts, if that is in its own file; else where it is built (`BASE +
    # POLICY` with BASE imported: its first line is in another module).
    first = lines[0] if lines and paths[0] == here else text.loc.line
    return Prompt(
        Loc(here, first),
        tuple(
            PromptLine(v.rstrip("\r"), ln, _source(res, text, lines, paths, i), "" if path == here else path)
            for i, (v, ln, path) in enumerate(zip(values, lines, paths, strict=True))
        ),
        derived,
        form,
    )


def _source(res: Resolver, text: Str, lines: tuple[int, ...], paths: tuple[str, ...], i: int) -> str:
    """The file's line the text's line `i` stands on; with the next lines of the value, where
    the text line goes on there (`'You help.'\n    ' Refuse x.'`: implicit concatenation), so
    a check finds an id on the line it is written on."""
    ln, path = lines[i], paths[i]
    got = res.string_lines.get(path, {})
    end = lines[i + 1] - 1 if i + 1 < len(lines) and paths[i + 1] == path else text.loc.end_line
    if path != text.loc.path or not text.loc.line <= ln < end <= text.loc.end_line:
        # A part of a text built elsewhere (`"\n".join([PERSONA, LIMITS])`, LIMITS an
        # implicit concatenation): its line goes on over the literals that follow it.
        n = ln
        while _CONTINUED.match(got.get(n + 1, "")):
            n += 1
        return "\n".join(got.get(k, "") for k in range(ln, n + 1))
    return "\n".join(got.get(n, "") for n in range(ln, end + 1))


# A line that only goes on with a literal (an implicit concatenation's next part).
_CONTINUED = re.compile(r"[ \t]*(?:[rRuUfFbB]{1,2})?[\"']")


def _texts(res: Resolver, value: Value, form: PromptForm) -> tuple[PromptForm, list[Value]]:
    """The values holding a prompt's text, and how it was found: a prompt function's
    returned strings where the value is a repo function or a call of one
    (`instruction=self._instruction`), else the value itself."""
    value = _known_or_default(res, value)
    resolved = res.resolve(value)
    called = None
    if isinstance(resolved, CallV):
        called, resolved = resolved, res.callee(resolved)
        if resolved is None and (texts := _message_texts(res, called, 0)):
            return form, texts
    if isinstance(resolved, Fn) and resolved.kind != FnKind.CLASS:
        # A returned list of instruction strings (Agno's `instructions=get_instructions`):
        # each item its own text, as a list passed whole is. Called, its parameters are
        # what the call passes (`with_policy(BASE, POLICY)` returning `base + policy`).
        out: list[Value] = []
        for r in resolved.returns:
            r = _passed(r, resolved, called) if called is not None else r
            seq = res.resolve(r)
            out.extend([_block_text(res, item) for item in seq.items] if isinstance(seq, Seq) else [r])
        return PromptForm.PROMPT_FUNCTION, out
    if isinstance(resolved, Seq):
        # A list of instruction strings where one is accepted, or of text blocks
        # (`system=[{"type": "text", "text": ...}]`): each its own candidate.
        return form, [_block_text(res, item) for item in resolved.items]
    return form, [value]


def _passed(value: Value, fn: Fn, call: CallV, depth: int = 0) -> Value:
    """`value` with each parameter of `fn` it reads (a whole one, not `x.attr`) replaced by
    what `call` passes it, where the call passes it or it has a default."""
    if isinstance(value, Param):
        bound = bound_value(fn, call, value.name) if value.func == fn.qualname else None
        return bound if bound is not None else value
    if not dataclasses.is_dataclass(value) or depth > MAX_DEPTH:
        return value
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(value):
        old = getattr(value, f.name)
        items = old if isinstance(old, tuple) else (old,)
        new = tuple(_passed(v, fn, call, depth + 1) if _is_value(v) else v for v in items)
        if new != items:
            changes[f.name] = new if isinstance(old, tuple) else new[0]
    return dataclasses.replace(value, **changes) if changes else value


def _is_value(obj: object) -> bool:
    return dataclasses.is_dataclass(obj) and not isinstance(obj, (Loc, type))


def _known_or_default(res: Resolver, value: Value) -> Value:
    """`os.getenv("SYSTEM_PROMPT") or DEFAULT_PROMPT` (or a name bound to it): the default,
    where what comes first is known only at run time; the prompt the code ships."""
    bound = res.lookup(value.module, value.name) if isinstance(value, Ref) else value
    if isinstance(bound, Op) and bound.op == OR and isinstance(bound.base, Seq):
        return value if isinstance(res.resolve(bound), (Str, Seq, DictV)) else bound.base.items[1]
    return value


def _message_texts(res: Resolver, call: CallV, depth: int) -> list[Value]:
    """A message object a library's call builds, passed as the prompt (CAMEL's
    `BaseMessage.make_assistant_message(content=X)`, genai's `types.Content(parts=[
    types.Part(text=X)])`): the text its `content=`/`text=` (or `parts=`) arguments hold."""
    out: list[Value] = []
    if depth > MAX_DEPTH:
        return out
    for key, arg in call.kwargs:
        if key not in vocab.SYSTEM_CALL_TEXT_KWARGS and key != "parts":
            continue
        found = res.resolve(arg)
        for item in found.items if isinstance(found, Seq) else [arg]:
            inner = res.resolve(item)
            if isinstance(inner, CallV) and res.callee(inner) is None:
                out.extend(_message_texts(res, inner, depth + 1))
            else:
                out.append(_block_text(res, item))
    return out


def _block_text(res: Resolver, item: Value) -> Value:
    """A list item's text: the item, the `text` of a text block, or the one argument of a
    library's call (Griptape's `Rule("...")`)."""
    block = res.resolve(item)
    if isinstance(block, DictV):
        for it in block.items:
            if isinstance(it.key, Str) and it.key.value in vocab.TEXT_BLOCK_KEYS:
                return it.value
    if isinstance(block, CallV) and len(block.args) == 1 and not block.kwargs and res.callee(block) is None:
        return block.args[0]
    return item


@dataclasses.dataclass(frozen=True)
class Maps:
    """The rule maps a prompt may be filled from: `same`, the params map and its copies (a
    prompt filled from one is derived); `other`, module dicts keyed by some of the card's
    ids but not all (a stale or partial copy: a prompt filled from one states its items)."""

    same: frozenset[str]
    other: frozenset[str] = frozenset()


def py_prompts(res: Resolver, value: Value, maps: Maps, form: PromptForm) -> list[Prompt]:
    """The prompt candidates a Python value holds (DESIGN §2: prose, not an id or a path);
    the items of a list each one, led in by the items before it (`Prompt.lead`)."""
    form, values = _texts(res, value, form)
    fed = form == PromptForm.PROMPT_FUNCTION and bool(maps.same) and _fed(res, value, maps.same)
    items = form != PromptForm.PROMPT_FUNCTION and len(values) > 1
    out = []
    before: list[tuple[PromptLine, ...]] = []
    for v in values:
        read = _reads(res, v) + ([value] if fed else [])
        derived = fed or (bool(maps.same) and res.reaches(v, maps.same)) or _loads_params(res, read)
        text = placeholder_text(res, v)
        # A template filled from another map in the code (`.format(rules=lines(STALE))`) is
        # that map's items, whatever its placeholder is named; one filled at run time
        # (`{% for r in rules %}` for Haystack's builder, `{{$refusal_rules}}` for SK's
        # arguments) is derived as a template file is.
        other = set() if derived else {d.ident for d in _maps_read(res, read) if d.ident in maps.other}
        derived = derived or (not other and text is not None and dataprompts.derived(text.value))
        prose = text is not None and any(c.isspace() for c in text.value.strip())
        if text is None or not prose:
            if not derived and not other:  # a value filled from a stale map states its items
                if text is not None and items:
                    before.append(_str_prompt(res, text, False, form).lines)
                continue
            text = Str("", v.loc, (v.loc.line,), literal=False)
        prompt = _str_prompt(res, text, derived, form)
        if (derived and maps.same) or other:
            stated = _stated(res, read, maps.same, prompt.loc.path, other)
            # A template filled from the map holds its items too (`T % STALE`, `%(id)s`):
            # each is stated once, where the map holds it (audit S B5).
            said = {line.text for line in stated}
            own = tuple(line for line in prompt.lines if line.text not in said)
            prompt = dataclasses.replace(prompt, lines=own + stated)
        if items:
            prompt = dataclasses.replace(prompt, lead=lead_of(before))
            before.append(prompt.lines)
        out.append(prompt)
    return out


def _fed(res: Resolver, value: Value, same: AbstractSet[str]) -> bool:
    """Is `value` a call of a repo prompt function that passes it the params map (or a
    copy): `instructions=build(RULES)`? The text it returns is built from it: derived."""
    call = res.resolve(value)
    args = (*call.args, *(v for _, v in call.kwargs)) if isinstance(call, CallV) else ()
    return any(res.reaches(a, same) for a in args)


def _reads(res: Resolver, value: Value) -> list[Value]:
    """`value` and the values it reads through names, across modules (`reaches`' walk):
    `RULES.items()` reads RULES (the dotted name, then its prefixes), each binding once."""
    out: list[Value] = []
    seen: set[str] = set()
    todo = [(value, 0)]
    while todo:
        v, depth = todo.pop()
        out.append(v)
        if depth > MAX_DEPTH:
            continue
        for ref in res.refs(v):
            parts = ref.name.split(".")
            for name in (".".join(parts[:i]) for i in range(len(parts), 0, -1)):
                found = res.lookup(ref.module, name)
                if found is not None:
                    if f"{ref.module}:{name}" not in seen:
                        seen.add(f"{ref.module}:{name}")
                        todo.append((found, depth + 1))
                    break
    return out


def _maps_read(res: Resolver, read: list[Value]) -> list[DictV]:
    """The dict literals among the values a prompt reads (`_reads`)."""
    return [d for v in read if isinstance(d := res.resolve(v), DictV)]


def _loads_params(res: Resolver, read: list[Value]) -> bool:
    """Does a prompt reading `read` (`_reads`) read the params map of a card loaded at run
    time (`CARD = json.loads(...)`, then `CARD["capabilities"]["extensions"][0]["params"]`:
    `params` last, `capabilities` and `extensions` before it)?
    The map a JSON card holds, interpolated: derived as the map of a card built in Python is."""
    return any(loaded_params(res, v) for v in read)


def loaded_params(res: Resolver, value: Value, depth: int = 0) -> bool:
    """Is `value` the params map of a card loaded at run time (its keys `capabilities` and
    `extensions`, then `params` last), also as a repo function returns it (`RULES =
    _load_rules()`, which loops over the extensions and returns `dict(ext["params"])`)?"""
    keys, made = _chain(res, value, depth)
    if keys[-1:] == ["params"] and {"capabilities", "extensions"} <= set(keys):
        return True
    if keys or depth >= MAX_DEPTH:
        return False
    # What a name is bound to (`RULES = _load_rules()`), or the loader read in place
    # (`_load_rules().items()`, whose callee the prompt reads).
    fn = res.resolve(made.func) if isinstance(made, CallV) and isinstance(made.func, Ref) else made
    if isinstance(fn, Fn):
        return any(loaded_params(res, r, depth + 1) for r in (*fn.returns, *fn.maps))
    if (
        isinstance(made, CallV)
        and isinstance(made.func, Ref)
        and made.func.name == "dict"
        and len(made.args) == 1
    ):
        return loaded_params(res, made.args[0], depth + 1)
    return False


def _stated(
    res: Resolver,
    read: list[Value],
    params_ids: AbstractSet[str],
    here: str,
    other: AbstractSet[str] = frozenset(),
) -> tuple[PromptLine, ...]:
    """The rule lines a prompt interpolating a map of `params_ids` states, one a literal
    item (`"seg-mix": "..."`), where the file writes it (`here`: the prompt's file): a copy
    of the card's map (same ids, its own reasons) agrees with the card only where its
    reasons do (RL203 there). A stale copy (`other`) mentions each of its ids, whatever it
    maps them to; a reason only where it is a one-line literal."""
    out: list[PromptLine] = []
    for d in _maps_read(res, read):
        if d.ident not in params_ids and d.ident not in other:
            continue
        for it in d.items:
            if not isinstance(it.key, Str):
                continue
            reason = res.resolve(it.value)
            if isinstance(reason, Str) and "\n" not in reason.value:
                text = f"- {it.key.value}: {reason.value}"
            elif d.ident in other:
                text = f"- {it.key.value}"
            else:
                continue
            line, path = it.loc.line, it.loc.path
            source = res.string_lines.get(path, {}).get(line, "")
            out.append(PromptLine(text, line, source, "" if path == here else path))
    return tuple(dict.fromkeys(out))


def _chain(res: Resolver, value: Value, depth: int) -> tuple[list[str], Value]:
    """The keys and attributes a subscript or attribute chain reads, outermost last, its
    base followed through names (`EXT["params"]`, `EXT = CARD[...]["extensions"][0]`); and
    the value the walk stops at (`RULES` -> `_load_rules()`)."""
    keys: list[str] = []
    while depth <= MAX_DEPTH:
        if isinstance(value, Sub):
            keys.append(value.key.value if isinstance(value.key, Str) else "")
            value = value.base
        elif isinstance(value, Attr):
            keys.append(value.name)
            value = value.base
        elif isinstance(value, Each):  # `for ext in CARD["capabilities"]["extensions"]`: one of them
            keys.append("")
            value = value.over
        elif isinstance(value, Ref):
            head, _, rest = value.name.partition(".")
            if rest:
                keys.extend(reversed(rest.split(".")))
            found = res.lookup(value.module, head)
            if found is None:
                break
            value, depth = found, depth + 1
        else:
            break
    return keys[::-1], value


def placeholder_text(resolver: Resolver, value: Value, depth: int = 0) -> Str | None:
    """A prompt's text: resolvable parts as written, other parts as `{…}` placeholders
    (names that refer to each other end in one, as `resolve` ends them)."""
    resolved = resolver.resolve(value)
    if isinstance(resolved, Str) or depth > MAX_DEPTH:
        return resolved if isinstance(resolved, Str) else None
    if isinstance(value, Fmt):
        text = placeholder_text(resolver, value.base, depth + 1)
        return unescaped(text, value.style) if text is not None else None
    if isinstance(value, Ref):
        found = resolver.lookup(value.module, value.name)
        return placeholder_text(resolver, found, depth + 1) if found is not None else None
    if isinstance(value, Op) and value.op.startswith(JOIN):
        joined = resolver.joined(value)
        return placeholder_text(resolver, joined, depth + 1) if joined is not None else None
    if isinstance(value, Op):
        base = placeholder_text(resolver, value.base, depth + 1)
        return resolver.resolve_str(Op(value.op, base, value.loc)) if base is not None else None
    fn = resolver.callee(value) if isinstance(value, CallV) else None
    if fn is not None and fn.kind != FnKind.CLASS and len(fn.returns) == 1:
        # A repo function's one returned text (`lead() + "- x-y: ..."`): its words lead in.
        return placeholder_text(resolver, fn.returns[0], depth + 1)
    if isinstance(value, Join):
        texts = [
            placeholder_text(resolver, p, depth + 1) or Str("{…}", p.loc, (p.loc.line,), literal=False)
            for p in value.parts
        ]
        return (texts[0] if len(texts) == 1 else join_strs(texts, value.loc)) if texts else None
    return None
