"""Reading a prompt the way DESIGN §2 defines it: mentions, rule lines, rule-listing places.

Precision over recall: ordinary hyphenated prose, `Note:` and `Example:` lines must never become
findings, so unknown ids come only from places that plainly list rules, or near misses of card ids."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import NamedTuple

from refusal_lint.core import spec
from refusal_lint.core.markup import unemphasised, visible
from refusal_lint.core.model import PromptLine

TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*")
_ID = r"[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?"  # an id's own: no `__` of emphasis around it
_EM = r"(?:\*{1,3}|_{1,3})"  # Markdown emphasis: italic, bold, both
_RULE_LINE = re.compile(
    r"""^\s*(?:>\s*)*(?:[-*+•]\s+|\d+[.)]\s+)?(?:\[[ xX]\]\s+)?
    (?P<open>"""
    + _EM
    + r""")?\s*(?P<q>[`"'“‘]?)(?P<id>"""
    + _ID
    + r""")(?P=q)?[”’]?\s*
    (?:(?P<close>"""
    + _EM
    + r""")?\s*(?P<sep>:|=|\s-\s|\s?—\s?|\s?–\s?)\s*(?P<after>"""
    + _EM
    + r""")?|(?:\*\*|__)?\s*(?P<sep2>:|=)(?:\*\*|__))
    \s*(?P<reason>.*)$""",
    re.X,
)
# A Markdown table row: | `seg-mix` | Segmentation families cannot be crossed... |
_TABLE_ROW = re.compile(
    r"^\s*\|\s*(?:\*\*)?(?P<q>[`\"']?)(?P<id>"
    + _ID
    + r")(?P=q)(?:\*\*)?\s*\|\s*(?P<reason>[^|]*?)\s*(?:\|.*)?$"
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_SENTENCE_END = (".", "!", "?", ":")
# What ends a rule line without being its reason: a comment, or the closing tags of the
# template's markup (`...adviser.</message>`, `</rule></refusals>`).
_TRAILING_MARKUP = re.compile(
    r"\s*(?:<!--(?:(?!-->).)*-->|\{#(?:(?!#\}).)*#\}|(?:</[A-Za-z][\w:.-]*\s*>\s*)+)\s*$"
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
# Words of refusing that make a heading or lead-in list rules (DESIGN §2 (a)); listing.py
# derives its byte test from this one pattern.
APOSTROPHE = "['’]"
REFUSING_PATTERN = rf"refus|declin|\bwill not\b|\bwon{APOSTROPHE}t\b|\bmust (?:not|never)\b|" + (
    r"\bnever (?:answer|compute|produce)"
)
_REFUSING = re.compile(REFUSING_PATTERN, re.I)
_CODE = re.compile(r"`([^`\n]+)`")
# A slot a template fills in at run time, which the model never reads as written: Jinja,
# `.format` and f-strings (an f-string's field reads `{…}`; `{}`, `{0}`, `{hours:d}`), `%`
# (`%s`, `%d`, `%(seg-mix)s`, `%.1f`; not prose's `50% off`) and `string.Template`
# (`$seg_mix`, `${seg_mix}`). A reason holding one is not stated here, and a name in one is
# a variable's, no rule's near miss.
PLACEHOLDER = re.compile(
    r"\{\{.*?\}\}|\{%.*?%\}|\{…\}|\{[A-Za-z_][A-Za-z0-9_.\[\]'\"-]*\}"
    r"|\{\d*(?:![rsa])?(?::[^{}\n]*)?\}|\{[A-Za-z_][A-Za-z0-9_.]*(?:![rsa]|(?:![rsa])?:[^{}\n]*)\}"
    r"|%(?:\([A-Za-z_][A-Za-z0-9_-]*\))?[#0+-]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[srdifgeExXoc]"
    r"|(?<![\w$])\$\{?[A-Za-z_][A-Za-z0-9_]*\}?"
)
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "`": "`"}


@dataclass(frozen=True)
class RuleLine:
    rule_id: str
    reason: str  # as stated on the rule's own line
    line: int
    col: int
    wrapped: str = ""  # the reason with the indented lines that continue a wrapped list item
    path: str = ""  # its file, where it is not the prompt's (PromptLine.path)

    def states(self, reason: str) -> bool:
        """Does this line state `reason` (white space folded), on one line or wrapped?"""
        want = fold_ws(reason)
        return fold_ws(self.reason) == want or (bool(self.wrapped) and fold_ws(self.wrapped) == want)


def fold_ws(text: str) -> str:
    return " ".join(text.split())


def _clean_reason(text: str) -> str:
    """Strip white space, a comment that ends the line (`<!-- keep in sync -->`, `{# ... #}`:
    the model never reads it) or closing tags (`</message>`), Markdown emphasis around the
    whole reason (`**...**`, `*...*`), and quotes that wrap the whole reason (`"...",` in a
    JSON-like list)."""
    text = unemphasised(_TRAILING_MARKUP.sub("", text).strip())
    if len(text) > 1 and text[0] in _QUOTES:
        body = text[:-1] if text.endswith(",") else text
        if len(body) > 1 and body.endswith(_QUOTES[text[0]]) and _QUOTES[text[0]] not in body[1:-1]:
            return body[1:-1]
    return text


class Stated(NamedTuple):
    """A line that states a rule: its id, the reason as written, the id's 1-based column."""

    rule_id: str
    reason: str
    col: int


def rule_line(text: str) -> Stated | None:
    """The rule `text` states, else None."""
    m = _RULE_LINE.match(text) or _TABLE_ROW.match(text)
    if m is None or not m.group("reason").strip():
        return None
    reason = _emphasised(m)
    q = m.group("q")
    if q and text[m.end("id") : m.end("id") + 1] != _QUOTES[q] and reason.startswith(_QUOTES[q]):
        reason = reason[1:].lstrip()  # the separator inside the quotes: `` `seg-mix:` why ``
    if not any(c.isalpha() for c in reason):
        return None  # no words (`'toxicity': 0.0004,` in a docstring's record): data, not a reason
    return Stated(m.group("id"), reason, m.start("id") + 1)


def _emphasised(m: re.Match[str]) -> str:
    """The reason with the emphasis markers the separator's pattern read given back to it:
    one that opens the reason (`- seg-mix: **Never** mix`) is its own, one that closes the
    id's (`**seg-mix:** why`) is not; and the id's, never closed before the reason, closes
    at its end (`- **seg-mix: why**`)."""
    reason = m.group("reason")
    if m.re is not _RULE_LINE or m.group("sep") is None:
        return reason
    opened, closed, after = m.group("open"), m.group("close"), m.group("after")
    if after and (closed or not opened):
        return after + reason
    if opened and not closed and not after and reason.rstrip().endswith(opened):
        return reason.rstrip()[: -len(opened)]
    return reason


def rule_lines(lines: tuple[PromptLine, ...]) -> list[RuleLine]:
    lines = visible(lines)
    out = []
    for i, pl in enumerate(lines):
        parsed = rule_line(pl.text)
        if parsed is None:
            continue
        rid, reason, col = parsed
        # A wrapped list item continues on lines indented past it (a prompt indented whole
        # indents every line) that start no item of their own; and mid-sentence on one that is
        # not (Markdown's lazy continuation, a YAML folded block), not onto a closing quote or tag.
        wrapped = reason
        indent = _indent(pl.text)
        for nxt in lines[i + 1 :]:
            text = nxt.text.strip()
            if not text or _LIST_ITEM.match(nxt.text) or rule_line(nxt.text):
                break
            if _indent(nxt.text) <= indent and (
                wrapped.rstrip().endswith(_SENTENCE_END) or not text[0].isalnum()
            ):
                break
            wrapped += " " + text
        joined = _clean_reason(wrapped) if wrapped != reason else ""
        out.append(RuleLine(rid, _clean_reason(reason), pl.line, col, joined, pl.path))
    return out


def _indent(text: str) -> int:  # the blanks a line starts with
    return len(text) - len(text.lstrip())


def mentions(lines: tuple[PromptLine, ...], rule_id: str) -> list[PromptLine]:
    """Lines where `rule_id` stands as a whole token, outside comments (its line as given)."""
    shown = visible(lines)
    return [
        pl
        for pl, v in zip(lines, shown, strict=True)
        if rule_id in v.text and rule_id in TOKEN.findall(v.text)
    ]


CONTENT_WORDS = 3  # prose: white space and a few words, not an id, a path or a label


def names_card_rule(text: str, card_ids: frozenset[str]) -> bool:
    """Is `text` a prompt by its content (DESIGN §2): prose that mentions a card rule id as a
    whole token (a rule line for one mentions it too)?"""
    return (
        bool(card_ids)
        and any(i in text for i in card_ids)
        and len(text.split()) >= CONTENT_WORDS
        and not card_ids.isdisjoint(TOKEN.findall(text))
    )


def matters(lines: tuple[PromptLine, ...], card_ids: list[str], lead: tuple[PromptLine, ...] = ()) -> bool:
    """Does this candidate's text count (DESIGN §2): it mentions a card rule, or names one
    (a near miss, or a rule listed where rules are listed, `lead` leading in)? The gates'
    byte tests are supersets of this."""
    return any(mentions(lines, i) for i in card_ids) or bool(unknown_ids(lines, card_ids, lead))


def _listing_lines(lines: tuple[PromptLine, ...], card_ids: set[str]) -> set[int]:
    """Indexes of lines inside places that plainly list rules (DESIGN §2 (a))."""
    # Blocks: runs of non-blank lines, a Markdown heading starting one (the line above a
    # refusing heading is not in its section), and so does a lead-in after rule lines (`Tools
    # you can call:` then its list, `Refuse these:` then its own). Sections: runs between
    # headings.
    headings = {i for i, pl in enumerate(lines) if _HEADING.match(pl.text)}
    stated = {i: r for i, pl in enumerate(lines) if (r := rule_line(pl.text)) is not None}
    blocks: list[list[int]] = []
    current: list[int] = []
    for i, pl in enumerate(lines):
        lead_in = i not in stated and pl.text.rstrip().endswith(":") and not _LIST_ITEM.match(pl.text)
        if current and (
            i in headings or not pl.text.strip() or (lead_in and any(k in stated for k in current))
        ):
            blocks.append(current)
            current = []
        if pl.text.strip():
            current.append(i)
    if current:
        blocks.append(current)
    has_headings = bool(headings)
    section_of: dict[int, int] = {}
    sec = 0
    for i in range(len(lines)):
        sec += i in headings
        section_of[i] = sec
    states_card = {i for i, r in stated.items() if r.rule_id in card_ids}
    heading_refusing = {section_of[i] for i in headings if _REFUSING.search(lines[i].text)}
    card_sections = {section_of[i] for i in states_card} if has_headings else set()
    out: set[int] = set()
    prev_last: int | None = None
    for block in blocks:
        listing = (
            any(i in states_card for i in block)
            or any(_REFUSING.search(lead) for lead in _leads(lines, block, prev_last, stated))
            or any(section_of[i] in heading_refusing | card_sections for i in block)
        )
        if listing:
            out.update(block)
        prev_last = block[-1]
    return out


def _leads(
    lines: tuple[PromptLine, ...], block: list[int], prev_last: int | None, stated: dict[int, Stated]
) -> list[str]:
    """The lines that lead in a block's rules (`stated`: the rule lines, by index): those
    before its first rule line (`You are the analyst.` then `Refuse these:`); where it
    starts with one, the previous block's last line if it ends in `:`; where it states
    none, its first line."""
    rules = [k for k, i in enumerate(block) if i in stated]
    if not rules:
        return [lines[block[0]].text]
    if rules[0] > 0:
        return [lines[i].text for i in block[: rules[0]]]
    lead = lines[prev_last].text if prev_last is not None else ""
    return [lead] if lead.rstrip().endswith(":") else []


@dataclass(frozen=True)
class Unknown:
    token: str
    line: int
    col: int
    suggestion: str | None
    path: str = ""  # its file, where it is not the prompt's (PromptLine.path)


# Everyday hyphenated compounds a rule list may hold as items (`- follow-up: ask one
# question at a time`): prose, never an unknown id (DESIGN §2). A near miss of a card id
# is still one, whatever its spelling (b).
_COMPOUND_WORDS = (
    "follow-up real-time state-of-the-art up-to-date step-by-step long-term short-term "
    "e-mail check-in opt-in opt-out sign-in sign-up log-in built-in well-known one-time "
    "end-to-end third-party first-party day-to-day in-depth high-level low-level "
    "open-source read-only so-called multi-step non-english month-end year-end week-end "
    "time-sensitive out-of-scope off-topic on-topic"
)
_COMPOUNDS = frozenset(_COMPOUND_WORDS.split())


def capitalised(token: str, ids: set[str]) -> bool:
    """A card id with only its first letter capitalised, as a sentence starts with it
    (`Final-sale items cannot be returned.`, often the card's own reason): prose, not a
    near miss. `Seg-Mix`, `SEG-MIX` and `Seg_mix` still are."""
    return token[:1].isupper() and token[:1].lower() + token[1:] in ids


def recased(token: str, ids: set[str] | frozenset[str]) -> bool:
    """A one-word card id in other letter case (`PII`, `VIOLENCE`, `JailBreak`): an acronym,
    a name or emphasis in prose, as its plural is (`spec.inflected`), not a misspelt rule; a
    kebab id's (`SEG-MIX`) is one. Asked only of a token that is no rule line's id."""
    low = token.lower()
    return low != token and low in ids and low.isalnum()


def _prose(token: str) -> bool:
    """Ordinary hyphenated prose: an everyday compound, or a word in sentence case
    (`Follow-up:`, `Month-end:`), which no kebab-case rule id is."""
    return token.lower() in _COMPOUNDS or (token[0].isupper() and token[1:] == token[1:].lower())


_SLOT_MARKS = frozenset("{%$")
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.I)  # a link's path names a page, not a rule
# A tool's name (rule `cash-advance` guards `cash_advance`), no near miss where called or used
# (`cash_advance()`, `Use cash_advance to`) or in a sentence of tools (`Tools: cash_advance.`).
_TOOL_BEFORE = re.compile(r"\b(?:call|use|invoke|run|tools?)[ \t]*[.:]?[ \t]+`?$|\btools?\.$", re.I)
_TOOL_WORD = re.compile(r"\b(?:tool|function|method)s?\b", re.I)
_SENTENCE = re.compile(r"[.;!?](?:\s|$)|\n")


def _tool_named(text: str, start: int, end: int) -> bool:
    if "_" not in text[start:end]:
        return False
    if text[end : end + 1] == "(" or _TOOL_BEFORE.search(text[max(0, start - 12) : start]):
        return True
    begin = max((m.end() for m in _SENTENCE.finditer(text, 0, start)), default=0)
    stop = next((m.start() for m in _SENTENCE.finditer(text, end)), len(text))
    return _TOOL_WORD.search(text, begin, stop) is not None


def unknown_ids(
    lines: tuple[PromptLine, ...], card_ids: list[str], lead: tuple[PromptLine, ...] = ()
) -> list[Unknown]:
    """RL202 candidates: (a) hyphenated ids listed as rules (where `lead`, the lines before
    them in one list, may lead in), (b) near misses of card ids."""
    shown = visible(lead + lines)
    lines = shown[len(lead) :]
    ids = set(card_ids)
    sizes = tuple((rid, len(rid), len(spec.fold_id(rid))) for rid in card_ids)
    out: dict[tuple[str, str, int], Unknown] = {}
    listing = _listing_lines(shown, ids)
    for i, pl in enumerate(lines):
        if i + len(lead) in listing:
            found: list[tuple[str, int]] = []
            parsed = rule_line(pl.text)
            if parsed is not None:
                found.append((parsed.rule_id, parsed.col))
            found += [(m.group(1).strip(), m.start(1) + 1) for m in _CODE.finditer(pl.text)]
            for token, col in found:
                if "-" in token and token not in ids and TOKEN.fullmatch(token) and not _prose(token):
                    out.setdefault(
                        (token, pl.path, pl.line),
                        Unknown(token, pl.line, col, spec.nearest(token, card_ids), pl.path),
                    )
        slots = [m.span() for m in PLACEHOLDER.finditer(pl.text)] if _SLOT_MARKS & set(pl.text) else []
        slots += [m.span() for m in _URL.finditer(pl.text)] if "://" in pl.text else []
        stated: Stated | None = None  # the line's rule, asked for a recased one-word id only
        asked = False
        for m in TOKEN.finditer(pl.text):
            token = m.group(0)
            # The near miss first: kept by token, it passes over most prose at a lookup.
            rid = None if token in ids else _missed(token, sizes)
            # A recased or inflected one-word id is prose, unless it is the line's rule id (an
            # inflected one: of a list item where rules are listed, not `- passwords: ...` of
            # a list of what the agent can do).
            prose = rid is not None and recased(token, ids)
            if rid is None and token not in ids and (rid := _inflection(token, sizes)) is not None:
                prose = True
                if i + len(lead) not in listing or not _LIST_ITEM.match(pl.text):
                    continue
            if rid is None or capitalised(token, ids) or _tool_named(pl.text, m.start(), m.end()):
                continue
            if any(a <= m.start() < b for a, b in slots):
                continue
            if prose:
                if not asked:
                    stated, asked = rule_line(pl.text), True
                if stated is None or (stated.rule_id, stated.col) != (token, m.start() + 1):
                    continue
            out.setdefault((token, pl.path, pl.line), Unknown(token, pl.line, m.start() + 1, rid, pl.path))
    return sorted(out.values(), key=lambda u: (u.path, u.line, u.col))


@functools.lru_cache(maxsize=1 << 16)
def _inflection(token: str, sizes: tuple[tuple[str, int, int], ...]) -> str | None:
    """The card id of 5+ characters `token` is a plural or singular of (`misspelt`)."""
    low = token.lower()
    return next(
        (
            rid
            for rid, n, _ in sizes
            if abs(len(low) - n) <= 2 and spec.misspelt(token, rid) and spec.inflected(low, rid)
        ),
        None,
    )


@functools.lru_cache(maxsize=1 << 16)
def _missed(token: str, sizes: tuple[tuple[str, int, int], ...]) -> str | None:
    """The first card id (`sizes`: with its length, folded too) `token` misses by a little."""
    size, folded = len(token), len(spec.fold_id(token))
    for rid, rid_size, rid_folded in sizes:
        # A near miss folds to the id's length, or is within one of its own.
        if (folded == rid_folded or abs(size - rid_size) <= 1) and spec.near_miss(token, rid):
            return rid
    return None
