"""What the prompt stage and binding read on demand, asked of files' text (DESIGN §2
"What is read"): which prompt candidates' files can matter (relevance.py's tests, kept
in the cache's notes), and which files call a helper binding follows. Every test here
runs its literal words first (C's memchr), so a file that cannot match costs no regex.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator
from functools import partial
from typing import TYPE_CHECKING, Any

from refusal_lint.core.filekinds import kind_of
from refusal_lint.core.kinds import FileKind
from refusal_lint.static.gate.guardcall import CALLED, CLASS_BASES
from refusal_lint.static.gate.imports import aliases_of, imported, module_stems
from refusal_lint.static.gate.text.lowered import word_matches

if TYPE_CHECKING:
    from refusal_lint.config import Config
    from refusal_lint.core.facts import FileFacts, Value
    from refusal_lint.static.bind.bound import Bound
    from refusal_lint.static.bind.modules import ModuleIndex
    from refusal_lint.static.discover import walk as discover
    from refusal_lint.static.extract.job import Callee
    from refusal_lint.static.gate.relevance import Relevance
    from refusal_lint.static.schedule import Extraction


class _Notes:
    """One file's answers, computed from its text once and kept in the cache's notes while
    the file, the ids and the tree's modules stay the same."""

    def __init__(self, ex: Extraction, ctx: str, index: ModuleIndex, ahead: bool) -> None:
        self.ex = ex
        self.ctx = ctx
        self.index = index
        # Worked out ahead (warming): a file that cannot be read now is left for the prompt
        # stage to read, note and answer, so what is noted never depends on the workers' pace.
        self.ahead = ahead
        self.stems = module_stems(ex.entries)  # the tree's modules are in the notes' context

    def noted(self, rel: str, what: str, compute: Callable[[bytes], Any]) -> Any:
        entry = self.ex.entries.get(rel)
        if entry is None:
            return None
        note = self.ex.cache.note(rel, entry.size, entry.stamp_ns, self.ctx)
        if what not in note:
            early = self.ex.answers.get(rel, {}) if self.ex.answers_context == self.ctx else {}
            if what in early:
                note[what] = early[what]
            else:
                data = self.ex.peek_text(entry) if self.ahead else self.ex.prompt_text(entry)
                if data is None and self.ahead:
                    return None
                note[what] = compute(data) if data is not None else None
            self.ex.cache.touch()
        return note[what]

    def imported(self, rel: str) -> str:
        """The file's imports of the tree's modules (gate/imports.py's `imported` note): noted
        once, for every round of `reaches` and every run while the file stays the same."""
        return str(self.noted(rel, "imports", partial(imported, stems=self.stems)) or "")


def relevant(
    ex: Extraction, entries: list[discover.Entry], relevance: Relevance, index: ModuleIndex
) -> tuple[set[str], set[str]]:
    """The entries whose candidates can matter (relevance.py, answers.py): those that can
    hold a card id or a near miss, in their own text or in that of a repo module they
    import (a prompt built from `POLICY` imported from another module); and those whose
    prompt shapes may list rules under words of refusing."""
    ex.card_ids = relevance.ids
    steps = _relevant(ex, [e.rel for e in entries], relevance, index, ahead=False)
    while True:
        ex.pump()  # the guesses read_ahead started run on while these questions are asked
        try:
            next(steps)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


def warming(
    ex: Extraction, entries: list[discover.Entry], ids: tuple[str, ...], index: ModuleIndex
) -> Callable[[], bool]:
    """`relevant`'s notes worked out ahead, a file a call (False once none is left), for
    binding's and settling's waits on the workers, where a core is idle: `relevant` then
    finds them noted. Only notes are kept, each a function of a file's bytes and the
    context, so the output is the same however far it got; the ids are the data cards'
    (binding's may add a Python card's: then these notes are simply not asked)."""
    from refusal_lint.static.gate import relevance

    steps = _relevant(ex, [e.rel for e in entries], relevance.of(ids), index, ahead=True)

    def step() -> bool:
        return next(steps, False) is None

    return step


