"""A smoke test that provokes a refusal; which agent's rule is it?"""

from shared.refusals import refuse

print(refuse("seg-mix", detail="smoke test"))
