"""The text prefilter: what a file's name and bytes say before any parser reads it (may
it hold a card, a prompt, a guard or an extension declaration?). Cheap and conservative:
a file it passes over can hold nothing a check reads (REFUSAL_LINT_EXHAUSTIVE=1 turns it off)."""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import partial

from refusal_lint.core import spec
from refusal_lint.core.filekinds import CARD_NAMES, kind_of, prompt_by_name
from refusal_lint.core.kinds import FileKind
from refusal_lint.core.sourcetext import before_blanks, spelled
from refusal_lint.static.extract import vocab
from refusal_lint.static.gate import relevance
from refusal_lint.static.gate.guardcall import (
    ERROR_NAMES,
    ERROR_WORDS,
    call_end,
    caught_as_error,
    error_subscript,
    guard_call,
)
from refusal_lint.static.gate.text.lowered import Words, holds, lowered, word_matches, words_of
from refusal_lint.static.gate.text.shapes import alternatives
from refusal_lint.static.gate.treenames import binds, root_of, unread_uri

# The media-type keys only a Part's `metadata` has (`mimeType`), as the lowered text holds them.
_META_KEYS = vocab.METADATA_MEDIA_KEYS - vocab.MEDIA_KEYS
_META_WORDS = frozenset(k.lower().encode() for k in _META_KEYS)
# Every word the text gates below ask of a Python file's lowered text, found in one pass
# (lowered.py); each gate then asks the bytes only for the words held.
_GATE_WORDS = Words(
    (
        b"refus",
        b"rule",
        b"agentextension",
        b"extensions",
        b"extension",
        b'uri"',
        b"uri'",
        b"edia",
        *_META_WORDS,
        *ERROR_WORDS,
    )
)


