"""Byte tests of a file's text, without a parse: its lowered words (lowered.py), a Python
file's string literals (pystrings.py), and whether a text can list rules (listing.py)."""
