"""Structural judgement: lists, sets, tuples, intervals, matrices, equations, percents.

`judge(gold, pred, config, scalars)` compares two parsed answers; the scalar comparison is a
parameter: the in-process fast path uses exact rationals and raises `NeedSympy` for anything
else, and the worker process passes the sympy comparator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from verifiers.math._config import MathConfig
from verifiers.math._intervals import FLIP, NEG_OO, OO, intervals
from verifiers.math._numeric import decimal_places, rational
from verifiers.math._parser import Node

__all__ = ["NeedSympy", "Scalars", "judge", "rational_equal"]

ScalarEq = Callable[[Node, Node], bool]
_COLLECTIONS = ("list", "or", "set")


class NeedSympy(Exception):
    """The fast path cannot decide; the sympy judge in a worker must."""


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


class Scalars:
    """Compares two scalar expressions; this base class knows only exact rationals."""

    def __init__(self, config: MathConfig) -> None:
        self.config = config

    def equal(self, gold: Node, pred: Node) -> bool:
        gv, pv = rational(gold), rational(pred)
        if gv is not None and pv is not None:
            return rational_equal(gold, pred, gv, pv, self.config)
        if _is_plain(gold) and _is_plain(pred):
            return gold == pred
        raise NeedSympy

    def equation_equal(self, gold: Node, pred: Node) -> bool:
        """Two equations (lhs - rhs) equal up to a non-zero constant factor."""
        raise NeedSympy


def _is_plain(node: Node) -> bool:
    return node[0] in ("sym", "const") and node != OO


# -- shape of an answer ---------------------------------------------------------------------
def _is_name(node: Node) -> bool:
    """A symbol or a product of symbols written together (``AB``, ``xy``): a quantity's name."""
    return node[0] == "sym" or (node[0] == "mul" and all(f[0] == "sym" for f in node[1]))


def _value_of_equation(node: Node, config: MathConfig) -> Node | None:
    """``x = 3`` -> 3; ``3 = x`` -> 3; a chain ``2 + 2 = 4`` -> 4; anything else None."""
    if node[0] != "rel" or set(node[1]) != {"="} or not config.equation_as_value:
        return None
    exprs: tuple[Node, ...] = node[2]
    if len(exprs) == 2 and exprs[0][0] == "sym":
        return exprs[1]
    if len(exprs) == 2 and _is_name(exprs[0]) and rational(exprs[1]) is not None:
        return exprs[1]  # a named quantity: AB = 4
    if len(exprs) == 2 and exprs[0][0] == exprs[1][0] == "tuple" and len(exprs[0][1]) == len(exprs[1][1]):
        if all(e[0] == "sym" for e in exprs[0][1]):
            return exprs[1]  # named values: (p, q) = (3, 2)
    if len(exprs) == 2 and exprs[0][0] == "ratio" and all(_is_name(e) or e[0] == "sub" for e in exprs[0][1]):
        return exprs[1]  # named ratio: S_1 : S_2 = 7 : 32
    if len(exprs) == 2 and exprs[1][0] == "sym":
        return exprs[0]
    if all(rational(e) is not None for e in exprs):
        return exprs[-1]  # 2 + 2 = 4
    if exprs[0][0] == "sym":
        return exprs[-1]  # x = 2 + 2 = 4
    return None


def _named_values(node: Node) -> dict[Node, Node] | None:
    """Two or more values under distinct names (``p = 5, q = 2``, ``(p, q) = (5, 2)``,
    ``AB = 4, CD = 5``) as name -> value; None for anything else."""
    pairs: list[tuple[Node, Node]] = []
    if node[0] == "list" and all(i[0] == "rel" and i[1] == ("=",) and len(i[2]) == 2 for i in node[1]):
        pairs = [(i[2][0], i[2][1]) for i in node[1]]
    elif node[0] == "rel" and node[1] == ("=",) and node[2][0][0] == node[2][1][0] == "tuple":
        pairs = list(zip(node[2][0][1], node[2][1][1], strict=False))
        if len(node[2][0][1]) != len(node[2][1][1]):
            return None
    if len(pairs) < 2 or not all(_is_name(name) for name, _ in pairs):
        return None
    named = dict(pairs)
    return named if len(named) == len(pairs) else None


