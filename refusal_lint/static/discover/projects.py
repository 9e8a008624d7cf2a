"""PATH arguments that are files (DESIGN §1): a file names the agents it belongs to.

The tree checked for a file is its project's (roots.py); the findings reported are those of the
agents owning one of the given files, wherever they stand, and those standing in a given
file. A file in no agent gives nothing more. A folder inside the config file's project,
inside one agent, whose code imports a module of its project from outside it (a shared
`common/` beside agent folders), or holding no card (that `common/` itself), names the
files under it so.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from refusal_lint.config import AgentConfig, Config
from refusal_lint.core.filekinds import CARD_NAMES, kind_of, no_prompt_by_content, prompt_by_name
from refusal_lint.core.kinds import FileKind
from refusal_lint.static.discover.roots import (
    builds_card,
    card_in,
    head,
    project_root,
    python_card_in,
    under,
)

if TYPE_CHECKING:
    from refusal_lint.core.facts import FileFacts
    from refusal_lint.core.model import Finding
    from refusal_lint.static.bind.agent import Agent
    from refusal_lint.static.discover import walk as discover
    from refusal_lint.static.discover.roles import Roles


def names_its_files(folder: str, cfg: Config) -> bool:
    """Is a folder PATH checked as the files under it, in their project, rather than as a
    tree of its own? Inside the folder of the run's config file (the project it marks: its
    `agents:` and cards may stand beside the folder); or inside one agent, its card at the
    A2A place above the folder within the project, or the card's own `.well-known/` (DESIGN
    §1: never a partial agent's false RL001/RL200/RL301; an agent nested in the folder is
    named by its own files); a card built in a module of a folder above counts as one there
    (`app/card.py` above `app/tools/`); or a folder that needs its project
    (`_needs_project`: one agent's folder calling a shared helper beside it, or a folder of
    shared helpers holding no card). Else the folder is its own tree (a self-contained
    agent or test case kept inside a larger repository)."""
    here = os.path.abspath(folder)
    base = os.path.abspath(cfg.base) if cfg.source else None
    if base is not None and here != base and under(here, base):
        return True
    if os.path.basename(here) == ".well-known":
        return card_in(os.path.dirname(here)) is not None
    top = project_root(os.path.join(here, "_"), cfg)
    if card_in(here) is None:
        place = here
        while place != top and under(place, top):
            place = os.path.dirname(place)
            if card_in(place) is not None or python_card_in(place):
                return True
    if here == top or not under(here, top):
        return False
    # A src layout's folder (`src/`, `src/app/`): its agent's root is the folder holding
    # `src/` (bind/scoping.agent_roots), where its prompts and tests stand.
    return "src" in os.path.relpath(here, top).split(os.sep) or _needs_project(here, top)


def _needs_project(folder: str, top: str) -> bool:
    """Is `folder` no tree of its own: its Python code imports a module of its project that
    stands outside it (`from common.refusals import refuse`, `common/` beside the folder;
    `from .. import x` past its top), which binding reads as a run of the project does; or
    it holds no card at all (a shared `common/` or `libs/`: alone, its guards could only be
    RL001)? A module is looked for as Python finds it, beside the importer and in each
    folder above it up to the project's top, the nearest first."""
    from refusal_lint.static.gate.imports import imports_of

    card = False
    elsewhere = _Elsewhere(top, folder)
    for place, names in _python_walk(folder):
        card = card or not CARD_NAMES.isdisjoint(names)
        for name in names:
            if not name.endswith(".py"):
                continue
            text = head(os.path.join(place, name))
            card = card or builds_card(text)
            for level, dotted in imports_of(text):
                found = _module_file(place, level, dotted, top)
                if (found is not None and not under(found, folder)) or (
                    found is None and elsewhere(level, dotted)
                ):
                    return True
    return not card


def _python_walk(folder: str) -> Iterable[tuple[str, list[str]]]:
    """Each folder under `folder` a run enters, with its files' names."""
    from refusal_lint.static.discover.walk import NEVER_ENTER

    for place, dirs, names in os.walk(folder):
        dirs[:] = [
            d
            for d in dirs
            if (d not in NEVER_ENTER and d != "site-packages" and d[:1] != ".") or d == ".well-known"
        ]
        if "pyvenv.cfg" in names:
            dirs[:] = []
            continue
        yield place, names


