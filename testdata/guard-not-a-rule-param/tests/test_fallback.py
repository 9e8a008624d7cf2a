import pytest

from tests.helpers import refusal


@pytest.mark.parametrize("model", ["primary-model", "backup-model"])
def test_falls_back_after_a_refusal(model: str, respx_mock) -> None:
    respx_mock.post("/v1/chat").mock(side_effect=[refusal(model, "credit-token"), refusal("backup-model")])
    assert refusal("primary-model", "credit-token").status_code == 400
