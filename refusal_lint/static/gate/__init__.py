"""What a file's bytes and CPython's `ast` say before any parser: whether it can hold a card,
a prompt or a guard, and what can matter given the cards' ids (derived from extract/vocab.py's
shape declarations)."""
