"""The live half: a running agent's answers judged (`refusal-lint probe`, the in-process ASGI
client, the pytest fixture, the stub agent) and the RL4xx/RL5xx codes they emit."""
