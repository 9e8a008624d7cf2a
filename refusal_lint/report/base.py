"""What every format renders: the `Report` value, and how a finding is named in one: its rule
tag (the one place `[rule-id]` is written) and its stable fingerprint."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from refusal_lint.codes import is_error

if TYPE_CHECKING:
    from refusal_lint.core.model import Finding
    from refusal_lint.static.bind.agent import Agent


@dataclass(frozen=True)
class Report:
    """One run's result as the formats read it: what was found, then how it is shown."""

    findings: tuple[Finding, ...]
    agents: tuple[Agent, ...] = ()
    files: int = 0  # files scanned
    fixed: int = 0  # findings --fix fixed before this run
    nothing: bool = False  # no card, prompt or guard found at all
    head: str = ""  # a line above the text report (what probe reached)
    command: str = "check"  # the command that ran (SARIF's automationDetails)
    probed: tuple[str, ...] = ()  # probe: the rules a provoking message was sent for
    # The text of each finding's lines, by (path as shown, line): rdjson counts columns in
    # UTF-8 bytes (reviewdog's proto), the findings in characters. Read by the command, only
    # for a format that needs it: a reporter reads no file.
    lines: Mapping[tuple[str, int], str] = field(default_factory=dict)
    # How it is shown, as formats.render settles it from what was asked:
    color: bool = False
    statistics: bool = False
    quiet: bool = False

    @property
    def errors(self) -> int:
        return sum(is_error(f.code) for f in self.findings)

    @property
    def warnings(self) -> int:
        return len(self.findings) - self.errors


def rule_tag(f: Finding, empty: bool = False) -> str:
    """`[rule-id]`, or "" for a finding of no rule. An empty id counts as none, except where
    `empty` keeps it as `[]` (the text format has always shown it so; output is a contract)."""
    return f"[{f.rule_id}]" if f.rule_id or (empty and f.rule_id is not None) else ""


def tagged(f: Finding, text: str | None = None, empty: bool = False) -> str:
    """`text` (the message, unless given) after the rule tag: `[rule-id] message`, an
    annotation's text."""
    tag, text = rule_tag(f, empty), f.message if text is None else text
    return f"{tag} {text}" if tag else text


def coded(f: Finding, empty: bool = False) -> str:
    """`CODE [rule-id] message`: the code, then the tagged message (a line of a log)."""
    return f"{f.code} {tagged(f, empty=empty)}"


def fingerprints(findings: tuple[Finding, ...]) -> list[str]:
    """One stable identity per finding, for SARIF and GitLab Code Quality (which drops
    repeats): stable across runs and line moves, unique within a run: the code, path and rule,
    and which occurrence of that triple it is. A probed URL's port is no part of it: an
    agent started on port 0 for each CI run is the same agent."""
    seen: dict[tuple[str, str, str], int] = {}
    out = []
    for f in findings:
        key = (f.code, _PORT.sub(r"\1", f.loc.path, count=1), f.rule_id or "")
        n = seen.get(key, 0)
        seen[key] = n + 1
        out.append(hashlib.sha256(f"{key}|{n}".encode("utf-8", "surrogateescape")).hexdigest()[:32])
    return out


_PORT = re.compile(r"^(https?://[^/?#@]*?)(?::[0-9]+)(?=[/?#]|$)")  # a URL's port


# A path's byte that is no UTF-8 (`caf\xe9.py`) stands in its str as a lone surrogate
# (os.fsdecode), which UTF-8 cannot write.
_SURROGATE = re.compile("[\ud800-\udfff]")


# A lone surrogate no byte stands for (`"\ud83d"` in a JSON string: half an emoji), which
# no encoding writes; those of undecodable bytes (`\udce9`) are written back as the byte.
_UNWRITABLE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def _escaped(m: re.Match[str]) -> str:
    return f"\\u{ord(m[0]):04x}"  # as JSON and Python write a lone surrogate


# What a human format never prints as it is: control characters (a card reason's ESC would
# recolour or retitle the terminal, a CR overwrite the line, a line break split a finding in
# two) and the bidirectional controls that reorder what is shown (Trojan Source).
_UNSHOWN = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def code_point(m: re.Match[str]) -> str:
    """A matched character as its escape: `\\x1b`, `\\u202e`."""
    code = ord(m[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """`text` as a terminal or a rendered page may show it: each control character written
    as its escape (`\\x1b`, `\\u202e`); JSON and XML formats escape by their own rules."""
    return _UNSHOWN.sub(code_point, text)


def writable(text: str) -> bytes:
    """A report's text as UTF-8 bytes: a file name's undecodable bytes as they are, any other
    lone surrogate escaped (`\\ud83d`), never an encoding error."""
    return _UNWRITABLE.sub(_escaped, text).encode("utf-8", "surrogateescape")


def dumps(doc: object) -> str:
    """A JSON document as UTF-8 can write it: text as written, a lone surrogate escaped
    (`"caf\\udce9.py"`, which a reader's `os.fsencode` turns back into the file's name)."""
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    return _SURROGATE.sub(_escaped, text) + "\n"
