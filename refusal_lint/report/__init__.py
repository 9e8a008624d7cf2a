"""Reporters: pure functions from a run's result to text."""
