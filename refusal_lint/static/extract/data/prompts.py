"""Prompt candidates held in text, Markdown, Jinja and YAML files."""

from __future__ import annotations

import dataclasses
import re

from refusal_lint.core import sourcetext
from refusal_lint.core.filekinds import is_kind, named_for_prompt
from refusal_lint.core.kinds import FileKind, PromptForm, ValueKind
from refusal_lint.core.model import BASELINE_FORMAT, TOOL, Loc, Prompt, PromptLine, lead_of
from refusal_lint.core.prompttext import names_card_rule
from refusal_lint.core.sourcetext import NAME_BYTES, spelled
from refusal_lint.static.extract.data.tree import TNode
from refusal_lint.static.extract.vocab import CHAT_SYSTEM_ROLES, is_prompt_key
from refusal_lint.static.gate.text.listing import lists_rules

# A template placeholder fed from the rules map makes a prompt derived (agrees by construction).
# A placeholder's body holds no opener of its kind: an unclosed `{{` is not read to the next
# `}}` past every other (each from its own, a text of openers took quadratic time).
_PLACEHOLDER = re.compile(
    r"\{\{((?:(?!\{\{)[\s\S])*?)\}\}|\{%((?:(?!\{%)[\s\S])*?)%\}|\{([A-Za-z_][A-Za-z0-9_.]*)\}"
)
# The words of a placeholder that may hold every rule (`rules`, `refusal_policy`, `rules_text`,
# `refusal_reasons`, `rule_map`).
_MANY = frozenset(
    {"rules", "refusals", "policy", "policies", "list", "lines", "text", "block", "table", "section"}
    | {"reasons", "map", "mapping", "dict"}
)
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_WORD_BREAK = re.compile(r"[^a-z0-9]+")


def derived(text: str) -> bool:
    """A template placeholder that fills in the rules (`{% for r in rules %}`, `{rules}`,
    `{{ refusal_policy }}`): a loop over them, or a value that may hold them all; not one
    rule's (`{{$rule}}`, `{{ refusal.rule }}`, `{{ last_refusal }}`: one id, no list), nor a
    block's or a test's name (`{% block rules %}`, `{% if rules_enabled %}`), nor other
    rules named so (`{{ citation_rules }}`, `{% for r in input_rules %}`)."""
    for m in _PLACEHOLDER.finditer(text):
        expr, statement, field = m.groups()
        inside = (expr or statement or field or "").lower()
        if "rule" not in inside and "refusal" not in inside:
            continue  # no name of the rules in it (most are a code's `{name}`): not asked further
        if statement is not None:
            loop = _LOOP.match(statement.strip(" \t\r\n-+~"))
            if loop and any(_rules_name(n) for n in _IDENTIFIER.findall(loop.group(1))):
                return True
            continue
        names = _IDENTIFIER.findall(expr if expr is not None else field)
        if any(_rules_name(n) and _words(n) & _MANY for n in names):
            return True
    return False


# `for r in rules`, `for rule_id, reason in card.rules.items()`: what the loop goes over.
_LOOP = re.compile(r"for\s.+?\sin\s+(.+)$", re.S)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RULE_WORDS = frozenset({"rule", "rules", "refusal", "refusals"})
# Words a rules name may hold besides (`rules_by_id`), which alone say nothing of many.
_PLAIN = frozenset({"all", "the", "our", "agent", "card", "formatted", "rendered", "by", "id"})


def _words(name: str) -> set[str]:
    return set(_WORD_BREAK.split(_CAMEL.sub(r"\1_\2", name).lower())) - {""}


def _rules_name(name: str) -> bool:
    """A name for the rules themselves (`rules`, `refusal_rules`, `rules_text`), not for other
    rules of a template's (`citation_rules`, `multimodal_input_rules`, `rules_of_thumb`)."""
    words = _words(name)
    return bool(words & _RULE_WORDS) and words <= _RULE_WORDS | _MANY | _PLAIN


