"""One entry point per file: bytes in, FileFacts out. Pure; runs in workers for Python."""

from __future__ import annotations

import ast
import dataclasses
import sys
import warnings
from collections.abc import Callable
from typing import NamedTuple

from refusal_lint.core import sourcetext
from refusal_lint.core.facts import FileFacts, Problem
from refusal_lint.core.filekinds import kind_of, no_prompt_by_content, prompt_by_name
from refusal_lint.core.kinds import FileKind, ProblemKind, PromptForm
from refusal_lint.core.model import Loc, Prompt
from refusal_lint.core.nogc import no_gc
from refusal_lint.core.prompttext import names_card_rule
from refusal_lint.core.sourcetext import PY_READ_LIMIT
from refusal_lint.static.extract.data import cards as datacards
from refusal_lint.static.extract.data import comments, jsonpos
from refusal_lint.static.extract.data import prompts as dataprompts
from refusal_lint.static.extract.data.tree import ParseError, TNode, TooDeep
from refusal_lint.static.extract.job import Job
from refusal_lint.static.extract.python import newer
from refusal_lint.static.gate import deferred as gate_deferred
from refusal_lint.static.gate import prefilter, pyscan, relevance
from refusal_lint.static.gate.text import shapes

AST_DEPTH = 2000


def _needed(job: Job) -> bool:
    """Is this file one the check needs? Asked of a file that could not be read (RL002,
    RL005) with the same inputs whatever the shortcuts, so both modes agree (DESIGN §3)."""
    configured = job.read_whole or job.prompt_key is not None
    return prefilter.parse_error_matters(
        job.path, job.kind, job.data, job.ids, job.guard_callables, configured
    )


def _nothing(job: Job) -> FileFacts:
    """A file whose text cannot matter, and that could not be read: it holds nothing."""
    return FileFacts(job.path, job.kind, complete=job.kind != FileKind.PYTHON)


def _problem(job: Job, message: str, line: int = 1, col: int = 1) -> FileFacts:
    """RL002: the standard parser rejects the file, here; a file whose text cannot matter is
    not needed (DESIGN §3), and holds nothing, in either mode, unless it may hold the prompt
    (its RL002 then stands where its agent has no other: `Problem.needed`)."""
    needed = _needed(job)
    # Or a prompt by its content (DESIGN §2): its text names a card rule; unread, it too
    # leaves its agent's prompt unknown, not missing.
    prompt = shapes.may_hold_the_prompt(job.path, job.kind, job.data) or (
        bool(job.ids)
        and not no_prompt_by_content(job.path)
        and names_card_rule(job.data.decode("utf-8", "replace"), frozenset(job.ids))
    )
    if not needed and not prompt:
        return _nothing(job)
    # A refusals card, broken, which marks its agent's folder (bind/scoping.py): our URI or a
    # refusal word in a file named as a card, or one where cards are served. A settings file
    # that only shares a card's name (a package's `agent.json`) holds no refusals card.
    card = (
        needed
        and job.kind != FileKind.PYTHON
        and (prefilter.card_by_name(job.path) or b"ext/refusal" in job.data.lower())
        and (prefilter.refusal_text(job.data) or "/.well-known/" in "/" + job.path)
    )
    problem = Problem(Loc(job.path, line, col), message, card=card, prompt=prompt, needed=needed)
    return FileFacts(job.path, job.kind, problem=problem)


def unchecked(path: str, kind: FileKind, why: str) -> FileFacts:
    """RL005: a valid file that could not be analysed within the limits (line 1)."""
    return FileFacts(
        path, kind, problem=Problem(Loc(path), why + "; its facts are unchecked", ProblemKind.UNCHECKED)
    )


def too_large(path: str, size: int, limit: int) -> FileFacts:
    """A prompt by its name too large to read: its facts are unknown (RL005), so its
    agent's prompt is unknown, not missing (checks/prompt.py: no RL200)."""
    return unchecked(path, kind_of(path) or FileKind.TEXT, f"{size} bytes is over max-file-size ({limit})")


def unchecked_job(job: Job, why: str) -> FileFacts:
    """RL005 for a job's file, unless the file is not needed (as for RL002): the exhaustive
    mode parses every file, and one whose text cannot matter must not give it a finding the
    default mode, which never parses that file, cannot have."""
    return unchecked(job.path, job.kind, why) if _needed(job) else _nothing(job)


