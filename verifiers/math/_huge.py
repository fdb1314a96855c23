"""Numbers too large to compute, compared by structure: exact prime-power canonical forms.

``4^{2^{99}}`` and ``2^{2^{100}}`` both become {2: 2^100}; ``9^{9^{9^9}}`` becomes
{3: {2: 1, 3: 774840978}}; nothing with more than `MAX_DIGITS` digits is ever computed.
"""

from __future__ import annotations

from collections.abc import Hashable

from verifiers.math._numeric import MAX_DIGITS, log10_size, rational
from verifiers.math._parser import Node

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
    kind = node[0]
    if kind == "pow":
        base = rational(node[1]) if log10_size(node[1]) <= MAX_DIGITS else None
        if base is not None and base.denominator == 1 and base > 1:
            exp = canonical(node[2])
            return _prod({p: _times_int(k, exp) for p, k in _factor(int(base)).items()})
        return ("pow", canonical(node[1]), canonical(node[2]))
    if kind == "mul":
        merged: dict[int, Canon] = {}
        others: list[Canon] = []
        for factor in node[1]:
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
    if kind == "add":
        return ("sum", tuple(sorted((canonical(t) for t in node[1]), key=repr)))
    if kind in ("neg", "fact", "abs"):
        return (kind, canonical(node[1]))
    if kind == "div":
        return ("div", canonical(node[1]), canonical(node[2]))
    if kind == "n":
        return ("frac", node[1])
    return ("node", node)
