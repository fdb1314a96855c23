"""Prices."""


def calc_total(items, tax_rate=0.0):
    """The total of ``items`` (pairs of unit price and quantity) with ``tax_rate`` added, rounded to cents."""
    subtotal = sum(price * qty for price, qty in items)
    return round(subtotal * (1 + tax_rate), 2)


def calc_total_label(items):
    """A label for the total (its name merely starts like the function's)."""
    return f"total: {calc_total(items):.2f}"
