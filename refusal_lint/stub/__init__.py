"""The consumer half of the spec (DESIGN §10): a refusing A2A agent to test clients against.

`core` holds what needs no server (the card, the rule a message gets, the record of
requests and the RL501 judgement); `app` builds the a2a-sdk server from it; `serve` runs
it on a socket. Only `core` is imported without the `stub` extra.
"""