# `AgentExtension (` is a call too; so is A2A v1.0's `extensions.add(` (vocab.is_extension_call).
_EXTENSION_CALL = re.compile(rb"(?:AgentExtension|extensions[ \t]*\.[ \t]*add)[ \t]*\(")
_EXTENSION_ALIAS = re.compile(rb"AgentExtension[ \t]+as[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
# A class declaring it by its attributes (vocab.declares_extension, which the ast gate asks).
_EXTENSION_CLASS = re.compile(rb"[ \t]*class[ \t]+\w+[ \t]*\([^)]*Extension\b")


def _extension_call(data: bytes) -> bool:
    """An `AgentExtension(...)` call (or of a name it is imported as) whose `uri` may be
    ours (a literal that is, or a name binding can resolve); not an import, a type
    annotation, a call declaring some other extension, or one that copies a uri from a
    parameter (SDK conversion code)."""
    from refusal_lint.static.gate import pyscan
    from refusal_lint.static.gate.composed.reach import module_names

    names: frozenset[str] | None = None
    calls = [*word_matches(_EXTENSION_CALL, data)]
    for alias in {a[1] for a in _EXTENSION_ALIAS.finditer(data)}:  # `AgentExtension as Ext`
        calls += re.finditer(rb"(?<![A-Za-z0-9_.])" + re.escape(alias) + rb"[ \t]*\(", data)
    for m in calls:
        end = call_end(data, m.end() - 1)
        if end < 0:
            return True
        if names is None:
            names = module_names(data)
        if _may_declare(pyscan.call_alone(data[m.start() : end + 1]), partial(_binds, data, names)):
            return True
    return False


def extension_class(data: bytes) -> bool:
    """A class statement whose bases name an `...Extension` (`_EXTENSION_CLASS`), looked for
    from the word, back to the line of the `class` before it (a header may span lines): a
    search from `^` would try every line."""
    at = data.find(b"Extension")
    while at >= 0:
        head = data.rfind(b"class", 0, at)
        if head >= 0 and _EXTENSION_CLASS.match(data, data.rfind(b"\n", 0, head) + 1, at + 10) is not None:
            return True
        at = data.find(b"Extension", at + 1)
    return False


def _may_declare(node: ast.Call | None, bound: Callable[[str], bool]) -> bool:
    """One `AgentExtension(...)` call, read alone (None: it does not parse so): may it
    declare ours? A uri binding can resolve is a literal, a name (the file binds it, or a
    helper's parameter its call sites pass), a table's entry, or a `self`/`cls` attribute;
    not a parameter's attribute copied on (SDK conversion code: `uri=ext.uri`)."""
    if node is None:
        return True
    uri = next((k.value for k in node.keywords if k.arg == "uri"), None)
    if uri is None:
        return any(k.arg is None for k in node.keywords)  # **kwargs may hold it
    params = next((k.value for k in node.keywords if k.arg == "params"), None)
    if unread_uri(uri, params, lambda n: (root := root_of(n)) is not None and bound(root)):
        return True  # read, for RL001's hint
    if isinstance(uri, ast.Constant):
        return not isinstance(uri.value, str) or spec.uri_kind(uri.value) is not None
    while isinstance(uri, ast.Subscript):
        uri = uri.value
    root = root_of(uri)
    if root is not None:
        return root in ("self", "cls") or isinstance(uri, ast.Name) or bound(root)
    return not isinstance(uri, ast.Call)


# `NAME =`, `NAME: T =`, `NAME :=` (not `==`, not `x.NAME =`), unpacked (`NAME, X =`, `(X,
# NAME) =`: a superset, `f(NAME, x=1)` too); and `for ... NAME`, `as NAME`.
_ASSIGNED = rb"(?<![\w.])%s(?:\s*(?::[^=\n]*)?:?|[ \t]*[,)\]][^=\n]*)=(?!=)|\b(?:for|as)\s+[^\n]*?\b%s\b"


def _binds(data: bytes, names: frozenset[str], name: str) -> bool:
    """May the file's text bind `name` to a value binding can read: at module level, or by an
    assignment, a loop or a `with ... as` anywhere (a local); not only as a parameter."""
    word = re.escape(name.encode())
    return binds(names, name) or re.search(_ASSIGNED % (word, word), data) is not None


_PY_NEEDLES = (b"'rule'", b'"rule"', b"/refusal", b"upperhand.refusal", b"refusal-lint")
# A dict literal keyed "uri" may be an extension entry, and one keyed by a media type key
# (or a `media_type=` keyword) a refusal Part, whatever its values are: names imported from
# a sibling module (`{"uri": URI, "params": RULES}`) show no refusal word here.
_MEDIA = alternatives(vocab.MEDIA_KEYS)
_KEYED = rb"[\"'](?:uri|" + _MEDIA + rb")[\"'][ \t\r\n]*:"
_URI_KEY = re.compile(_KEYED + rb"|(?<![A-Za-z0-9_])(?:" + _MEDIA + rb")[ \t]*=(?!=)")
# Those keys in a Part's `metadata` only, not anywhere (an MCP resource's, a file part's).
_META_MIME = re.compile(
    rb"metadata[\"']?[ \t]*[:=][ \t\r\n]*\{[^}]*[\"'](?:" + alternatives(_META_KEYS) + rb")[\"']"
)
# What any match of _URI_KEY holds: the regex has no literal prefix, so sre tries every
# offset of a file; most files that say "uri" (security, during) have none of these. Each
# family is asked by its common part first (`uri"`, `edia`): one pass where it is absent.
_QUOTED_URI = tuple(a + b"uri" + b for a in (b'"', b"'") for b in (b'"', b"'"))
_MEDIA_WORDS = tuple(k.encode() for k in sorted(vocab.MEDIA_KEYS))
# A `rule=` keyword at any place of a call (`dict(detail=d, rule=r)`, `Part(reason=x, rule=r)`),
# after a `(` or `,` and blanks.
_RULE_AT = re.compile(rb"(?:" + alternatives(vocab.RULE_KWARGS) + rb")[ \t]*=(?!=)")


def rule_keyword(data: bytes) -> bool:
    """Does a `rule=` keyword stand in a call? Looked for where `rule` stands, then back
    over blanks to its `(` or `,`: a regex starting at those would be tried on most lines."""
    at = data.find(b"rule")
    while at >= 0:
        if _RULE_AT.match(data, at) is not None:
            before = before_blanks(data, at)
            if before >= 0 and data[before] in b"(,":
                return True
        at = data.find(b"rule", at + 1)
    return False


def python_worth_parsing(data: bytes, extra: tuple[bytes, ...], ids: frozenset[str] = frozenset()) -> bool:
    """Can this file hold a card, a guard, a payload or a suppression? (DESIGN §6; prompt
    candidates are asked for separately, and only where there is a card.) `extra`: byte
    needles (the cards' ids, configured guards' names); `ids`: the cards' rule ids. Asked
    of the names as Python reads them too (NFKC: `Ｒefusal` is `Refusal`)."""
    if _worth(data, extra, ids):
        return True
    if data.isascii():
        return False
    text = data.decode("utf-8", "replace")
    return not unicodedata.is_normalized("NFKC", text) and _worth(
        unicodedata.normalize("NFKC", text).encode("utf-8", "surrogatepass"), extra, ids
    )


def _worth(data: bytes, extra: tuple[bytes, ...], ids: frozenset[str]) -> bool:
    low = lowered(data)
    held = holds(data, _GATE_WORDS)
    if b"refus" in held and (
        guard_call(data, ids) or any(n in data for n in _PY_NEEDLES) or caught_as_error(data, low)
    ):
        return True
    if not held.isdisjoint(ERROR_WORDS) and any(n in data for n in ERROR_NAMES) and error_subscript(data):
        return True
    # Each needle's common part first, asked of the bytes only where the lowered text holds
    # it: no pass at all over a file that has none.
    if b"rule" in held and b"rule" in data and (b"'rule'" in data or b'"rule"' in data or rule_keyword(data)):
        return True
    if (b"agentextension" in held or b"extensions" in held) and _extension_call(data):
        return True
    if b"extension" in held and extension_class(data):
        return True
    quoted_uri = (b'uri"' in held or b"uri'" in held) and any(n in data for n in _QUOTED_URI)
    media = b"edia" in held and b"edia" in data and any(n in data for n in _MEDIA_WORDS)
    if (quoted_uri or media) and _URI_KEY.search(data) is not None:
        return True
    if not held.isdisjoint(_META_WORDS) and _META_MIME.search(data) is not None:
        return True
    return _holds_any(data, extra)


def _holds_any(data: bytes, needles: tuple[bytes, ...]) -> bool:
    """`any(n in data for n in needles)`, the bytes asked only for the needles the lowered
    text holds."""
    held = holds(data, words_of(needles)) if needles else frozenset()
    return any(n in data for n in needles if not n or n.lower() in held)


def card_by_name(rel: str) -> bool:
    """A file named as A2A serves cards (`agent-card.json`, under `.well-known/`)."""
    return rel.rsplit("/", 1)[-1].lower() in CARD_NAMES or "/.well-known/" in "/" + rel


def is_card_candidate(rel: str, data: bytes) -> bool:
    """A refusal word in the text (`refusal_text`), or a card's name."""
    return card_by_name(rel) or refusal_text(data)


def too_large_matters(rel: str, pieces: Iterable[bytes]) -> bool:
    """A file over max-file-size, unread: RL005 (its facts unknown) where it may hold the
    prompt by its name, or a card, guard or payload by its words: in JSON or YAML our URI's
    path (`ext/refusal`, which every near miss keeps: a survey export saying "refusal" is no
    card), in Python a word of refusing (`refuse(`) or a card class's name. Else it is passed
    over with a note, as any file that cannot matter is."""
    kind = kind_of(rel)
    if prompt_by_name(rel):
        return True
    if kind in (None, FileKind.TEXT):
        return False
    words = (b"refus", b"agentextension") if kind == FileKind.PYTHON else (b"ext/refusal",)
    return any(w in low for p in pieces for low in (p.lower(),) for w in words)


def refusal_text(data: bytes) -> bool:
    """A refusal word, as written or as its strings read it (`r\\u0065fusal`)."""
    return _refusal_word(data) or ((view := spelled(data)) is not None and _refusal_word(view))


def _refusal_word(data: bytes) -> bool:
    """A refusal word, not this tool's own name: an editor's settings or a pre-commit
    config that runs `refusal-lint` holds no card (our URI says `refusals/v1`)."""
    for needle in (b"efusal", b"EFUSAL"):
        at = data.find(needle)
        while at >= 0:
            if data[at + 6 : at + 11].lower() not in (b"-lint", b"_lint"):
                return True
            at = data.find(needle, at + 1)
    return False


def parse_error_matters(
    rel: str,
    kind: str,
    data: bytes,
    ids: tuple[str, ...],
    guard_callables: tuple[str, ...] = (),
    configured: bool = False,
) -> bool:
    """Is a file the parser rejects one the check needs (DESIGN §3 RL002)? Only where its
    text could matter: a configured file; a card candidate (a refusal word, a card's name or
    place); a Python file the text gate would parse (a guard, payload, card or suppression
    shape, a configured guard's name); a text naming a card id or a near miss of one. Pure,
    and asked with the same inputs whatever the shortcuts, so both modes agree; an editor's
    JSON-with-comments settings file is never RL002."""
    if configured:
        return True
    if kind == FileKind.PYTHON:
        needles = {i.encode() for i in ids if len(i) > 2} | {
            g.rsplit(".", 1)[-1].encode() for g in guard_callables
        }
        if python_worth_parsing(data, tuple(sorted(needles)), frozenset(ids)):
            return True
    elif is_card_candidate(rel, data):
        return True
    if not ids:
        return False
    return relevance.of(tuple(ids)).names_ids(data)
