"""Checkout."""

from shop.pricing import calc_total as _total


def receipt(cart, tax_rate):
    """One line: the number of items and what they cost."""
    count = sum(qty for _, qty in cart.items)
    return f"{count} items, {_total(cart.items, tax_rate):.2f}"


def discounted(cart, percent):
    from shop.pricing import calc_total

    return round(calc_total(cart.items) * (100 - percent) / 100, 2)
