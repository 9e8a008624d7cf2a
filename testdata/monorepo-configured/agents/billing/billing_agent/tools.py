from billing_agent.card import REFUSALS
from shared.refusals import refuse

REFUND_LIMIT_EUR = 500


def refund(invoice: str, amount_eur: float) -> dict[str, object]:
    if amount_eur > REFUND_LIMIT_EUR:
        return refuse("refund-over-limit", detail=f"{invoice}: {amount_eur} EUR")
    return {"invoice": invoice, "refunded": amount_eur}


def export_customer(customer_id: str) -> dict[str, object]:
    return refuse("pii-export", reason=REFUSALS["pii-export"], detail=customer_id)