def extract(job: Job) -> FileFacts:
    if job.kind == FileKind.PYTHON:
        with no_gc():
            return _python(job)
    try:
        # A text file has no syntax for a stray byte to break (RL002 is a parser's): a
        # Latin-1 `é` in a prompt must not hide its rules (a false RL200), so it is read
        # with U+FFFD for the byte. --fix, which decodes strictly, leaves such a file alone.
        text = sourcetext.decode(job.data, errors="replace" if job.kind == FileKind.TEXT else "strict").text
    except UnicodeDecodeError as exc:
        before = job.data[: exc.start].decode(exc.encoding, "replace").removeprefix("\ufeff")
        line, col = before.count("\n") + 1, len(before) - before.rfind("\n")
        byte = job.data[exc.start]
        return _problem(job, f"not valid {exc.encoding.upper()} (byte 0x{byte:02x})", line, col)
    except ValueError as exc:
        return _problem(job, str(exc))
    notes = comments.suppressions(job.path, job.kind, text)
    if job.kind == FileKind.TEXT:
        # A text file is a prompt by its name, or (form: content) by naming a card rule or
        # deriving its rule list from placeholders; never a report this tool wrote there.
        ours = dataprompts.own_text_report(text)
        read = dataprompts.toml_prompt if job.path.lower().endswith(".toml") else dataprompts.text_prompt
        if job.prompt_key is not None or (prompt_by_name(job.path) and not ours):
            found: tuple[Prompt, ...] = (read(job.path, text),)
        elif (
            not ours
            and not no_prompt_by_content(job.path)
            and (names_card_rule(text, frozenset(job.ids)) or dataprompts.derived_listing(text))
        ):
            found = (read(job.path, text, form=PromptForm.CONTENT),)
        else:
            found = ()
        return FileFacts(job.path, FileKind.TEXT, prompts=found, suppressions=notes)
    try:
        if _holds_no_entry(job, text):
            return FileFacts(job.path, job.kind, suppressions=notes)
        fmt = DATA_FORMATS[job.kind]
        roots = fmt.documents(text, job.path)
    except ParseError as exc:
        return _problem(job, f"invalid {job.kind.upper()}: {exc}", exc.line, exc.col)
    except TooDeep as exc:
        return unchecked_job(job, f"{job.kind.upper()} not read: {exc}")
    exts = []
    prompts = []
    keys: list[str] = []  # the configured key path each prompt is found under
    for root in roots:
        if job.want_card:
            exts.extend(datacards.find_extensions(root))
        for key in job.prompt_key or ():
            found_here = dataprompts.configured_yaml_prompt(root, key)
            prompts.extend(found_here)
            keys.extend(key for _ in found_here)
        if job.prompt_key is None and job.want_prompt:
            ids = frozenset() if no_prompt_by_content(job.path) else frozenset(job.ids)
            prompts.extend(dataprompts.data_prompts(job.path, root, ids))
    if prompts:
        prompts = fmt.place(prompts, text)
    if keys:
        prompts = [dataclasses.replace(p, key=k) for p, k in zip(prompts, keys, strict=True)]
    return FileFacts(job.path, job.kind, exts=tuple(exts), prompts=tuple(prompts), suppressions=notes)


def _holds_no_entry(job: Job, text: str) -> bool:
    """A card candidate only, that holds no entry: asked before positions are worked out
    (an API contract or a schema that says "refusal" holds none). JSON by the C parser; YAML
    not named as a card by its text, once it is parsed (a broken file is RL002 all the same).
    Raises the readers' ParseError."""
    if job.want_prompt or job.prompt_key is not None:
        return False
    if job.kind == FileKind.JSON:
        if job.exhaustive:
            return False
        doc = jsonpos.validate(text)  # a broken one is RL002 all the same
        return not (datacards.json_text_may_hold_extension(text, doc) and datacards.may_hold_extension(doc))
    if job.kind != FileKind.YAML or prefilter.card_by_name(job.path):
        return False  # one named as a card is read whole
    if datacards.text_may_hold_extension(text):
        return False
    from refusal_lint.static.extract.data import yamlsafe

    # Read as the exhaustive run reads it, all but the tree: past its limits, RL005 all the same.
    yamlsafe.within_budget(yamlsafe.compose_all(text))
    return True


class DataFormat(NamedTuple):
    """How a data file kind is read: its documents as position-carrying trees (cards and
    prompt keys are found in those), and its prompt strings put back on their file lines.
    A reader raises tree.ParseError where its parser stops (RL002 there), TooDeep past its
    limits (RL005)."""

    documents: Callable[[str, str], list[TNode]]
    place: Callable[[list[Prompt], str], list[Prompt]]


def _yaml_documents(text: str, path: str) -> list[TNode]:
    from refusal_lint.static.extract.data import yamlsafe  # PyYAML only for a YAML file read

    lines = text.splitlines()
    return [yamlsafe.to_tree(doc, path, lines=lines) for doc in yamlsafe.compose_all(text)]


def _yaml_lines(prompts: list[Prompt], text: str) -> list[Prompt]:
    source = text.splitlines()
    return [dataprompts.remap_lines(p, source) for p in prompts]


def _json_lines(prompts: list[Prompt], text: str) -> list[Prompt]:
    # A JSON string holds no raw line break: every line of its value is on its own line.
    source = sourcetext.lines(text)
    return [dataprompts.one_line(p, source) for p in prompts]


