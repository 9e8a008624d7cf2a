"""The one exception type that ends a run with exit status 2 and a one-line message."""


class UsageError(Exception):
    """Bad usage, an unreadable config or an unusable path: exit 2, one line on stderr."""
