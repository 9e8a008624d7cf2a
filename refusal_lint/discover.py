"""The file walk (.gitignore honoured, never entering .git, virtualenvs, node_modules,
__pycache__), and the text prefilter that decides which files are worth reading."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from refusal_lint.filekinds import FileKind, kind_of

if TYPE_CHECKING:
    import pathspec

NEVER_ENTER = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".refusal_lint_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
        ".nox",
    }
)
CARD_NAMES = frozenset(
    {
        "agent-card.json",
        "agent.json",
        "agent-card.yaml",
        "agent-card.yml",
        "agent_card.json",
        "agentcard.json",
    }
)


@dataclass(frozen=True)
class Entry:
    rel: str  # relative to the scan root, '/'-separated
    abs: str
    size: int
    mtime_ns: int = 0


@dataclass
class Walk:
    files: list[Entry]
    skipped: list[str]  # one-line notes: unreadable folders, loops


def gitignore_spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    import pathspec  # only trees with a .gitignore or globs pay for it

    return pathspec.GitIgnoreSpec.from_lines(lines)


def _spec(lines: list[str]) -> pathspec.GitIgnoreSpec | None:
    lines = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    return gitignore_spec(lines) if lines else None


_SIMPLE_SUFFIX = re.compile(r"\*(\.[A-Za-z0-9_.+-]+)\Z")


class _Ignore:
    """One .gitignore: its folder, a cheap test of whether any of its patterns can match a
    path at all, and pathspec's spec for the exact verdict, built only when one can (most
    paths match no pattern, and compiling every pattern of every .gitignore costs more
    than the whole walk).

    The test is a superset: plain names (`build`, `.venv/`) and `*.ext` lines become set
    and suffix checks on every component of the path; other lines one regex."""

    def __init__(self, base: str, lines: list[str]) -> None:
        self.base = base
        self.lines = lines
        self._spec: pathspec.GitIgnoreSpec | None = None
        self.names: set[str] = set()
        suffixes: list[str] = []
        complex_lines: list[str] = []
        for line in lines:
            pattern = line.strip()
            body = pattern[:-1] if pattern.endswith("/") else pattern
            if not body or pattern.startswith(("!", "/")) or "/" in body or "\\" in body:
                complex_lines.append(line)
            elif (m := _SIMPLE_SUFFIX.match(body)) is not None:
                suffixes.append(m.group(1))
            elif any(c in body for c in "*?["):
                complex_lines.append(line)
            else:
                self.names.add(body)
        self.suffixes = tuple(suffixes)
        self.regex: re.Pattern[str] | None = None
        if complex_lines:
            from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

            alternatives = []
            for line in complex_lines:
                regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
                if include is not None and regex is not None:
                    alternatives.append("(?:" + str(regex).replace("(?P<ps_d>", "(?:") + ")")
            self.regex = re.compile("|".join(alternatives)) if alternatives else None

    def may_match(self, sub: str) -> bool:
        if self.names or self.suffixes:
            for part in sub.split("/"):
                if part in self.names or (self.suffixes and part.endswith(self.suffixes)):
                    return True
        return self.regex is not None and self.regex.search(sub) is not None

    @property
    def spec(self) -> pathspec.GitIgnoreSpec:
        if self._spec is None:
            self._spec = gitignore_spec(self.lines)
        return self._spec


def _read_ignore(folder: str) -> _Ignore | None:
    try:
        with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as fh:
            lines = [ln for ln in fh.read().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    except OSError:
        return None
    return _Ignore(folder, lines) if lines else None


def _sub(path: str, base: str) -> str:
    """`path` relative to its ancestor `base`, '/'-separated (slicing: relpath is slow)."""
    if path.startswith(base) and path[len(base) : len(base) + 1] == os.sep:
        sub = path[len(base) + 1 :]
    else:
        sub = os.path.relpath(path, base)
    return sub.replace(os.sep, "/") if os.sep != "/" else sub


def _ignored(path: str, is_dir: bool, ignores: list[_Ignore]) -> bool:
    """Git's rule: the last matching pattern wins, deeper .gitignore files last."""
    verdict = False
    for ig in ignores:
        sub = _sub(path, ig.base)
        if is_dir:
            sub += "/"
        if not ig.may_match(sub):
            continue
        result = ig.spec.check_file(sub)
        if result.include is not None:
            verdict = result.include
    return verdict


