"""A tiny shop."""

from shop.pricing import calc_total

__all__ = ["calc_total"]