def _relevant(
    ex: Extraction, start: list[str], relevance: Relevance, index: ModuleIndex, ahead: bool
) -> Generator[None, None, tuple[set[str], set[str]]]:
    """`relevant`, a step a file: (strong, weak) once done."""
    from refusal_lint.static.gate import answers
    from refusal_lint.static.gate.imports import reaches

    modules = sorted(rel for rel in ex.entries if kind_of(rel) == FileKind.PYTHON)
    notes = _Notes(ex, answers.context(relevance.ids, modules, index.prefix), index, ahead)

    def names_ids(rel: str) -> bool:
        return bool(notes.noted(rel, "ids", partial(relevance.file_names_ids, rel)))

    def exports(rel: str) -> bool:
        return bool(notes.noted(rel, "exports", relevance.exports_ids))

    def resolve(rel: str, level: int, dotted: str) -> str | None:
        return index.module(rel, dotted, level)

    reached = yield from reaches(start, modules, names_ids, notes.imported, resolve, exports)
    # A file that names no id reaches one only through a prompt value reading an imported
    # name (gate/composed/passed.py, the names its "leads" note follows): its own strings
    # are no candidate by content, which needs the id in the file's text (extract/run.py).
    strong = {rel for rel in reached if names_ids(rel) or notes.noted(rel, "leads", answers.leads)}
    weak = set()
    for rel in start:
        if rel not in strong and notes.noted(rel, "lists", partial(answers.weak, rel, relevance=relevance)):
            weak.add(rel)
        yield
    weak |= yield from _composed(notes, [r for r in start if r not in strong and r not in weak], relevance)
    return strong, weak


def _composed(notes: _Notes, rest: list[str], relevance: Relevance) -> Generator[None, None, set[str]]:
    """The Python prompt candidates among `rest` whose rule list may be composed through a
    name (gate/composed/): a lead-in left open, then a name read that may hold rule lines;
    or a prompt's value reading an imported name whose binding may hold what it lacks."""
    from refusal_lint.static.gate import answers

    reach = None  # made, and its modules imported, for the first file with names to follow
    out = set()
    for rel in rest:
        if kind_of(rel) == FileKind.PYTHON and (leads := notes.noted(rel, "leads", answers.leads)):
            if reach is None:
                from refusal_lint.static.gate.composed.reach import Reach

                reach = Reach(notes.noted, notes.index.module, relevance.in_an_id)
            if any(reach.lists(rel, names, frozenset(need.split())) for need, names in leads.items()):
                out.add(rel)
        yield
    return out


def waiting(ex: Extraction) -> Callable[[], bool]:
    """This process's work while it waits on the workers, a step a call (False once none
    is left): the data files' text answers, then `ex.meanwhile` (warming)."""
    steps = [s for s in (data_answers(ex), ex.meanwhile) if s is not None]

    def step() -> bool:
        if steps and not steps[0]():
            steps.pop(0)
        return bool(steps)

    return step


def data_answers(ex: Extraction) -> Callable[[], bool] | None:
    """The prompt stage's text answers (gate/answers.py) for the data files it may read,
    where the scan answers Python's: asked while the workers scan, not after it, serially;
    not again where the cache's notes keep them (a run after one file changed)."""
    if not ex.answers_context:
        return None
    from refusal_lint.static.gate.answers import stepwise

    def answered(entry: discover.Entry) -> bool:
        note = ex.cache.kept_note(entry.rel, entry.size, entry.stamp_ns, ex.answers_context)
        return note is not None and "ids" in note and (bool(note["ids"]) or "lists" in note)

    todo = {
        e.rel: e
        for e in ex.prompt_only
        if kind_of(e.rel) != FileKind.PYTHON and e.rel not in ex.answers and not answered(e)
    }
    return stepwise(list(todo), lambda rel: ex.peek_text(todo[rel]), ex.answers_ids, ex.answers)


def read_ahead(ex: Extraction) -> None:
    """Start the prompt stage's likely reads of Python files now, while binding runs in
    the main process: the files whose prompt shapes the scan found may list rules (the
    weak set of `relevant`, read as `Extraction.read_prompts` reads it). Their facts are
    kept aside and used only by the same job (`Extraction.submit`): a wrong guess costs
    the work, never a change of output."""
    from refusal_lint.static.gate.text import shapes

    for entry in ex.prompt_only:
        rel = entry.rel
        if kind_of(rel) != FileKind.PYTHON or not ex.answers.get(rel, {}).get("lists"):
            continue
        if rel in ex.pending or rel in ex.facts:
            continue
        data = ex.peek_text(entry)
        if data is not None and shapes.python_prompt_candidate(data):
            ex.guess(ex.prompt_job(rel, data))


