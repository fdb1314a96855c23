"""Exact rational evaluation and size estimates of parsed nodes, without sympy.

`rational` is the fast path: it answers for answers made of numbers, fractions and
arithmetic, and returns None for anything else (symbols, radicals, pi, huge powers), which
then goes to the sympy judge in a worker process.
"""

from __future__ import annotations

import math
from fractions import Fraction

from verifiers.math._parser import Node

__all__ = ["MAX_DIGITS", "decimal_places", "log10_size", "rational"]

MAX_DIGITS = 5000
"""Largest number (in decimal digits) we ever compute exactly."""


def decimal_places(node: Node) -> int | None:
    """Decimal places written in a decimal literal (possibly negated); None otherwise."""
    while node[0] == "neg":
        node = node[1]
    if node[0] == "n":
        places: int | None = node[2]
        return places
    return None


def log10_size(node: Node) -> float:
    """An upper bound of log10 |value| for numeric nodes (inf when it cannot be bounded)."""
    kind = node[0]
    if kind == "n":
        v: Fraction = node[1]
        return math.log10(max(abs(v.numerator), abs(v.denominator), 1))
    if kind == "const":
        return math.inf if node[1] == "oo" else 1.0
    if kind in ("neg", "abs", "pct", "deg"):
        return log10_size(node[1])
    if kind in ("add", "mul"):
        parts = [log10_size(a) for a in node[1]]
        return sum(parts) + (math.log10(len(parts)) if kind == "add" else 0)
    if kind == "div":
        return log10_size(node[1]) + log10_size(node[2])
    if kind == "pow":
        base = log10_size(node[1])
        exp = log10_size(node[2])
        if exp > 300:
            return math.inf
        return base * (10**exp)
    if kind == "fact":
        n = log10_size(node[1])
        if n > 300:
            return math.inf
        return (10**n) * max(n, 1.0)
    if kind == "binom":
        return log10_size(node[1]) * max(1.0, 10 ** min(log10_size(node[2]), 300))
    if kind in ("root", "fn", "log"):
        return log10_size(node[1]) if kind == "root" else 1.0
    return 1.0


def rational(node: Node) -> Fraction | None:
    """The exact value of a node built from numbers and arithmetic, else None.

    Example:
        >>> from verifiers.math._parser import parse
        >>> rational(parse(r"\\frac{3}{8} + 0.125"))
        Fraction(1, 2)
        >>> rational(parse(r"\\sqrt{2}")) is None
        True
    """
    kind = node[0]
    if kind == "n":
        value: Fraction = node[1]
        return value
    if kind == "neg":
        inner = rational(node[1])
        return None if inner is None else -inner
    if kind == "add":
        total = Fraction(0)
        for term in node[1]:
            v = rational(term)
            if v is None:
                return None
            total += v
        return total
    if kind == "mul":
        product = Fraction(1)
        for factor in node[1]:
            v = rational(factor)
            if v is None:
                return None
            product *= v
        return product
    if kind == "div":
        num, den = rational(node[1]), rational(node[2])
        if num is None or den is None or den == 0:
            return None
        return num / den
    if kind == "pow":
        if log10_size(node) > MAX_DIGITS:
            return None
        base, exp = rational(node[1]), rational(node[2])
        if base is None or exp is None or exp.denominator != 1 or (base == 0 and exp < 0):
            return None
        return base ** int(exp)
    if kind == "fact":
        n = rational(node[1])
        if n is None or n.denominator != 1 or n < 0 or n > 1000:
            return None
        return Fraction(math.factorial(int(n)))
    if kind == "abs":
        inner = rational(node[1])
        return None if inner is None else abs(inner)
    if kind == "binom":
        n, k = rational(node[1]), rational(node[2])
        if n is None or k is None or n.denominator != 1 or k.denominator != 1 or n > 1000:
            return None
        return Fraction(math.comb(int(n), int(k))) if n >= 0 and k >= 0 else None
    return None
