"""Guards bound (DESIGN §2 "Guards", "Which argument is the id"): the rule ids each fires
(ids.py), through repo subclasses too (subclasses.py), and each guard and protocol error as
the checks see it, with its reason (bound.py)."""
