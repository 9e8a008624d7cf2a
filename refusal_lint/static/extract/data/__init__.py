"""Data and text files: JSON and YAML as position-carrying trees, cards, prompts and
suppression comments in them."""