def walk(root: str, targets: list[str], exclude: list[str], exclude_base: str) -> Walk:
    """Every candidate file under `targets` (absolute paths), relative to `root`."""
    out = Walk([], [])
    excl = _spec(exclude)
    seen_dirs: set[tuple[int, int]] = set()

    def rel_of(path: str) -> str:
        return _sub(path, root)

    def excluded(path: str, is_dir: bool) -> bool:
        if excl is None:
            return False
        sub = _sub(path, exclude_base)
        return not sub.startswith("../") and excl.match_file(sub + "/" if is_dir else sub)

    def ignore_specs_above(folder: str) -> list[_Ignore]:
        specs = []
        here = os.path.abspath(folder)
        chain = []
        while True:
            chain.append(here)
            if os.path.isdir(os.path.join(here, ".git")):
                break
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
        for d in reversed(chain[1:]):
            ig = _read_ignore(d)
            if ig is not None:
                specs.append(ig)
        return specs

    for target in (os.path.abspath(t) for t in targets):
        if os.path.isfile(target):
            kind = kind_of(target)
            if kind is not None:
                fst = os.stat(target)
                out.files.append(Entry(rel_of(target), target, fst.st_size, fst.st_mtime_ns))
            continue
        base_specs = ignore_specs_above(target)
        stack: list[tuple[str, list[_Ignore]]] = [(target, base_specs)]
        while stack:
            folder, specs = stack.pop()
            try:
                st = os.stat(folder)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen_dirs:
                continue
            seen_dirs.add((st.st_dev, st.st_ino))
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                out.skipped.append(f"{rel_of(folder)}: cannot list folder ({exc.strerror})")
                continue
            names = {e.name for e in entries}
            if "pyvenv.cfg" in names and folder != target:
                continue
            own = _read_ignore(folder) if ".gitignore" in names else None
            here_specs = [*specs, own] if own else specs
            subdirs = []
            for e in entries:
                path = e.path
                rel = rel_of(path)
                try:
                    is_dir = e.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if e.name in NEVER_ENTER or _ignored(path, True, here_specs) or excluded(path, True):
                        continue
                    subdirs.append(path)
                    continue
                if kind_of(e.name) is None or _ignored(path, False, here_specs) or excluded(path, False):
                    continue
                try:
                    fst = os.stat(path)  # follows a symlinked file; a loop raises ELOOP
                except OSError:
                    continue
                if not stat.S_ISREG(fst.st_mode):
                    continue  # FIFOs, devices, sockets: never opened
                out.files.append(Entry(rel, path, fst.st_size, fst.st_mtime_ns))
            stack.extend((d, here_specs) for d in reversed(subdirs))
    return out


# ---- the text prefilter -----------------------------------------------------------------

# Stage one is plain substring search on the lower-cased bytes (fast); stage two, a precise
# pattern, runs only on the few files stage one lets through.
# Every shape of DESIGN §2's prompt table, as text: keyword arguments and assignments whose
# name holds prompt/instruction/backstory, `system=`/`goal=`, dict keys, chat roles,
# SystemMessage, and `@agent.system_prompt` decorators. A superset: libcst decides.
_PROMPT_SHAPE = re.compile(
    # A name holding the word, assigned or passed (`SYSTEM_PROMPT =`, `instruction=`): matched
    # from the word on, so the search runs from literal prefixes, not from every position.
    rb"(?:[Pp]rompt|PROMPT|[Ii]nstruction|INSTRUCTION|[Bb]ackstory|BACKSTORY)[A-Za-z0-9_]*"
    rb"[ \t]*(?::[^=\n]*)?=(?!=)"
    rb"|(?<![A-Za-z0-9_.])(?:system|system_message|goal)[ \t]*=(?!=)"
    rb"|[\"'](?:[^\"'\n]*(?:prompt|instruction)[^\"'\n]*|system|backstory|goal)[\"'][ \t]*:"
    rb"|[\"']role[\"'][ \t]*:[ \t]*[\"'](?:system|developer)[\"']"
    rb"|\([ \t\r\n]*[\"'](?:system|developer)[\"'][ \t]*,"
    rb"|SystemMessage"
    rb"|@[A-Za-z0-9_.]*\.(?:system_prompt|instructions)\b"
)
_PROMPT_WORDS = (b"prompt", b"instruction", b"backstory", b"system", b"goal", b"developer")


def prompt_words(data: bytes) -> bool:
    """The cheap first test: a word any prompt shape holds."""
    low = data.lower()
    return any(w in low for w in _PROMPT_WORDS)


def python_prompt_candidate(data: bytes) -> bool:
    """Can this file hold a prompt candidate? Asked only where a card makes prompts matter."""
    return prompt_words(data) and _PROMPT_SHAPE.search(data) is not None


def data_prompt_candidate(data: bytes) -> bool:
    """A YAML or JSON config that may hold strings under prompt keys (DESIGN §2)."""
    return prompt_words(data)


_ADK = re.compile(rb"^instruction\s*:", re.M)
CREWAI_CONFIGS = frozenset({"agents.yaml", "agents.yml", "tasks.yaml", "tasks.yml"})


_GUARD_WORD = re.compile(rb"(?:[Rr]efus|REFUS)[A-Za-z0-9_]*\(")  # a literal prefix: sre scans for it fast
_IDENT = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_DEFINITION = re.compile(rb"[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+\Z")
_CALL_TEXT = 4096  # bytes of arguments read; a longer call is parsed with its file


