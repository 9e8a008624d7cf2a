"""Reporters: pure functions from a run's `Report` (base.py) to text, one module a format,
all named in formats.FORMATS (read that first); the CI systems' formats in ci/."""