def _elements(node: Node, config: MathConfig) -> list[Node]:
    """The values a collection stands for (``\\pm`` expanded, ``x = v`` read as v)."""
    if node[0] in _COLLECTIONS:
        out: list[Node] = []
        for item in node[1]:
            out.extend(_elements(item, config))
        return out
    if node[0] == "pm":
        a, b = node[1], node[2]
        if a is None:
            return [b, ("neg", b)]
        return [("add", (a, b)), ("add", (a, ("neg", b)))]
    value = _value_of_equation(node, config)
    if value is not None and value is not node:
        return _elements(value, config)
    return [node]


def _is_scalar(node: Node) -> bool:
    return node[0] not in (*_COLLECTIONS, "pm", "tuple", "ival", "union", "matrix", "rel", "text", "ratio")


# -- comparison ----------------------------------------------------------------------------
def _same(eq: ScalarEq, a: Node, b: Node) -> bool:
    if a == b:
        return True
    if (a in (OO, NEG_OO)) or (b in (OO, NEG_OO)):
        return False
    return eq(a, b)


def _match_unordered(eq: ScalarEq, gold: list[Node], pred: list[Node]) -> bool:
    if len(gold) != len(pred):
        return False
    left = list(pred)
    for g in gold:
        for k, p in enumerate(left):
            if _scalar_or_structure(eq, g, p):
                del left[k]
                break
        else:
            return False
    return True


def _match_ordered(eq: ScalarEq, gold: Sequence[Node], pred: Sequence[Node]) -> bool:
    return len(gold) == len(pred) and all(_scalar_or_structure(eq, g, p) for g, p in zip(gold, pred, strict=True))


def _scalar_or_structure(eq: ScalarEq, g: Node, p: Node) -> bool:
    if _is_scalar(g) and _is_scalar(p):
        return _same(eq, g, p)
    if g[0] == p[0] == "tuple":
        return _match_ordered(eq, g[1], p[1])
    return g == p


def _distinct(eq: ScalarEq, values: list[Node]) -> list[Node]:
    out: list[Node] = []
    for v in values:
        if not any(_scalar_or_structure(eq, u, v) for u in out):
            out.append(v)
    return out


def _scalar(scalars: Scalars, gold: Node, pred: Node) -> bool:
    config = scalars.config
    if gold[0] == "base" or pred[0] == "base":  # 1011_2: the digits are the answer
        if gold[0] == pred[0]:
            return bool(gold[1:] == pred[1:])
        other = pred if gold[0] == "base" else gold
        digits = (gold if gold[0] == "base" else pred)[1]
        return other[0] == "n" and other[2] is None and str(other[1]) == digits
    if gold[0] == "deg" or pred[0] == "deg":
        if not config.ignore_degrees and (gold[0] == "deg") != (pred[0] == "deg"):
            return False  # degrees must be written when the policy says they matter
        gold = gold[1] if gold[0] == "deg" else gold
        pred = pred[1] if pred[0] == "deg" else pred
    if gold[0] == "pct" or pred[0] == "pct":
        g = gold[1] if gold[0] == "pct" else gold
        p = pred[1] if pred[0] == "pct" else pred
        if _same(scalars.equal, g, p):
            return True
        if config.percent_as_fraction and gold[0] != pred[0]:
            hundred: Node = ("n", Fraction(100), None)
            if gold[0] == "pct":
                return _same(scalars.equal, ("div", g, hundred), p)
            return _same(scalars.equal, g, ("div", p, hundred))
        return False
    return _same(scalars.equal, gold, pred)


Verdict = tuple[bool, str]


