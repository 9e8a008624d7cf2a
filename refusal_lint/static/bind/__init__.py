"""Binding: values resolved across modules, the ids each guard fires, one fact at a time
(bound.py), the files scoped into agents, and the whole tree bound into agents (agents.py)."""