class _Elsewhere:
    """Is a module imported absolutely one of the project's outside `folder`, as Python
    finds it on its path (`libs/common/` for `import common`, libs/ holding no
    `__init__.py`; not `survey_agent/refusals.py` for `import refusals`), which binding
    reads by its path's tail? The project's Python files are listed once, when first asked."""

    def __init__(self, top: str, folder: str) -> None:
        self.top, self.folder = top, folder
        self.tails: set[str] | None = None

    def __call__(self, level: int, dotted: str) -> bool:
        if level or not dotted:
            return False
        if self.tails is None:
            self.tails = set()
            packages: set[str] = set()  # folders holding `__init__.py`: no root imports are made from
            for place, names in _python_walk(self.top):  # top-down: a folder's parents come first
                rel = os.path.relpath(place, self.top).replace(os.sep, "/")
                parts = [] if rel == "." else rel.split("/")
                if "__init__.py" in names and parts:
                    packages.add(rel)
                if under(place, self.folder):
                    continue
                roots = [i for i in range(len(parts) + 1) if "/".join(parts[:i]) not in packages]
                for name in (n for n in names if n.endswith(".py")):
                    self.tails.update("/".join([*parts[i:], name]) for i in roots)
        tail = dotted.replace(".", "/")
        return f"{tail}.py" in self.tails or f"{tail}/__init__.py" in self.tails


def _module_file(place: str, level: int, dotted: str, top: str) -> str | None:
    """The file of module `dotted` imported from a module in `place` (relative at `level`),
    as it stands in the project under `top`; None where it is no module of the project."""
    tail = dotted.replace(".", os.sep)
    if level:
        base = place
        for _ in range(level - 1):
            base = os.path.dirname(base)
        bases = [base]
    else:
        bases = [place]
        while bases[-1] != top and under(bases[-1], top):
            bases.append(os.path.dirname(bases[-1]))
    for base in bases:
        for candidate in (os.path.join(base, tail + ".py"), os.path.join(base, tail, "__init__.py")):
            if tail and os.path.isfile(candidate) and under(candidate, top):
                return candidate
    return None


@dataclass(frozen=True)
class Wanted:
    """The files named on the command line (root-relative), and the folders given beside
    them, whose findings are all reported."""

    files: tuple[str, ...]
    folders: tuple[str, ...] = ()
    within: tuple[str, ...] = ()  # folders inside the project: they name the files under them

    def in_folders(self, path: str) -> bool:
        return any(f in ("", ".") or path == f or path.startswith(f + "/") for f in self.folders)

    def naming(self, walked: Iterable[str]) -> Wanted:
        """Each file under a folder given inside the project, as if it were given itself."""
        named = set(self.files)
        under = [p for p in walked if p not in named and any(p.startswith(f + "/") for f in self.within)]
        return Wanted(self.files + tuple(under), self.folders, self.within) if self.within else self

    def taken(self, walked: list[discover.Entry], root: str) -> Wanted:
        """Without the given files the walk passed over though they are there (`exclude`, a
        `.gitignore`, an untracked file under `--git-index`): each gives nothing, as in a
        folder run. A file gone (its guards removed) and a hard link's other name stay."""
        names, passed = {e.rel for e in walked}, set()
        disk = [e for e in walked if e.data is None]
        for path in self.files:
            full = os.path.join(root, *path.split("/"))
            if path not in names and kind_of(path) is not None and os.path.isfile(full):
                size = os.stat(full).st_size
                if not any(e.size == size and os.path.samefile(e.abs, full) for e in disk):
                    passed.add(path)
        return Wanted(tuple(p for p in self.files if p not in passed), self.folders, self.within)

    def read(self) -> list[str]:
        """The files of a kind refusal-lint reads: only those can belong to an agent."""
        return [p for p in self.files if kind_of(p) is not None]

    def names_config(self, cfg: Config, root: str) -> bool:
        """Is the run's config file among them? It speaks for every agent."""
        if cfg.source is None:
            return False
        return os.path.relpath(os.path.abspath(cfg.source), root).replace(os.sep, "/") in self.files


def python_scope(
    wanted: Wanted,
    facts: dict[str, FileFacts],
    py_entries: list[discover.Entry],
    cfg: Config,
    roles: Roles,
    root: str,
) -> list[discover.Entry]:
    """The Python files worth scanning for these files' agents: for agents the config
    gives, those the owning ones claim; where the data cards show two agents or more, those
    under the owning agents' roots, in the folders above them (where a card built in code
    may stand) and under no agent's root (a shared helper's call sites in the agent fire its
    rules); everything where that cannot be told. Modules those files import
    are still read on demand (pipeline._bind)."""
    from refusal_lint.static.bind.scoping import agent_root, owner
    from refusal_lint.static.checks.card import rule_sets

    if wanted.names_config(cfg, root):
        return py_entries
    if cfg.agents:
        claims = Claims(cfg, roles, root)
        owning = [a for a in cfg.agents if any(claims(a, p) for p in wanted.read())]
        while True:
            scope = [
                e for e in py_entries if any(claims(a, e.rel) for a in owning) or wanted.in_folders(e.rel)
            ]
            # An agent claiming a file of the scope too (a shared helper in two agents' globs)
            # is checked with it: all its files are read, never a partial agent's RL301.
            more = [a for a in cfg.agents if a not in owning and any(claims(a, e.rel) for e in scope)]
            if not more:
                return scope
            owning += more
    roots = sorted({agent_root(rs.loc.path) for rs in rule_sets(d for f in facts.values() for d in f.exts)})
    if len(roots) < 2:
        return py_entries
    owned: set[str] = set()
    for path in wanted.read():
        found = owner(path, roots)
        if not found:
            return py_entries  # perhaps an agent whose card is built in Python: scan it all
        owned.update(found)
    if "" in owned:
        return py_entries
    above = {"/".join(r.split("/")[:i]) for r in owned for i in range(len(r.split("/")))}
    return [
        e
        for e in py_entries
        if any(e.rel.startswith(r + "/") for r in owned)
        or posixpath.dirname(e.rel) in above
        or wanted.in_folders(e.rel)
        or not owner(e.rel, roots)  # no agent's: a shared helper (`libs/`) may serve these
    ]


