from survey.rules import RULES

RULES_BLOCK = "\n".join(f"- {rule}: {reason}" for rule, reason in RULES.items())

SYSTEM_PROMPT = f"""You are the survey analyst for the 2026 media-habits study.
Use the crosstab tool for every figure.

Refuse these computations and name the rule:
{RULES_BLOCK}
"""