def judge(gold: Node, pred: Node, scalars: Scalars) -> Verdict:
    """Compare a parsed gold answer with a parsed prediction; returns (equal, reason).

    The rules, in order: text, matrices, values named on both sides, equations (reduced to
    their values), ratios, intervals and other comparisons, tuples, collections, one value."""
    eq: ScalarEq = lambda a, b: _scalar(scalars, a, b)  # noqa: E731
    verdict = _text_or_matrix(eq, gold, pred) or _named(eq, gold, pred)
    if verdict is not None:
        return verdict
    verdict, gold, pred = _equations(gold, pred, scalars)
    if verdict is not None:
        return verdict
    return _structures(eq, gold, pred, scalars.config)


def _text_or_matrix(eq: ScalarEq, gold: Node, pred: Node) -> Verdict | None:
    if gold[0] == "text" or pred[0] == "text":
        if gold[0] == pred[0] == "text":
            return gold[1] == pred[1], "the text answers " + ("match" if gold[1] == pred[1] else "differ")
        return False, "a text answer and a mathematical one differ"
    if gold[0] == "matrix" or pred[0] == "matrix":
        if gold[0] != pred[0]:
            return False, "a matrix and a non-matrix differ"
        if len(gold[1]) != len(pred[1]) or len(gold[1][0]) != len(pred[1][0]):
            return False, "the matrices have different shapes"
        same = all(_match_ordered(eq, g, p) for g, p in zip(gold[1], pred[1], strict=True))
        return same, "the matrices " + ("have equal entries" if same else "differ in an entry")
    return None


def _named(eq: ScalarEq, gold: Node, pred: Node) -> Verdict | None:
    """Names given on both sides must match (``q = 2, p = 3`` is ``(p, q) = (3, 2)``)."""
    named_gold, named_pred = _named_values(gold), _named_values(pred)
    if named_gold is None or named_pred is None:
        return None
    same = named_gold.keys() == named_pred.keys() and all(eq(v, named_pred[k]) for k, v in named_gold.items())
    return same, "the named values " + ("match" if same else "differ")


def _equations(gold: Node, pred: Node, scalars: Scalars) -> tuple[Verdict | None, Node, Node]:
    """Equations judged as equations, or reduced to their values (``x = 2`` -> 2)."""
    config = scalars.config
    if gold[0] == "rel" and "=" in gold[1]:
        gval = _value_of_equation(gold, config)
        if gval is None or pred[0] == "rel":
            if pred[0] == "rel" and set(pred[1]) == set(gold[1]) == {"="}:
                if len(gold[2]) == len(pred[2]) == 2 and scalars.equation_equal(gold, pred):
                    return (True, "the equations are equivalent"), gold, pred
                pval = _value_of_equation(pred, config)
                if gval is not None and pval is not None:
                    return judge(gval, pval, scalars), gold, pred
                return (False, "the equations are not equivalent"), gold, pred
            if gval is None:
                return (False, "the answer should be an equation"), gold, pred
        gold = gval
    if pred[0] == "rel" and "=" in pred[1]:
        pval = _value_of_equation(pred, config)
        if pval is None:
            return (False, "the answer is an unsolved equation, not a value"), gold, pred
        pred = pval
    return None, gold, pred


def _structures(eq: ScalarEq, gold: Node, pred: Node, config: MathConfig) -> Verdict:
    if gold[0] == "ratio" or pred[0] == "ratio":
        return _ratio(eq, gold, pred)
    if gold[0] in ("ival", "union", "rel") or (gold[0] == "tuple" and pred[0] in ("ival", "union", "rel")):
        gold_iv, pred_iv = intervals(gold), intervals(pred)
        if gold_iv is None or pred_iv is None:
            return _statement(eq, gold, pred)
        same = len(gold_iv) == len(pred_iv) and _match_intervals(eq, gold_iv, pred_iv)
        return same, "the intervals " + ("match" if same else "differ")
    if gold[0] == "tuple":
        if pred[0] in ("tuple", "list"):
            items = pred[1] if pred[0] == "tuple" else _elements(pred, config)  # x=2, y=3
            same = _match_ordered(eq, gold[1], items)
            return same, "the tuples " + ("match" if same else "differ")
        return False, "a tuple and a " + _kind(pred) + " differ"
    if gold[0] in ("set", "list", "or", "pm"):
        if pred[0] in ("tuple", "ival", "union"):
            return False, f"a {_kind(gold)} and a {_kind(pred)} differ"
        g, p = _elements(gold, config), _elements(pred, config)
        if gold[0] == "set" and pred[0] not in ("set", "list", "or", "pm") and len(g) != 1:
            return False, "a set and a single value differ"
        same = _match_unordered(eq, _distinct(eq, g), _distinct(eq, p))
        return same, "the collections " + ("match" if same else "differ")
    return _single(eq, gold, pred, config)


