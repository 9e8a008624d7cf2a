from a2a.types import AgentExtension

from survey.rules import RULES

REFUSALS = AgentExtension(uri="https://standards.upperhandai.com/ext/refusals/v1", params=RULES)
