"""Survey Analyst: an A2A agent answering questions about the 2026 media-habits survey."""
