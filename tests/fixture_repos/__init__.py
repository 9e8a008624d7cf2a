"""The repos the tests run on: the `Repo` builder and the variant tables (see variants.py)."""

from fixture_repos.builder import ABSENT, SURVEY_RULES, URI, Repo, extension, run_cli
from fixture_repos.variants import KEPT, TESTDATA, VARIANTS, fixture_repo, names, write, write_all

__all__ = [
    "ABSENT",
    "KEPT",
    "SURVEY_RULES",
    "TESTDATA",
    "URI",
    "VARIANTS",
    "Repo",
    "extension",
    "fixture_repo",
    "names",
    "run_cli",
    "write",
    "write_all",
]
