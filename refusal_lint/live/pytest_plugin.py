"""The pytest plugin (entry point `pytest11`): pytest's assertion rewriting for the
conformance helpers; a `refusal_probe` fixture that probes an ASGI app in-process, or
a URL, and returns the findings (RL1xx for the card, RL400-RL408 per probed rule); and a
`refusing_agent` fixture, the other way round: an agent that refuses every message, to
test a client or workbench against (DESIGN §10).

    def test_agent_refuses(refusal_probe):
        findings = refusal_probe(app, {"seg-mix": "Cross the polaris segments by ideology."})
        assert findings == []

    @pytest.mark.refusing_agent(card="agent/card.json", rule_for={"zodiac": "invalid-cut"})
    def test_workbench_shows_the_refusal(refusing_agent):
        shown = my_workbench.ask(refusing_agent.url, "By zodiac sign?", http=refusing_agent.client())
        assert shown == "Refused (invalid-cut): That demographic cut is not defined for this study."
        refusing_agent.assert_no_unchanged_retry()
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from refusal_lint.live.stub.agent import RefusingAgent

pytest.register_assert_rewrite("refusal_lint.conformance")

# The spec's own example card, the `refusing_agent` fixture's default.
EXAMPLE_RULES = {
    "seg-mix": "Segmentation families cannot be crossed; ask for one family per cut.",
    "invalid-cut": "That demographic cut is not defined for this study.",
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "refusing_agent(card=None, rule_for=None, loopback=False): the card (dict, JSON text, path or "
        "params map), TEXT->RULE choices and loopback port of the refusing_agent fixture",
    )


@pytest.fixture
def refusal_probe() -> Callable[..., list[Any]]:
    """probe(target, probes, protocol=None, timeout=10.0, headers={}, extensions=(),
    binding=None, stream=True) -> findings; target is an ASGI app (probed in this process,
    nothing listens) or the agent's URL."""
    from refusal_lint.live import inprocess
    from refusal_lint.live import probe as prober

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


@pytest.fixture
def refusing_agent_card() -> Any:
    """The card `refusing_agent` refuses by, unless its marker gives `card=`: the spec's
    example rules. Override it in a conftest.py to use your own card everywhere."""
    return dict(EXAMPLE_RULES)


@pytest.fixture
def refusing_agent(request: pytest.FixtureRequest, refusing_agent_card: Any) -> Iterator[RefusingAgent]:
    """A real A2A agent that refuses every message conformantly (stub/agent.py): `url`,
    `card`, `requests`, `faults`, `assert_no_unchanged_retry()`, `client()`,
    `async_client()`. In this process unless `@pytest.mark.refusing_agent(loopback=True)`."""
    from refusal_lint.live.stub.agent import RefusingAgent

    marker = request.node.get_closest_marker("refusing_agent")
    options: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    card = options.pop("card", None)
    agent = RefusingAgent(
        refusing_agent_card if card is None else card,
        rule_for=options.pop("rule_for", None),
        loopback=bool(options.pop("loopback", False)),
    )
    if options:
        agent.close()
        raise pytest.UsageError(f"refusing_agent marker: unknown option(s) {', '.join(sorted(options))}")
    try:
        yield agent
    finally:
        agent.close()