class Claims:
    """Does a configured agent claim a file (root-relative): its card, its prompt's file or
    module, or a match of its `guards:` globs? (It may hold no fact yet, or no longer.)"""

    def __init__(self, cfg: Config, roles: Roles, root: str) -> None:
        from refusal_lint.static.discover import walk as discover
        from refusal_lint.static.discover.roles import config_relative, rel

        self.cfg, self.root, self.relative = cfg, root, config_relative
        self.own: dict[str, set[str]] = {a.name: set() for a in cfg.agents}
        for a in cfg.agents:
            if a.card:
                self.own[a.name].add(rel(root, cfg.base, a.card))
            if a.prompt:
                self.own[a.name].add(roles.prompts[a.prompt].path)
        self.globs = {a.name: discover.gitignore_spec(list(a.guards)) for a in cfg.agents if a.guards}

    def __call__(self, agent: AgentConfig, path: str) -> bool:
        if path in self.own.get(agent.name, ()):
            return True
        spec = self.globs.get(agent.name)
        return spec is not None and spec.match_file(self.relative(self.root, self.cfg, path))


class Owners:
    """Which agents own the wanted files, and which paths belong to those agents."""

    def __init__(self, wanted: Wanted, agents: list[Agent], roles: Roles, cfg: Config, root: str) -> None:
        from refusal_lint.static.bind.scoping import owner

        self.owner = owner
        self.agents = agents
        self.roots = [a.root for a in agents]
        self.claims = Claims(cfg, roles, root) if cfg.agents else None
        self.by_name = {a.name: a for a in cfg.agents}
        self.wanted = wanted
        if wanted.names_config(cfg, root):
            self.owning = list(agents)
        else:
            self.owning = [a for a in agents if any(self.belongs(p, a) for p in wanted.read())]

    def belongs(self, path: str, agent: Agent) -> bool:
        if path in agent.files or path in agent.helpers:
            return True
        if agent.card is not None and agent.card.loc.path == path:
            return True
        if agent.card is not None and any(r.loc.path == path for r in agent.card.rules):
            return True  # the card's params kept in another module (`shared/policy.py`)
        if any(p.loc.path == path for p in agent.prompts):
            return True
        if self.claims is not None:
            configured = self.by_name.get(agent.name)
            return configured is not None and self.claims(configured, path)
        if _documentation(path):
            return False  # a README or docs page holds no fact: a docs-only commit checks nothing
        # A lone agent's scope is the whole tree (scoping.py gives it every file with facts);
        # among several, a file is the nearest card's.
        return len(self.agents) == 1 or agent.root in self.owner(path, self.roots)

    def keeps(self, path: str) -> bool:
        """Does a path (of a finding no agent is named on, or a baseline entry) count?"""
        return self.wanted.in_folders(path) or any(self.belongs(path, a) for a in self.owning)

    def findings(self, findings: list[Finding]) -> list[Finding]:
        return [f for f in findings if self._keeps(f)]

    def _keeps(self, f: Finding) -> bool:
        if f.loc.path in self.wanted.files:
            return True  # it stands in a file given: a broken card, RL004 on the file committed
        if not self.agents and self.wanted.read() and not self.wanted.within:
            return True  # no agent at all (RL001: no card advertises): the tree's findings
        if f.agent is None or self.wanted.in_folders(f.loc.path):
            return self.keeps(f.loc.path)
        mine = [a for a in self.owning if a.name == f.agent]
        if not mine:
            return False
        # Two agents may bear one name (cards copied from a template): then the path decides.
        if sum(a.name == f.agent for a in self.agents) == 1:
            return True
        return any(self.belongs(f.loc.path, a) for a in mine)


def _documentation(path: str) -> bool:
    """A text file no fact can come from, whatever it says (DESIGN §2: documentation is no
    prompt by its content, nor a card or guard): `README.md`, `CHANGELOG.md`, `docs/*.md`."""
    return kind_of(path) == FileKind.TEXT and no_prompt_by_content(path) and not prompt_by_name(path)
