"""Fuzzing through the whole CLI: mutated cards, prompts and Python never crash, hang or write."""

from __future__ import annotations

import pytest
from fuzzing import run_case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_fuzz_cli_bounded(seed: int) -> None:
    run_case(seed)


@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_fuzz_cli_long(seed: int) -> None:
    run_case(seed)
