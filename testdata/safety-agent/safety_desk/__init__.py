"""Safety Desk: an A2A agent answering questions about community guidelines."""
