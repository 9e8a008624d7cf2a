"""Checks: pure functions from bound facts to findings, one concern a module."""