def may_derive(data: bytes, low: bytes | None = None) -> bool:
    """Can a Python string in `data` (lowered: `low`, where at hand) be `derived` once
    decoded? Asked of the bytes as written and, where escapes stand, with each spelled out
    (a raw string keeps them: both are asked). A rules name holds `rule` or `refusal` in
    some case (`_rules_name`). The byte test the gates ask for a template filled at run time."""
    views = [(data, data.lower() if low is None else low)]
    written = spelled(data)
    if written is not None:
        views.append((written, written.lower()))
    return any(
        b"{" in view and (b"rule" in lv or b"refusal" in lv) and derived(view.decode("utf-8", "replace"))
        for view, lv in views
    )


# Where a card loaded at run time is read (`CARD["capabilities"]["extensions"][0]["params"]`,
# `card.capabilities.extensions[0].params`): a key or attribute `capabilities`, `extensions`
# or `params`, after a quote or a dot and ending a word (`_keys_read`).
CARD_KEYS = (b"capabilities", b"extensions", b"params")


def card_keys(data: bytes) -> frozenset[bytes]:
    """Which of a loaded card's keys (`CARD_KEYS`) the Python text may read, its escapes
    spelled out too (bind/prompts.py's `_loads_params`)."""
    found = _keys_read(data)
    written = spelled(data) if len(found) < len(CARD_KEYS) else None
    if written is not None:
        found |= _keys_read(written)
    return frozenset(found)


def _keys_read(data: bytes) -> set[bytes]:
    """`CARD_KEYS` in `data`: each found by C, then its neighbours looked at."""
    out = set()
    for key in CARD_KEYS:
        at = data.find(key)
        while at >= 0:
            end = at + len(key)
            if at > 0 and data[at - 1] in b"\"'." and not (end < len(data) and data[end] in NAME_BYTES):
                out.add(key)
                break
            at = data.find(key, end)
    return out


def derived_listing(text: str) -> bool:
    """Does `text` list rules under words of refusing by placeholders naming them (`Refuse
    these:\n{% for rule, reason in rules.items() %}- {{ rule }}: {{ reason }}`)? A text file
    that does is a derived prompt by its content, whatever its name (a `templates/analyst.j2`
    rendered into `instructions=`)."""
    return derived(text) and lists_rules(text.encode("utf-8", "surrogatepass"))


def text_prompt(path: str, text: str, first_line: int = 1, form: PromptForm = PromptForm.FILE) -> Prompt:
    lines = tuple(PromptLine(t, first_line + i) for i, t in enumerate(sourcetext.text_lines(text)))
    return Prompt(Loc(path, first_line, 1), lines, derived(text), form)


def toml_prompt(path: str, text: str, form: PromptForm = PromptForm.FILE) -> Prompt:
    """A TOML file as a prompt (`prompts.toml`, read with tomllib): its lines, a one-line
    string's escaped line breaks (`"Refuse these:\\n- seg-mix: ...\\n"`) read as the breaks
    they are, each piece on the file line that holds it."""
    lines = tuple(
        PromptLine(piece, i, line if piece != line else "")
        for i, line in enumerate(sourcetext.text_lines(text), 1)
        for piece in line.split("\\n")
    )
    return Prompt(Loc(path, 1, 1), lines, derived(text), form)


def _string_prompt(node: TNode, prose: bool = False) -> Prompt | None:
    """A string value as a prompt; with `prose`, only one with white space (not an id or a path)."""
    if node.kind != ValueKind.STRING or not str(node.value).strip():
        return None
    if prose and not any(c.isspace() for c in str(node.value).strip()):
        return None
    text = node.written if node.written is not None else str(node.value)
    return text_prompt(node.loc.path, text, node.loc.line, PromptForm.DATA_KEY)


def remap_lines(prompt: Prompt, source: list[str]) -> Prompt:
    """Put each line of a YAML string back on the file line that holds it.

    A block scalar's lines map one to one, but folded (`>`), plain and quoted scalars join
    or escape lines; the text of a line is looked up in the file from the string's start."""
    out = []
    cursor = prompt.loc.line - 1  # 0-based index into source
    for pl in prompt.lines:
        probe = pl.text.strip()[:24]
        # As a quoted scalar may write it: `''` for `'` (single), `\"` for `"` (double).
        probes = {probe, probe.replace("'", "''"), probe.replace('"', '\\"')} if probe else set()
        for k in range(cursor, min(len(source), cursor + 200)) if probes else ():
            if any(p in source[k] for p in probes):
                cursor = k
                break
        out.append(PromptLine(pl.text, cursor + 1, source[cursor] if cursor < len(source) else ""))
    return dataclasses.replace(prompt, lines=tuple(out))


