"""refusal-lint: the card, the prompt and the guards of a Refusals v1 agent must agree."""

__version__ = "0.1.0"
