"""Intervals from answers: an interval, a union (points of a finite set included), and the
inequalities of one variable (either way round, ``x != a``, ``a <= |x| <= b``), as `Interval`
nodes. The variable may be a name written as a product (``0 < f(x) < 1``, ``AB > 2``): a range.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from verifiers.math._nodes import NEG_OO, OO, Abs, And, Interval, Neg, Node, Or, Relation, Set, Tup, Union
from verifiers.math._numeric import rational
from verifiers.math._shapes import is_name

__all__ = ["FLIP", "intervals", "is_range"]

FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}


def intervals(node: Node) -> list[Interval] | None:
    """An interval, a union of intervals or a one-variable inequality, as intervals; None for
    anything else.

    Examples:
        >>> from verifiers.math._parser import parse
        >>> [(i.left_closed, i.right_closed) for i in intervals(parse("x >= 2"))]
        [(True, False)]
    """
    match node:
        case Interval():
            return [node]
        case Tup((low, high)):
            return [Interval(False, low, high, False)]  # (a, b) read as an open interval
        case And(parts):  # x > 1 and x < 4: both at once
            return _intersection(parts)
        case Union(parts) | Or(parts):  # x < -2 or x > 3 is a union too
            return _union(parts)
        case Relation(("!=",), (left, right)):  # x != 1: all but one point
            return _all_but(left, right)
        case Relation(("=",), (left, right)) if is_name(left) and not is_name(right):  # b = 0 (among b >= 5 or ...)
            return [Interval(True, right, right, True)]
        case Relation(ops, exprs) if set(ops) <= set(FLIP):
            return _inequality(ops, exprs)
    return None


def is_range(node: Node) -> bool:
    """An interval, a union, a comparison, or inequalities or intervals joined by "or" / "and"
    (``x < 1 \\text{ or } x \\ge 4``): an answer that is a set of numbers (or a statement)."""
    if isinstance(node, Interval | Union | Relation):
        return True
    if not isinstance(node, Or):
        return False
    if not any(isinstance(i, Interval | Union) or (isinstance(i, Relation) and not i.is_equation) for i in node.items):
        return False
    return intervals(node) is not None


def _union(parts: tuple[Node, ...]) -> list[Interval] | None:
    out: list[Interval] = []
    for part in parts:
        # a finite set among intervals ({-1} \cup [0, 7)): its points
        sub = [Interval(True, v, v, True) for v in part.items] if isinstance(part, Set) else intervals(part)
        if sub is None:
            return None
        out.extend(sub)
    return out


def _intersection(parts: tuple[Node, ...]) -> list[Interval] | None:
    """The intervals every part holds (ends must be numbers or infinities to be compared)."""
    result: list[Interval] | None = None
    for part in parts:
        sub = intervals(part)
        if sub is None:
            return None
        if result is None:
            result = sub
            continue
        meets = [_meet(a, b) for a in result for b in sub]
        if any(m is False for m in meets):
            return None
        result = [m for m in meets if isinstance(m, Interval)]
    return result


def _end(node: Node) -> Fraction | float | None:
    if node == OO or node == NEG_OO:
        return float("inf") if node == OO else float("-inf")
    return rational(node)


def _meet(a: Interval, b: Interval) -> Interval | bool | None:
    """``a`` and ``b`` both: an interval, None when empty, False when the ends cannot be compared."""
    ends = [_end(a.low), _end(b.low), _end(a.high), _end(b.high)]
    if any(e is None for e in ends):
        return False
    a_low, b_low, a_high, b_high = ends
    assert a_low is not None and b_low is not None and a_high is not None and b_high is not None
    if a_low != b_low:
        low, low_closed = (a.low, a.left_closed) if a_low > b_low else (b.low, b.left_closed)
    else:
        low, low_closed = a.low, a.left_closed and b.left_closed
    if a_high != b_high:
        high, high_closed = (a.high, a.right_closed) if a_high < b_high else (b.high, b.right_closed)
    else:
        high, high_closed = a.high, a.right_closed and b.right_closed
    lo, hi = max(a_low, b_low), min(a_high, b_high)
    if lo > hi or (lo == hi and not (low_closed and high_closed)):
        return None
    return Interval(low_closed, low, high, high_closed)


def _all_but(left: Node, right: Node) -> list[Interval] | None:
    if is_name(left) == is_name(right):
        return None
    point = right if is_name(left) else left
    return [Interval(False, NEG_OO, point, False), Interval(False, point, OO, False)]


def _negated(ops: Sequence[str], exprs: Sequence[Node]) -> tuple[Sequence[str], Sequence[Node]]:
    """``-x > -1`` as ``x < 1`` (each side negated, each comparison flipped)."""
    if any(isinstance(e, Neg) and is_name(e.arg) for e in exprs) and not any(is_name(e) for e in exprs):
        return [FLIP[o] for o in ops], [e.arg if isinstance(e, Neg) else Neg(e) for e in exprs]
    return ops, exprs


def _absolute(ops: Sequence[str], exprs: Sequence[Node]) -> list[Interval] | None:
    """``a <= |x| <= b`` with 0 < a: the two intervals ``[-b, -a]`` and ``[a, b]``."""
    if len(exprs) != 3 or not (isinstance(exprs[1], Abs) and is_name(exprs[1].arg)) or ops[0][0] != ops[1][0]:
        return None
    lo, hi = (exprs[0], exprs[2]) if ops[0][0] == "<" else (exprs[2], exprs[0])
    lo_op, hi_op = (ops[0], ops[1]) if ops[0][0] == "<" else (ops[1], ops[0])
    low = rational(lo)
    if low is None or low <= 0 or rational(hi) is None:
        return None
    a, b = lo_op.endswith("="), hi_op.endswith("=")
    return [Interval(b, Neg(hi), Neg(lo), a), Interval(a, lo, hi, b)]


def _one_sided_absolute(ops: Sequence[str], exprs: Sequence[Node]) -> list[Interval] | None:
    """``|x| < b`` is ``(-b, b)``; ``|x| >= b`` is ``(-\\infty, -b] \\cup [b, \\infty)`` (0 < b)."""
    if len(exprs) != 2 or not any(isinstance(e, Abs) and is_name(e.arg) for e in exprs):
        return None
    op, bound = (ops[0], exprs[1]) if isinstance(exprs[0], Abs) else (FLIP[ops[0]], exprs[0])
    value = rational(bound)
    if value is None or value <= 0:
        return None
    closed = op.endswith("=")
    if op[0] == "<":
        return [Interval(closed, Neg(bound), bound, closed)]
    return [Interval(False, NEG_OO, Neg(bound), closed), Interval(closed, bound, OO, False)]


def _inequality(ops: Sequence[str], exprs: Sequence[Node]) -> list[Interval] | None:
    absolute = _absolute(ops, exprs) or _one_sided_absolute(ops, exprs)
    if absolute is not None:
        return absolute
    ops, exprs = _negated(ops, exprs)
    syms = [k for k, e in enumerate(exprs) if is_name(e)]
    if len(syms) != 1:
        return None
    k = syms[0]
    if len(exprs) == 3 and k == 1 and ops[0][0] == ops[1][0]:  # a < x <= b, or b >= x > a
        rising = ops[0][0] == "<"
        lo, hi = (exprs[0], exprs[2]) if rising else (exprs[2], exprs[0])
        lo_op, hi_op = (ops[0], ops[1]) if rising else (ops[1], ops[0])
        return [Interval(lo_op.endswith("="), lo, hi, hi_op.endswith("="))]
    if len(exprs) != 2:
        return None
    op = ops[0] if k == 0 else FLIP[ops[0]]
    bound = exprs[1 - k]
    closed = op.endswith("=")
    if op[0] == "<":
        return [Interval(False, NEG_OO, bound, closed)]
    return [Interval(closed, bound, OO, False)]
