"""Guards bound (DESIGN §2 "Guards", "Which argument is the id"): the call sites binding
follows (sites.py), the rule ids each guard fires (ids.py), through repo subclasses too
(subclasses.py), and each guard and protocol error as the checks see it (bound.py)."""