def read_callees_ahead(ex: Extraction, index: ModuleIndex) -> None:
    """Start reading, while binding runs, the modules `settle` will read to judge the
    deferred files' callees: the files their imports name (`from M import NAME`: M, or
    the submodule M.NAME), read whole as binding reads a module it imports. Kept aside as
    guesses (Extraction.guess): a module settle does not ask costs the work, never a
    change of output."""
    for rel, (callees, _) in sorted(ex.deferred.items()):
        for c in callees:
            for dotted in (c.module, f"{c.module}.{c.name}" if c.module else c.name):
                module = index.module(rel, dotted, c.level)
                if module is None or module in ex.facts or module in ex.pending:
                    continue
                job = ex.python_job(ex.entries[module], True) if module in ex.entries else None
                if job is not None:
                    ex.guess(job)


def callers(ex: Extraction, helpers: frozenset[str], py_paths: list[str]) -> set[str]:
    """Python files not read whole whose text calls one of `helpers`, or a name bound to one
    (`from .out import say_no as nope`, `nope = say_no`: binding follows both): a call
    site there may pass a rule id to the helper (`block(Rule.ZODIAC, ...)`); and those that
    bind such a name, which binding reads to know it is the helper's."""
    unread = _unread(ex, py_paths)
    names, binders = _aliased(ex, helpers, unread)
    return _naming(ex, names, unread, "calls", lambda word: word + CALLED) | binders


def definers(ex: Extraction, bound: Bound, py_paths: list[str]) -> set[str]:
    """Python files not read whole whose text defines a method binding looks up by name
    (`bound.methods`), or a class whose base may be a guard by inheritance (`subclassed`,
    bind/guards/subclasses.py), also by a name a file binds it to (`Guard as Check`), and those."""
    unread = _unread(ex, py_paths)
    methods = _naming(ex, bound.methods, unread, "defs", lambda word: rb"def[ \t]+" + word + rb"[ \t]*\(")
    classes, binders = _aliased(ex, bound.subclassed, unread)
    return methods | binders | _naming(ex, classes, unread, "bases", lambda word: CLASS_BASES + word)


def _unread(ex: Extraction, py_paths: list[str]) -> list[str]:
    """The Python files of the tree not read whole (binding knows nothing of them)."""
    return [p for p in py_paths if p in ex.entries and ((f := ex.facts.get(p)) is None or not f.complete)]


def _answer(ex: Extraction, rel: str, kind: str, name: str, compute: Callable[[bytes], Any]) -> Any:
    """A file's answer to a `kind` of question about `name`: from its notes, else worked out
    from its text and noted; None while it cannot be read (asked again next time)."""
    entry = ex.entries[rel]
    note = ex.cache.note(rel, entry.size, entry.stamp_ns, "", kind)
    if name not in note:
        data = ex.prompt_text(entry)
        if data is None:
            return None
        note[name] = compute(data)
        ex.cache.touch()
    return note[name]


def _aliased(ex: Extraction, names: frozenset[str], unread: list[str]) -> tuple[frozenset[str], set[str]]:
    """`names` and every name one of the `unread` files binds to one of them, transitively
    (a re-export renamed, then aliased again), and the files that bind them."""
    out = set(names)
    binders: set[str] = set()
    todo = sorted(names)
    while todo:
        name = todo.pop()
        for rel in unread:
            found = _answer(ex, rel, "aliases", name, partial(aliases_of, name=name))
            if found:
                binders.add(rel)
                todo.extend(a for a in found if a not in out)
                out.update(found)
    return frozenset(out), binders


def _naming(
    ex: Extraction, names: frozenset[str], unread: list[str], kind: str, shape: Callable[[bytes], bytes]
) -> set[str]:
    """The `unread` files whose text holds `shape` of one of `names`, starting a word
    (`shape` starts with one: a literal prefix the regex engine scans for fast, where a
    leading `\\b` would have it try every offset). Each file's answer for each name is kept
    in its notes (the names grow from one binding to the next), and this run's by name
    (`ex.named`): binding asks again every round, so each round looks only at the files and
    names not asked yet, not at every file of the tree."""
    if not names:
        return set()
    asked = ex.named.setdefault(kind, {})
    out: set[str] = set()
    for name in sorted(names):
        seen, holding = asked.setdefault(name, (set(), set()))
        word = name.encode()
        pattern = re.compile(shape(re.escape(word)))
        for rel in unread:
            if rel in seen:
                continue
            found = _answer(ex, rel, kind, name, partial(_shaped, word=word, pattern=pattern))
            if found is None:
                continue  # unreadable now: asked again next time, as before
            seen.add(rel)
            if found:
                holding.add(rel)
        out.update(holding)
    return out.intersection(unread)


