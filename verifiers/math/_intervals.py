"""Intervals from answers: an interval, a union (points of a finite set included), and the
inequalities of one variable (either way round, ``x != a``, ``a <= |x| <= b``), as
``(left_closed, low, high, right_closed)`` tuples.
"""

from __future__ import annotations

from collections.abc import Sequence

from verifiers.math._numeric import rational
from verifiers.math._parser import Node

OO: Node = ("const", "oo")
NEG_OO: Node = ("neg", OO)
FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}


def intervals(node: Node) -> list[tuple[bool, Node, Node, bool]] | None:
    """An interval, a union of intervals or a one-variable inequality, as interval tuples."""
    kind = node[0]
    if kind == "ival":
        return [(node[1], node[2], node[3], node[4])]
    if kind == "tuple" and len(node[1]) == 2:
        return [(False, node[1][0], node[1][1], False)]  # (a, b) read as an open interval
    if kind in ("union", "or"):  # x < -2 or x > 3 is a union too
        out: list[tuple[bool, Node, Node, bool]] = []
        for part in node[1]:
            # a finite set among intervals ({-1} \cup [0, 7)): its points
            sub = [(True, v, v, True) for v in part[1]] if part[0] == "set" else intervals(part)
            if sub is None:
                return None
            out.extend(sub)
        return out
    if kind == "rel" and tuple(node[1]) == ("!=",) and len(node[2]) == 2:  # x != 1: all but one point
        syms = [e for e in node[2] if e[0] == "sym"]
        if len(syms) == 1:
            point = node[2][1] if node[2][0][0] == "sym" else node[2][0]
            return [(False, NEG_OO, point, False), (False, point, OO, False)]
        return None
    if kind == "rel" and set(node[1]) <= set(FLIP):
        return _inequality(node[1], node[2])
    return None


def _negated(ops: Sequence[str], exprs: Sequence[Node]) -> tuple[Sequence[str], Sequence[Node]]:
    """``-x > -1`` as ``x < 1`` (each side negated, each comparison flipped)."""
    if any(e[0] == "neg" and e[1][0] == "sym" for e in exprs) and not any(e[0] == "sym" for e in exprs):
        return [FLIP[o] for o in ops], [e[1] if e[0] == "neg" else ("neg", e) for e in exprs]
    return ops, exprs


def _absolute(ops: Sequence[str], exprs: Sequence[Node]) -> list[tuple[bool, Node, Node, bool]] | None:
    """``a <= |x| <= b`` with 0 <= a: the two intervals ``[-b, -a]`` and ``[a, b]``."""
    if len(exprs) != 3 or exprs[1][0] != "abs" or exprs[1][1][0] != "sym" or ops[0][0] != ops[1][0]:
        return None
    lo, hi = (exprs[0], exprs[2]) if ops[0][0] == "<" else (exprs[2], exprs[0])
    lo_closed, hi_closed = (ops[0], ops[1]) if ops[0][0] == "<" else (ops[1], ops[0])
    low = rational(lo)
    if low is None or low <= 0 or rational(hi) is None:
        return None
    a, b = lo_closed.endswith("="), hi_closed.endswith("=")
    return [(b, ("neg", hi), ("neg", lo), a), (a, lo, hi, b)]


def _inequality(ops: Sequence[str], exprs: Sequence[Node]) -> list[tuple[bool, Node, Node, bool]] | None:
    absolute = _absolute(ops, exprs)
    if absolute is not None:
        return absolute
    ops, exprs = _negated(ops, exprs)
    syms = [k for k, e in enumerate(exprs) if e[0] == "sym"]
    if len(syms) != 1:
        return None
    k = syms[0]
    if len(exprs) == 3 and k == 1 and ops[0][0] == ops[1][0]:
        lo, hi = (exprs[0], exprs[2]) if ops[0][0] == "<" else (exprs[2], exprs[0])
        return [
            (
                ops[0].endswith("=") if ops[0][0] == "<" else ops[1].endswith("="),
                lo,
                hi,
                ops[1].endswith("=") if ops[0][0] == "<" else ops[0].endswith("="),
            )
        ]
    if len(exprs) != 2:
        return None
    op = ops[0] if k == 0 else {"<": ">", ">": "<", "<=": ">=", ">=": "<="}[ops[0]]
    bound = exprs[1 - k]
    closed = op.endswith("=")
    if op[0] == "<":
        return [(False, NEG_OO, bound, closed)]
    return [(closed, bound, OO, False)]