def one_line(prompt: Prompt, source: list[str]) -> Prompt:
    """A prompt whose every line stands on the file line where it starts (a JSON string)."""
    here = source[prompt.loc.line - 1] if 0 < prompt.loc.line <= len(source) else ""
    lines = tuple(PromptLine(pl.text, prompt.loc.line, here) for pl in prompt.lines)
    return dataclasses.replace(prompt, lines=lines)


def _all_strings(node: TNode, prose: bool = False) -> list[Prompt]:
    out: list[Prompt] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.kind == ValueKind.STRING and (p := _string_prompt(n, prose)) is not None:
            out.append(p)
        stack.extend(reversed(n.elems))
        stack.extend(v for _, v in reversed(n.items))
    return out


def _items(node: TNode) -> list[Prompt]:
    """A list under a prompt key (`instructions: [lead-in, rule line]`, text blocks), which a
    framework joins: each prose string of it, in order, a candidate, led in by the strings
    before it, as a list in Python is (bind/prompts.py); other values are passed over."""
    out: list[Prompt] = []
    before: list[tuple[PromptLine, ...]] = []
    for p in _all_strings(node):
        if any(c.isspace() for c in p.lines[0].text):
            out.append(dataclasses.replace(p, lead=lead_of(before)))
        before.append(p.lines)
    return out


def key_path(root: TNode, dotted: str) -> TNode | None:
    node: TNode | None = root
    for part in dotted.split(".") if dotted else []:
        if node is None:
            return None
        if node.kind == ValueKind.OBJECT:
            member = node.get(part)
            node = member[1] if member else None
        elif node.kind == ValueKind.ARRAY and part.isdigit() and int(part) < len(node.elems):
            node = node.elems[int(part)]
        else:
            return None
    return node


CREWAI_KEYS = {
    "agents": ("role", "goal", "backstory"),
    "tasks": ("description", "expected_output"),
}


def data_prompts(path: str, root: TNode, ids: frozenset[str] = frozenset()) -> list[Prompt]:
    """Discovered prompts of a YAML or JSON file (DESIGN §2): every string of a *prompt*
    file; ADK `instruction:`; CrewAI agents.yaml/tasks.yaml; strings under prompt keys; and
    with the cards' `ids`, any string that mentions one (a template block of a pipeline)."""
    if own_report(root):
        return []
    lower = path.lower()
    name = lower.rsplit("/", 1)[-1]
    yaml = is_kind(path, FileKind.YAML)
    if yaml and named_for_prompt(path):
        return _all_strings(root, prose=True)  # not its ids, names and paths (an eval's `rule: x-y`)
    out: list[Prompt] = []
    crew = CREWAI_KEYS.get(name.rsplit(".", 1)[0]) if yaml else None
    if crew and root.kind == ValueKind.OBJECT:
        for _, entry in root.items:
            for crew_key in crew:
                m = entry.get(crew_key) if entry.kind == ValueKind.OBJECT else None
                if m is not None and (p := _string_prompt(m[1])) is not None:
                    out.append(p)
    seen = {p.loc for p in out}
    stack = [root]
    while stack:
        n = stack.pop()
        for p in _system_message(n):
            if p.loc not in seen:
                out.append(p)
                seen.add(p.loc)
        for key, value in n.items:
            if is_prompt_key(str(key.value)):
                found = [p] if (p := _string_prompt(value, prose=True)) is not None else []
                if value.kind == ValueKind.ARRAY:
                    found = _items(value)
                elif value.kind == ValueKind.OBJECT:
                    found = [p for p in _all_strings(value) if any(c.isspace() for c in p.lines[0].text)]
                out.extend(p for p in found if p.loc not in seen)
                seen.update(p.loc for p in found)
        card = bool(ids) and _extension_entry(n)  # once a node: `get` reads every member
        if ids and not card:
            for v in (*(v for _, v in n.items), *n.elems):
                if (
                    v.kind == ValueKind.STRING
                    and v.loc not in seen
                    and names_card_rule(str(v.value), ids)
                    and (p := _string_prompt(v)) is not None
                ):
                    out.append(dataclasses.replace(p, form=PromptForm.CONTENT))
                    seen.add(v.loc)
        if not card:
            stack.extend(v for _, v in n.items)
        stack.extend(n.elems)
    return sorted(out, key=lambda p: (p.loc.line, p.loc.col))


