"""The cyclic collector paused while a syntax tree is built, walked or unpickled, and over a run.

An `ast` tree and the facts made of it hold no reference cycle, yet the collector runs
every few hundred new objects and walks all live ones again and again: parsing a large
file, or unpickling its facts, took three times as long with it on. Refcounting frees
them all the same. So is a whole run's heap in the main process (pipeline.run): the
facts of thousands of files and the cache's notes, where each full collection walked them
all again (50 ms of a warm run on a large tree).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_gc() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def long_running() -> None:
    """A command that serves until stopped collects as usual (cli.run pauses the collector
    for a one-shot command's process, which ends with the run)."""
    gc.enable()