def _shaped(data: bytes, word: bytes, pattern: re.Pattern[bytes]) -> bool:
    return word in data and next(word_matches(pattern, data), None) is not None


JUDGE_ROUNDS = 3  # modules read, one round at a time, to know a deferred file's callees


def settle(ex: Extraction, bound: Bound | None, cfg: Config, index: ModuleIndex, whole: bool) -> list[str]:
    """The deferred files (gate/deferred.py) to parse after all; the others are settled as
    holding nothing but prompt candidates maybe. A file is settled only where its facts
    would have bound to nothing: in an agent's files (one agent takes every file with facts;
    of several, a file no root holds is parsed, as it may be RL004), so neither RL004 nor
    the card-less tree's binding needs it; no class built with a card's params
    (`AgentExtension(params=self.rules)` reads its constructor calls), no configured guard
    callable, the whole tree wanted; and each callee binds, through binding's own lookup
    and callee rules, to repo definitions none of which has an id parameter (bind/guards/ids.py)."""
    # One that binding has read meanwhile (a module it imports from) is parsed already.
    deferred = {p: d for p, d in ex.deferred.items() if p not in ex.facts}
    ex.deferred = {}
    if (
        not whole
        or bound is None
        or not bound.agents
        or cfg.agents
        or cfg.guard_callables
        or any(e.owner is not None for f in ex.facts.values() for e in f.py_exts)
    ):
        return sorted(deferred)
    tried: set[str] = set()
    for rounds in range(JUDGE_ROUNDS + 1):
        judge = _Judge(ex.facts, index, {p: c for p, (c, _) in deferred.items()})
        parse = {p for p, (callees, _) in deferred.items() if not all(judge.no_guard(p, c) for c in callees)}
        need = [m for m in sorted(judge.missing - tried) if m in ex.entries]
        tried |= judge.missing
        if not need:
            break
        if rounds == JUDGE_ROUNDS:
            return sorted(deferred)  # a long chain of re-exports: binding's own rounds may stop short
        for m in need:  # what binding would read to know the callee, read as binding reads it
            job = ex.python_job(ex.entries[m], True)
            if job is not None:
                ex.submit(job)
        ex.drain()
    parse |= judge.unsure
    if len(bound.agents) > 1:
        from refusal_lint.static.bind.scoping import claimed

        parse |= {p for p in deferred if not claimed(p, bound.agents)}
    for rel, (_, prompt) in deferred.items():
        if rel not in parse and prompt:
            ex.prompt_only.append(ex.entries[rel])
    return sorted(parse)


class _Judge:
    """Binding's lookup and callee rules (bind/resolve.py, bind/guards/ids.py) over the facts
    read, each deferred file standing as the imports the gate found for its callees. A
    lookup into such a file for any other name makes it unsure: it is parsed."""

    def __init__(
        self, facts: dict[str, FileFacts], index: ModuleIndex, deferred: dict[str, tuple[Callee, ...]]
    ):
        from refusal_lint.core.facts import ImportRef
        from refusal_lint.static.bind.guards.ids import GuardIds
        from refusal_lint.static.bind.resolve import Resolver

        self.unsure: set[str] = set()
        heads = {p: {c.local for c in callees} for p, callees in deferred.items()}
        res = Resolver(facts, index)
        for p, callees in deferred.items():
            res.defs[p] = {}
            res.imports[p] = {c.local: ImportRef(c.module, c.name, c.level) for c in callees}
        lookup = res.lookup

        def watched(module: str, dotted: str, depth: int = 0) -> Value | None:
            if module in heads and dotted.split(".")[0] not in heads[module]:
                self.unsure.add(module)
            return lookup(module, dotted, depth)

        res.lookup = watched  # type: ignore[method-assign]
        self.missing = res.missing
        self.ids = GuardIds(res, facts.values())

    def no_guard(self, path: str, callee: Callee) -> bool:
        """Would binding find the call no guard (guards/ids.py id_value's `False, None`)?"""
        from refusal_lint.core.facts import CallV, Ref
        from refusal_lint.core.model import Loc

        loc = Loc(path)
        fns = self.ids.callees(CallV(Ref(path, callee.dotted, loc), (), (), loc))
        return bool(fns) and all(self.ids.id_param(fn) is None and not self.ids.class_rule(fn) for fn in fns)
