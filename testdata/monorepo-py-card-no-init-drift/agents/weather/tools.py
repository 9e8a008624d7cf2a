from refusals import refuse


def forecast(days, warning=False):
    if days > 10:
        return refuse("long-range")
    if warning:
        return refuse("official-warning")
