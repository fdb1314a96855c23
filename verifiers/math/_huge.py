"""Numbers too large to compute, compared by structure: exact prime-power canonical forms.

``4^{2^{99}}`` and ``2^{2^{100}}`` both become {2: 2^100}; ``9^{9^{9^9}}`` becomes
{3: {2: 1, 3: 774840978}}; nothing with more than `MAX_DIGITS` digits is ever computed.
"""

from __future__ import annotations

from collections.abc import Hashable

from verifiers.math._nodes import Abs, Add, Div, Fact, Mul, Neg, Node, Num, Pow
from verifiers.math._numeric import MAX_DIGITS, log10_size, rational

__all__ = ["canonical"]

Canon = Hashable


def _factor(n: int) -> dict[int, int]:
    if n < 10**18:
        from sympy import factorint

        return {int(p): int(k) for p, k in factorint(n).items()}
    return {n: 1}  # too large to factor quickly: an opaque base


def _prod(factors: dict[int, Canon]) -> Canon:
    return ("prod", tuple(sorted(factors.items(), key=lambda kv: kv[0])))


def _add(a: Canon, b: Canon) -> Canon:
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "int":
        return ("int", a[1] + b[1])
    terms = [*(a[1] if a[0] == "sum" else (a,)), *(b[1] if b[0] == "sum" else (b,))]  # type: ignore[index]
    return ("sum", tuple(sorted(terms, key=repr)))


def _times_int(k: int, c: Canon) -> Canon:
    """k * c for an exponent c."""
    if c[0] == "int":  # type: ignore[index]
        return ("int", k * c[1])  # type: ignore[index]
    if c[0] == "prod":  # type: ignore[index]
        merged: dict[int, Canon] = dict(c[1])  # type: ignore[index]
        for p, e in _factor(k).items():
            merged[p] = _add(merged[p], ("int", e)) if p in merged else ("int", e)
        return _prod(merged)
    return ("mul", k, c)


def canonical(node: Node) -> Canon:
    """A hashable form equal for equal numbers (for products and powers of integers)."""
    if log10_size(node) <= MAX_DIGITS:
        value = rational(node)
        if value is not None and value.denominator == 1:
            return ("int", int(value))
        if value is not None:
            return ("frac", value)
    match node:
        case Pow(base_node, exp_node):
            base = rational(base_node) if log10_size(base_node) <= MAX_DIGITS else None
            if base is not None and base.denominator == 1 and base > 1:
                exp = canonical(exp_node)
                return _prod({p: _times_int(k, exp) for p, k in _factor(int(base)).items()})
            return ("pow", canonical(base_node), canonical(exp_node))
        case Mul(factors):
            return _product(factors)
        case Add(terms):
            return ("sum", tuple(sorted((canonical(t) for t in terms), key=repr)))
        case Neg(arg) | Fact(arg) | Abs(arg):
            return (type(node).__name__.lower(), canonical(arg))
        case Div(a, b):
            return ("div", canonical(a), canonical(b))
        case Num(value):
            return ("frac", value)
    return ("node", node)


def _product(factors: tuple[Node, ...]) -> Canon:
    merged: dict[int, Canon] = {}
    others: list[Canon] = []
    for factor in factors:
        c = canonical(factor)
        if c[0] == "int" and c[1] > 0:  # type: ignore[index]
            c = _prod({p: ("int", k) for p, k in _factor(c[1]).items()})  # type: ignore[index]
        if c[0] == "prod":  # type: ignore[index]
            for p, e in c[1]:  # type: ignore[index]
                merged[p] = _add(merged[p], e) if p in merged else e
        else:
            others.append(c)
    prod = _prod(merged)
    return prod if not others else ("mul", prod, tuple(sorted(others, key=repr)))
