"""The static half, the `check` command in stage order: discover -> gate -> extract -> bind ->
check -> filter (pipeline.py runs them; schedule.py decides who reads which file, cache and
workers included)."""
