"""Per-file extraction: pure functions from (path, bytes) to facts, safe to cache and run in workers."""
