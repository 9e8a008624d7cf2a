"""The consumer half of the spec (DESIGN §10): a refusing A2A agent to test clients against.

`core` holds what needs no server (the card, the rule a message gets, the record of
requests and the RL501 judgement); `app` builds the a2a-sdk server from it; `serve` runs
it on a socket. Only `core` is imported without the `stub` extra.

A retry the stub reports (RL501 retried-unchanged) is the same call again: the same method
kind (`send`: SendMessage, message/send, message:send; `stream`: SendStreamingMessage,
message/stream, message:stream; on any binding and version) and equal message Parts. The
same Parts over the other kind, as `refusal-lint probe` sends them to a streaming agent
(plain, then streaming), are not a retry.
"""