def _call_end(data: bytes, open_at: int) -> int:
    """Where the call whose `(` is at `open_at` closes (-1: not found within reach)."""
    depth = 0
    quote = 0
    i = open_at
    stop = min(len(data), open_at + _CALL_TEXT)
    while i < stop:
        c = data[i]
        if quote:
            if c == 92:  # backslash
                i += 1
            elif c == quote:
                quote = 0
        elif c in (34, 39):  # " '
            quote = c
        elif c == 35:  # a comment runs to the line's end
            nl = data.find(b"\n", i, stop)
            i = stop if nl < 0 else nl
        elif c in (40, 91, 123):
            depth += 1
        elif c in (41, 93, 125):
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _guard_call(data: bytes) -> bool:
    """A call of a name holding the word refuse/refusal/refusals (DESIGN §2) whose arguments
    may carry a rule id. Definitions (`def test_refusal_...(`), prose and calls that pass
    only sentences or a library's keyword fields (`ResponseOutputRefusal(type="refusal")`)
    are not; each call's own text is parsed to tell."""
    from refusal_lint.extract import pyscan, vocab

    for m in _GUARD_WORD.finditer(data):
        start = m.start()
        while start > 0 and data[start - 1] in _IDENT:
            start -= 1
        name = data[start : m.end() - 1].decode("ascii", "replace")
        if not vocab.is_guard_name(name):
            continue
        if _DEFINITION.match(data, data.rfind(b"\n", 0, start) + 1, start):
            continue
        end = _call_end(data, m.end() - 1)
        if end < 0 or pyscan.call_text_may_fire(
            data[start : end + 1], receiver=data[start - 1 : start] == b"."
        ):
            return True
    return False


_EXTENSION_CALL = re.compile(rb"\bAgentExtension\(")
_MODULE_NAME = re.compile(
    rb"^(?:(?:async[ \t]+)?def|class)[ \t]+([A-Za-z_][A-Za-z0-9_]*)"
    rb"|^([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=)",
    re.M,
)
_IMPORTED = re.compile(rb"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import\b([^\n]*)", re.M)


def module_names(data: bytes) -> frozenset[str]:
    """Names bound at a module's top level, as text shows them: assigned at column 0,
    defined, or imported anywhere (an import inside a block may be module level too)."""
    names = {(a or b).decode() for a, b in _MODULE_NAME.findall(data)}
    for line in _IMPORTED.findall(data):
        names.update(n.decode() for n in re.findall(rb"[A-Za-z_][A-Za-z0-9_]*", line))
    return frozenset(names)


def _extension_call(data: bytes) -> bool:
    """An `AgentExtension(...)` call whose `uri` may be ours (a literal that is, or a name
    binding can resolve); not an import, a type annotation, a call declaring some other
    extension, or one that copies a uri from a parameter (SDK conversion code)."""
    from refusal_lint.extract import pyscan

    names: frozenset[str] | None = None
    for m in _EXTENSION_CALL.finditer(data):
        end = _call_end(data, m.end() - 1)
        if end < 0:
            return True
        if names is None:
            names = module_names(data)
        if pyscan.extension_text_may_declare(data[m.start() : end + 1], names):
            return True
    return False


_PY_NEEDLES = (b"'rule'", b'"rule"', b"/refusal", b"upperhand.refusal", b"refusal-lint")


def python_worth_parsing(data: bytes, extra: tuple[bytes, ...]) -> bool:
    """Can this file hold a card, a guard, a payload or a suppression? (DESIGN §6; prompt
    candidates are asked for separately, and only where there is a card.)"""
    low = data.lower()
    if b"refus" in low and (_guard_call(data) or any(n in data for n in _PY_NEEDLES)):
        return True
    if b"'rule'" in data or b'"rule"' in data or b"(rule=" in data:
        return True
    if b"AgentExtension(" in data and _extension_call(data):
        return True
    return any(n in data for n in extra)


def is_card_candidate(name: str, rel: str, data: bytes) -> bool:
    return (
        b"efusal" in data or b"EFUSAL" in data or name.lower() in CARD_NAMES or "/.well-known/" in "/" + rel
    )


def prompt_by_name(rel: str) -> bool:
    """A text or YAML file that is a prompt by its name alone: named for a prompt (the file
    or a folder it is in), or a CrewAI agent config."""
    kind = kind_of(rel)
    lower = rel.lower()
    name = lower.rsplit("/", 1)[-1]
    named = (
        "prompt" in lower or "instruction" in lower or name.startswith("system") or name.endswith(".prompty")
    )
    if kind == FileKind.TEXT:
        return named
    return kind == FileKind.YAML and (named or name in CREWAI_CONFIGS)


def is_prompt_file(rel: str, kind: str, data: bytes) -> bool:
    """A prompt by its name, or (YAML) an ADK agent config by its `instruction:`."""
    return prompt_by_name(rel) or (kind == FileKind.YAML and _ADK.search(data) is not None)
