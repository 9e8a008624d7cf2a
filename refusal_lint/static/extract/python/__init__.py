"""One libcst visit of a Python file (visitor.py) and what it is made of: scopes, symbolic
values, the visit's state, definitions, recognisers of calls, and prompts by content."""