def _single(eq: ScalarEq, gold: Node, pred: Node, config: MathConfig) -> Verdict:
    """The gold is one value: the prediction must give exactly one (repeats are one)."""
    values = _distinct(eq, _elements(pred, config))
    if len(values) != 1:
        return False, f"{len(values)} different values were given where one is expected"
    pred = values[0]
    if not _is_scalar(pred):
        return False, f"a value and a {_kind(pred)} differ"
    same = eq(gold, pred)
    return same, "the values are " + ("equal" if same else "different")


def _statement(eq: ScalarEq, gold: Node, pred: Node) -> tuple[bool, str]:
    """Comparisons that are not one-variable intervals, compared term by term: a chain
    ``f(2) < f(1) < f(4)`` (also written ``f(4) > f(1) > f(2)``), ``a^b > 3^n/n``, and the
    symmetric ``AB \\perp CD`` / ``AB \\parallel CD`` (either way round)."""
    g, p = _chain(gold), _chain(pred)
    if g is None or p is None:
        return False, "an interval and a non-interval differ"
    if g[0] != p[0] or len(g[1]) != len(p[1]):
        return False, "the statements differ"
    if g[0] in (["perp"], ["parallel"]):
        same = _match_unordered(eq, list(g[1]), list(p[1]))
    else:
        same = all(eq(a, b) for a, b in zip(g[1], p[1], strict=True))
    return same, "the statements " + ("match" if same else "differ")


def _chain(node: Node) -> tuple[list[str], list[Node]] | None:
    if node[0] != "rel" or not set(node[1]) <= {*FLIP, "perp", "parallel"}:
        return None
    ops, exprs = list(node[1]), list(node[2])
    if set(ops) <= set(FLIP) and all(o[0] == ">" for o in ops):  # b > a as a < b
        ops, exprs = [FLIP[o] for o in reversed(ops)], exprs[::-1]
    if len(set(ops) & {"perp", "parallel"}) and (len(ops) != 1 or len(exprs) != 2):
        return None
    return ops, exprs


def _ratio(eq: ScalarEq, gold: Node, pred: Node) -> tuple[bool, str]:
    """Ratios are equal when proportional (``7:32`` = ``14:64``), term order counting; a ratio
    never equals a number (``1:2`` is not ``1/2``: the answer asked for is a ratio or is not)."""
    if gold[0] != pred[0]:
        return False, f"a {_kind(gold)} and a {_kind(pred)} differ"
    g, p = gold[1], pred[1]
    if len(g) != len(p):
        return False, "the ratios have different numbers of terms"
    same = all(eq(("mul", (g[k], p[0])), ("mul", (p[k], g[0]))) for k in range(1, len(g)))
    return same, "the ratios " + ("are proportional" if same else "differ")


def _match_intervals(
    eq: ScalarEq,
    gold: list[tuple[bool, Node, Node, bool]],
    pred: list[tuple[bool, Node, Node, bool]],
) -> bool:
    left = list(pred)
    for g in gold:
        for k, p in enumerate(left):
            if g[0] == p[0] and g[3] == p[3] and _same(eq, g[1], p[1]) and _same(eq, g[2], p[2]):
                del left[k]
                break
        else:
            return False
    return True


def _kind(node: Node) -> str:
    return {
        "tuple": "tuple",
        "set": "set",
        "list": "list",
        "or": "list",
        "pm": "list",
        "ival": "interval",
        "union": "union of intervals",
        "matrix": "matrix",
        "rel": "relation",
        "text": "text",
        "ratio": "ratio",
    }.get(node[0], "value")
