from tools import crosstab


def answer(params):
    text = " ".join(p.get("text", "") for p in params["message"]["parts"])
    return crosstab(text.split(), [])