DATA_FORMATS = {
    FileKind.JSON: DataFormat(lambda text, path: [jsonpos.parse(text, path)], _json_lines),
    FileKind.YAML: DataFormat(_yaml_documents, _yaml_lines),
}


def _python(job: Job) -> FileFacts:
    checked = job if job.checked else precheck(job)
    if isinstance(checked, FileFacts):
        return checked
    return _walk(checked)


def _parse(job: Job, text: str) -> tuple[str, ast.Module] | FileFacts:
    """CPython's parser at a bounded depth: a tree it cannot build within AST_DEPTH levels
    (50,000 chained `+`, 20,000 `.attr`) is RL005, a file it rejects RL002 (if needed). A
    file of newer Python is read as python/newer.py rewrites it (the text read with it)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(AST_DEPTH)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return text, ast.parse(text)
            except SyntaxError as exc:
                module = newer.parses(text, str(exc.msg))
                if module is None:
                    return _problem(job, f"syntax error: {exc.msg}", exc.lineno or 1, exc.offset or 1)
                readable = newer.rewritten(module, text)
                if readable is not None:
                    try:
                        return readable, ast.parse(readable)
                    except SyntaxError:
                        pass  # more newer syntax than the rewrite covers
                version = ".".join(map(str, sys.version_info[:2]))
                return unchecked_job(
                    job,
                    f"CPython {version} cannot parse this file ({exc.msg}, line {exc.lineno}), but a"
                    " newer Python's grammar can: run refusal-lint on that Python",
                )
    except RecursionError:
        return unchecked_job(job, f"nested more than {AST_DEPTH} levels deep")
    except MemoryError:
        return unchecked_job(job, "out of memory while parsing")
    except ValueError as exc:
        return _problem(job, f"the parser could not read this file ({exc})")
    finally:
        sys.setrecursionlimit(limit)


def _text(job: Job) -> str | FileFacts:
    try:
        return sourcetext.decode(job.data, python=True).text
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return _problem(job, f"cannot decode: {exc}")
    except ValueError as exc:
        return _problem(job, str(exc))


def precheck(job: Job) -> FileFacts | Job:
    """The `ast` gate: final facts when it settles the file, else the job to extract."""
    with no_gc():
        return _precheck(job)


def _read(job: Job, keep: bool) -> tuple[str, ast.Module] | FileFacts:
    """The file's text and tree. The gate's is kept (`keep`) for the extraction that follows
    it in the same worker when the file passes, which takes it."""
    global _last
    last, _last = _last, None
    if last is not None and last[0] == job.path and last[1] is job.data:
        return last[2], last[3]
    if len(job.data) > PY_READ_LIMIT:
        size = len(job.data) / 1024 / 1024
        return unchecked_job(
            job, f"a Python file of {size:.1f} MiB is past the 1 MiB read budget (generated code?)"
        )
    text = _text(job)
    if isinstance(text, FileFacts):
        return text
    parsed = _parse(job, text)
    if isinstance(parsed, FileFacts):
        return parsed
    text, tree = parsed
    if keep:
        _last = (job.path, job.data, text, tree)
    return text, tree


_last: tuple[str, bytes, str, ast.Module] | None = None


def _precheck(job: Job) -> FileFacts | Job:
    read = _read(job, keep=True)
    if isinstance(read, FileFacts):
        return read
    text, tree = read
    guard_names = frozenset(g.rsplit(".", 1)[-1] for g in job.guard_callables)
    deferred: list[ast.Call] | None = [] if job.defer and not job.prompts else None
    if (
        not job.read_whole
        and not job.exhaustive
        and "refusal-lint:" not in text
        and not pyscan.may_hold_facts(tree, guard_names, frozenset(job.ids), deferred)
        and not (job.prompts and (job.content or pyscan.may_hold_prompt(tree)))
    ):
        if not deferred:
            return FileFacts(job.path, FileKind.PYTHON, complete=False)
        found = gate_deferred.callees(tree, deferred, frozenset(job.ids))
        if found is not None:
            return dataclasses.replace(job, checked=True, deferred=found)
    return dataclasses.replace(job, checked=True)


def _walk(job: Job) -> FileFacts:
    from refusal_lint.static.extract.python import visitor as python

    read = _read(job, keep=False)
    if isinstance(read, FileFacts):
        return read
    text, tree = read
    try:
        # Documentation holds no prompt by content (DESIGN §2); nor does a file none of
        # whose strings can hold a card id (in either mode, as the scan's gate judges it:
        # the walk's search for them is a sixth of its cost on a carded tree's code).
        ids = job.ids
        documentation = no_prompt_by_content(job.path)
        if ids and (documentation or not relevance.of(ids).may_spell_ids(job.data)):
            ids = ()
        return python.extract(job.path, text, job.guard_callables, ids, tree)
    except RecursionError:
        return unchecked_job(job, "nested too deep to read")
    except MemoryError:
        return unchecked_job(job, "out of memory while reading")
