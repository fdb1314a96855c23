"""Exact rational evaluation and size estimates of parsed nodes, without sympy.

`rational` is the fast path: it answers for answers made of numbers, fractions and
arithmetic, and returns None for anything else (symbols, radicals, pi, huge powers), which
then goes to the sympy comparison in a worker process.
"""

from __future__ import annotations

import math
from fractions import Fraction

from verifiers.math._config import MathConfig
from verifiers.math._nodes import Abs, Add, Binom, Const, Deg, Div, Fact, Fn, Log, Mul, Neg, Node, Num, Pct, Pow, Root

__all__ = ["MAX_DIGITS", "decimal_places", "log10_size", "rational", "rational_equal"]

MAX_DIGITS = 5000
"""Largest number (in decimal digits) we ever compute exactly."""


def decimal_places(node: Node) -> int | None:
    """Decimal places written in a decimal literal (possibly negated); None otherwise."""
    while isinstance(node, Neg):
        node = node.arg
    return node.places if isinstance(node, Num) else None


def log10_size(node: Node) -> float:
    """An upper bound of log10 |value| for numeric nodes (inf when it cannot be bounded)."""
    match node:
        case Num(value):
            return math.log10(max(abs(value.numerator), abs(value.denominator), 1))
        case Const(name):
            return math.inf if name == "oo" else 1.0
        case Neg(arg) | Abs(arg) | Pct(arg) | Deg(arg) | Root(arg):
            return log10_size(arg)
        case Add(terms):
            return sum(log10_size(a) for a in terms) + math.log10(len(terms))
        case Mul(factors):
            return sum(log10_size(a) for a in factors)
        case Div(a, b):
            return log10_size(a) + log10_size(b)
        case Pow(base, exp):
            exp_size = log10_size(exp)
            return math.inf if exp_size > 300 else log10_size(base) * (10**exp_size)
        case Fact(arg):
            n = log10_size(arg)
            return math.inf if n > 300 else (10**n) * max(n, 1.0)
        case Binom(n, k):
            return log10_size(n) * max(1.0, 10 ** min(log10_size(k), 300))
        case Fn() | Log():
            return 1.0
    return 1.0


def rational(node: Node) -> Fraction | None:
    """The exact value of a node built from numbers and arithmetic, else None.

    Examples:
        >>> from verifiers.math._parser import parse
        >>> rational(parse(r"\\frac{3}{8} + 0.125"))
        Fraction(1, 2)
        >>> rational(parse(r"\\sqrt{2}")) is None
        True
    """
    match node:
        case Num(value):
            return value
        case Neg(arg) | Abs(arg):
            inner = rational(arg)
            if inner is None:
                return None
            return -inner if isinstance(node, Neg) else abs(inner)
        case Add(terms):
            values = _all_rational(terms)
            return None if values is None else sum(values, Fraction(0))
        case Mul(factors):
            values = _all_rational(factors)
            return None if values is None else math.prod(values, start=Fraction(1))
        case Div(a, b):
            num, den = rational(a), rational(b)
            return None if num is None or den is None or den == 0 else num / den
        case Pow():
            return _power(node)
        case Fact(arg):
            n = rational(arg)
            if n is None or n.denominator != 1 or n < 0 or n > 1000:
                return None
            return Fraction(math.factorial(int(n)))
        case Binom(a, b):
            n, k = rational(a), rational(b)
            if n is None or k is None or n.denominator != 1 or k.denominator != 1 or n > 1000:
                return None
            return Fraction(math.comb(int(n), int(k))) if n >= 0 and k >= 0 else None
    return None


def _all_rational(nodes: tuple[Node, ...]) -> list[Fraction] | None:
    values = []
    for node in nodes:
        v = rational(node)
        if v is None:
            return None
        values.append(v)
    return values


def _power(node: Pow) -> Fraction | None:
    if log10_size(node) > MAX_DIGITS:
        return None
    base, exp = rational(node.base), rational(node.exp)
    if base is None or exp is None or exp.denominator != 1 or (base == 0 and exp < 0):
        return None
    return base ** int(exp)


def rational_equal(gold: Node, pred: Node, gv: Fraction, pv: Fraction, config: MathConfig) -> bool:
    """Exact comparison of two rational values, with the decimal-gold rounding rule."""
    if gv == pv:
        return True
    if config.rel_tol and abs(gv - pv) <= Fraction(config.rel_tol) * abs(gv):
        return gv.denominator != 1 or pv.denominator != 1  # integers stay exact
    places = decimal_places(gold)
    if config.decimal_rounding and places is not None and not _terminates(pv):
        return abs(gv - pv) * 2 * Fraction(10) ** places <= 1  # 1/3 rounds to 0.33
    return False


def _terminates(value: Fraction) -> bool:
    """Whether ``value`` has a finite decimal expansion (denominator 2^a 5^b)."""
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1
