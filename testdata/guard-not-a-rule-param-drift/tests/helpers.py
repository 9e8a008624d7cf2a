import httpx


def refusal(rule: str, model: str, fallback_credit_token: str | None = None) -> httpx.Response:
    """A mocked 400 from the provider: the model refused the request."""
    body = {"error": {"type": "refusal", "model": model}}
    if fallback_credit_token is not None:
        body["credit_token"] = fallback_credit_token
    return httpx.Response(400, json=body)