def _system_message(node: TNode) -> list[Prompt]:
    """A chat message for the system prompt, `{"role": "system" or "developer", "content": X}`
    (an OpenAI-style chat config, a messages list in YAML): X, or its text blocks."""
    if node.kind != ValueKind.OBJECT:
        return []
    role, content = node.get("role"), node.get("content")
    if role is None or content is None or str(role[1].value).lower() not in CHAT_SYSTEM_ROLES:
        return []
    if content[1].kind == ValueKind.STRING:
        found = _string_prompt(content[1])
        return [dataclasses.replace(found, form=PromptForm.CHAT_MESSAGE)] if found is not None else []
    blocks = _all_strings(content[1], prose=True)
    return [dataclasses.replace(p, form=PromptForm.CHAT_MESSAGE) for p in blocks]


_OWN_CHECK = re.compile(r"RL[0-9]{3} ")


def own_report(root: TNode) -> bool:
    """A report or baseline this tool wrote (JSON, SARIF, rdjson, GitLab; `--output`,
    `--write-baseline`): it quotes prompt lines and findings, and is never a prompt itself."""
    if root.kind == ValueKind.ARRAY:  # GitLab Code Quality: each issue one of our checks
        return bool(root.elems) and all(_OWN_CHECK.match(_string_at(e, "check_name")) for e in root.elems)
    return _string_at(root, "format") == BASELINE_FORMAT or TOOL in (
        _string_at(root, p) for p in ("tool.name", "source.name", "runs.0.tool.driver.name")
    )


# What this tool's text reports hold (`--output` into the tree): JUnit's and Markdown's
# heads, the text format's summary, GitHub's and Azure's annotations of a code.
_OWN_TEXT = re.compile(
    r'\A(?:<\?xml[^>]*>\s*<testsuites name="refusal-lint"|## refusal-lint\n)'
    r"|^Found \d+ errors? and \d+ warnings?"
    r"|^::(?:error|warning|notice) [^\n]*title=RL\d{3} "
    r"|^##vso\[task\.logissue [^\n]*code=RL\d{3};",
    re.M,
)


# The head of a report this tool wrote as JSON, under a name a text file has (`-o
# prompts/lint.txt`): its tool's name (json, sarif, rdjson) or a finding's code (gitlab).
_OWN_JSON = re.compile(r'\A\s*[\[{](?s:.*?)(?:"name": ?"refusal-lint"|"check_name": ?"RL\d{3}\b)')


def own_text_report(text: str) -> bool:
    """A report this tool wrote as text: it quotes prompt lines and ids, it is no prompt."""
    return _OWN_TEXT.search(text) is not None or _OWN_JSON.match(text[:4096]) is not None


def _string_at(root: TNode, dotted: str) -> str:
    """The string at a key path (`key_path`), else ""."""
    node = key_path(root, dotted)
    return str(node.value) if node is not None and node.kind == ValueKind.STRING else ""


def _extension_entry(node: TNode) -> bool:
    """An extension entry (`{"uri": ..., "params": ...}`): the card itself is no prompt."""
    return node.kind == ValueKind.OBJECT and node.get("uri") is not None


def configured_yaml_prompt(root: TNode, dotted: str) -> list[Prompt]:
    node = key_path(root, dotted)
    if node is None:
        return []
    return [p] if (p := _string_prompt(node)) is not None else _all_strings(node)
