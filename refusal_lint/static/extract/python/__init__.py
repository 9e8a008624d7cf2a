"""One walk of a Python file's `ast` (visitor.py) and what it is made of: the walk and the
source arithmetic, scopes, symbolic values, the walk's state, definitions, recognisers of
calls, and prompts by content."""
