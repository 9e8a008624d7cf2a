"""The pytest plugin (entry point `pytest11`): pytest's assertion rewriting for the
conformance helpers, and a `refusal_probe` fixture that probes an ASGI app in-process, or
a URL, and returns the findings (RL1xx for the card, RL400-RL408 per probed rule).

    def test_agent_refuses(refusal_probe):
        findings = refusal_probe(app, {"seg-mix": "Cross the polaris segments by ideology."})
        assert findings == []
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.register_assert_rewrite("refusal_lint.conformance")


@pytest.fixture
def refusal_probe() -> Callable[..., list[Any]]:
    """probe(target, probes, protocol=None, timeout=10.0, headers={}, extensions=(),
    binding=None, stream=True) -> findings; target is an ASGI app (probed in this process,
    nothing listens) or the agent's URL."""
    from refusal_lint import inprocess
    from refusal_lint import probe as prober

    def probe(
        target: Any,
        probes: dict[str, str],
        protocol: str | None = None,
        timeout: float = 10.0,
        headers: dict[str, str] | None = None,
        extensions: tuple[str, ...] = (),
        binding: str | None = None,
        stream: bool = True,
    ) -> list[Any]:
        if isinstance(target, str):
            url, transport = target, None
        else:
            url, transport = inprocess.BASE_URL, inprocess.transport_for(target)
        reach = prober.Reach(tuple((headers or {}).items()), tuple(extensions), binding, stream)
        result = prober.probe(url, probes, protocol, timeout, transport=transport, reach=reach)
        return sorted(result.findings, key=lambda f: f.sort_key())

    return probe
