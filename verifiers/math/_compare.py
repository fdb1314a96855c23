"""Structural comparison: one rule per kind of answer (text, matrices and vectors, function
definitions, named values, equations, ratios, intervals and statements, tuples, collections,
one value).

`compare(gold, pred, scalars)` compares two parsed answers; the scalar comparison is a parameter:
the in-process fast path uses exact rationals and raises `NeedSympy` for anything else, and the
worker process passes the sympy comparator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from verifiers.math._config import MathConfig
from verifiers.math._intervals import FLIP, intervals, is_range
from verifiers.math._nodes import (
    NEG_OO,
    OO,
    Const,
    Def,
    Deg,
    Div,
    InBase,
    Interval,
    List,
    Matrix,
    Mul,
    Node,
    Num,
    Or,
    Pct,
    PlusMinus,
    Ratio,
    Relation,
    Set,
    Sym,
    Text,
    Tup,
    Union,
    num,
    substitute,
)
from verifiers.math._notation import in_notation, noted, quotient
from verifiers.math._numeric import rational, rational_equal
from verifiers.math._params import Match, with_parameters
from verifiers.math._shapes import elements, exact, named_values, signs_expanded, value_of_equation

__all__ = ["Match", "NeedSympy", "Scalars", "compare", "rational_equal"]

ScalarEq = Callable[[Node, Node], bool]
T = TypeVar("T")


class NeedSympy(Exception):
    """The fast path cannot decide; the sympy comparison in a worker must."""


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

    def equation_equal(self, gold: Relation, pred: Relation) -> bool:
        """Two equations (lhs - rhs) equal up to a non-zero constant factor."""
        raise NeedSympy


def _is_plain(node: Node) -> bool:
    return isinstance(node, Sym | Const) and node != OO


# -- matching values ------------------------------------------------------------------------
def _same(eq: ScalarEq, a: Node, b: Node) -> bool:
    if a == b:
        return True
    if a in (OO, NEG_OO) or b in (OO, NEG_OO):
        return False
    return eq(a, b)


def _pairs_up(gold: Sequence[T], pred: Sequence[T], same: Callable[[T, T], bool]) -> bool:
    """Each gold item matches a distinct prediction item, in any order, none left over."""
    if len(gold) != len(pred):
        return False
    left = list(pred)
    for g in gold:
        k = next((k for k, p in enumerate(left) if same(g, p)), None)
        if k is None:
            return False
        del left[k]
    return True


def _match_unordered(eq: ScalarEq, gold: Sequence[Node], pred: Sequence[Node]) -> bool:
    return _pairs_up(gold, pred, lambda g, p: _scalar_or_structure(eq, g, p))


def _match_ordered(eq: ScalarEq, gold: Sequence[Node], pred: Sequence[Node]) -> bool:
    return len(gold) == len(pred) and all(_scalar_or_structure(eq, g, p) for g, p in zip(gold, pred, strict=True))


def _scalar_or_structure(eq: ScalarEq, g: Node, p: Node) -> bool:
    if g.scalar and p.scalar:
        return _same(eq, g, p)
    if isinstance(g, Def) and isinstance(p, Def):
        return _same_definition(eq, g, p)
    if isinstance(g, Tup) and isinstance(p, Tup):
        return _match_ordered(eq, g.items, p.items)
    return g == p


def _distinct(eq: ScalarEq, values: list[Node]) -> list[Node]:
    out: list[Node] = []
    for v in values:
        if not any(_scalar_or_structure(eq, u, v) for u in out):
            out.append(v)
    return out


def _scalar(scalars: Scalars, gold: Node, pred: Node) -> bool:
    """Two values: digits in a base, degrees and percents by the policy, then the comparator."""
    config = scalars.config
    if isinstance(gold, InBase) or isinstance(pred, InBase):  # 1011_2: the digits are the answer
        if isinstance(gold, InBase) and isinstance(pred, InBase):
            return gold == pred
        based, other = (gold, pred) if isinstance(gold, InBase) else (pred, gold)
        assert isinstance(based, InBase)
        return isinstance(other, Num) and other.places is None and str(other.value) == based.digits
    if isinstance(gold, Deg) or isinstance(pred, Deg):
        if not config.ignore_degrees and isinstance(gold, Deg) != isinstance(pred, Deg):
            return False  # degrees must be written when the policy says they matter
        gold = gold.arg if isinstance(gold, Deg) else gold
        pred = pred.arg if isinstance(pred, Deg) else pred
    if isinstance(gold, Pct) or isinstance(pred, Pct):
        g = gold.arg if isinstance(gold, Pct) else gold
        p = pred.arg if isinstance(pred, Pct) else pred
        if _same(scalars.equal, g, p):
            return True
        if config.percent_as_fraction and isinstance(gold, Pct) != isinstance(pred, Pct):
            if isinstance(gold, Pct):
                return _same(scalars.equal, Div(g, num(100)), p)
            return _same(scalars.equal, g, Div(p, num(100)))
        return False
    return _same(scalars.equal, gold, pred)


# -- the rules ------------------------------------------------------------------------------
def compare(gold: Node, pred: Node, scalars: Scalars) -> Match:
    """Compare a parsed gold answer with a parsed prediction; returns (equal, reason).

    The rules, in order: text, function definitions, named values, equations (reduced to
    their values), matrices (a vector against a tuple), ratios, intervals, inequalities and
    other comparisons, tuples, collections, one value; qualifiers (``k \\in \\mathbb{Z}``) are read
    off first and integer parameters may be renamed (`_params`).

    Examples:
        >>> from verifiers.math._parser import parse
        >>> compare(parse("(1, 2)"), parse("(1, 3)"), Scalars(MathConfig()))
        (False, 'the tuples differ')
    """
    gold, pred, note = in_notation(gold, pred, scalars.config)
    match = with_parameters(gold, pred, lambda g, p: _rules(g, p, scalars), scalars.config)
    return noted(gold, pred, match, scalars.config, note)


def _rules(gold: Node, pred: Node, scalars: Scalars) -> Match:
    expanded = signs_expanded(gold, scalars.config), signs_expanded(pred, scalars.config)
    if expanded != (gold, pred):
        same, why = _rules(*expanded, scalars)
        return same, why + (" (expand_plus_minus: every choice of signs)" if same else "")
    eq: ScalarEq = lambda a, b: _scalar(scalars, a, b)  # noqa: E731
    match = _text(gold, pred) or _definition(eq, gold, pred, scalars.config) or _named(eq, gold, pred)
    if match is not None:
        return match
    match, gold, pred = _equations(gold, pred, scalars)
    match = match or _matrix(eq, gold, pred)  # after equations: v = (1, 2) is a vector's value
    if match is not None:
        return match
    config = scalars.config
    if isinstance(gold, Ratio) or isinstance(pred, Ratio):
        return _ratio(eq, gold, pred, config)
    if is_range(gold) or (isinstance(gold, Tup) and is_range(pred)):
        return _ranges(eq, gold, pred)
    if isinstance(gold, Tup):
        return _tuple(eq, gold, pred, config)
    if isinstance(gold, Set | List | Or | PlusMinus):
        return _collection(eq, gold, pred, config)
    return _single(eq, gold, pred, config)


def _text(gold: Node, pred: Node) -> Match | None:
    """Text answers match as normalized text, and never a mathematical answer."""
    if isinstance(gold, Text) and isinstance(pred, Text):
        return gold.text == pred.text, "the text answers " + ("match" if gold.text == pred.text else "differ")
    if isinstance(gold, Text) or isinstance(pred, Text):
        return False, "a text answer and a mathematical one differ"
    return None


def _matrix(eq: ScalarEq, gold: Node, pred: Node) -> Match | None:
    """Matrices match entry by entry, shapes first; a column or row vector matches a tuple
    with the same entries in the same order."""
    if not isinstance(gold, Matrix) and not isinstance(pred, Matrix):
        return None
    if not (isinstance(gold, Matrix) and isinstance(pred, Matrix)):
        matrix, other = (gold, pred) if isinstance(gold, Matrix) else (pred, gold)
        assert isinstance(matrix, Matrix)
        if isinstance(other, Interval) and other.left_closed and other.right_closed:
            other = Tup((other.low, other.high))  # [1, -2]: a pair in square brackets
        if isinstance(other, Tup) and (len(matrix.rows) == 1 or len(matrix.rows[0]) == 1):
            entries = [cell for row in matrix.rows for cell in row]
            g, p = (entries, other.items) if matrix is gold else (other.items, entries)
            same = _match_ordered(eq, g, p)
            return same, "the vector and the tuple " + ("have equal entries" if same else "differ")
        return False, "a matrix and a non-matrix differ"
    if len(gold.rows) != len(pred.rows) or len(gold.rows[0]) != len(pred.rows[0]):
        return False, "the matrices have different shapes"
    same = all(_match_ordered(eq, g, p) for g, p in zip(gold.rows, pred.rows, strict=True))
    return same, "the matrices " + ("have equal entries" if same else "differ in an entry")


def _definition(eq: ScalarEq, gold: Node, pred: Node, config: MathConfig) -> Match | None:
    """A function definition matches the same function under the same name, its arguments
    renamed or not (``h(s) = s^2`` is ``h(t) = t^2``, never ``g(t) = t^2``); with
    ``equation_as_value``, its right side is the value an expression alone gives (``t^2``)."""
    if not isinstance(gold, Def) and not isinstance(pred, Def):
        return None
    if isinstance(gold, Def) and isinstance(pred, Def):
        if (gold.name, len(gold.args)) != (pred.name, len(pred.args)):
            return False, f"the functions {gold.name} and {pred.name} differ"
        same = _same_definition(eq, gold, pred)
        return same, "the function definitions " + ("match" if same else "differ")
    defined, other = (gold, pred) if isinstance(gold, Def) else (pred, gold)
    assert isinstance(defined, Def)
    if not (config.equation_as_value and other.scalar and defined.body.scalar):
        return False, f"a function definition and a {other.noun} differ"
    same = eq(defined.body, other) if defined is gold else eq(other, defined.body)
    return same, "the expression " + ("is" if same else "is not") + " the right side of the definition"


def _same_definition(eq: ScalarEq, gold: Def, pred: Def) -> bool:
    """Same name, and the same body once both argument lists are renamed to fresh names."""
    if (gold.name, len(gold.args)) != (pred.name, len(pred.args)):
        return False
    fresh = [Sym(f"#{k}") for k in range(len(gold.args))]  # no answer can write these names
    g = substitute(gold.body, dict(zip(gold.args, fresh, strict=True)))
    p = substitute(pred.body, dict(zip(pred.args, fresh, strict=True)))
    return _scalar_or_structure(eq, g, p)


def _named(eq: ScalarEq, gold: Node, pred: Node) -> Match | None:
    """Names given on both sides must match (``q = 2, p = 3`` is ``(p, q) = (3, 2)``); values
    without names take the gold's names in order (``m = 12, k = 3`` is ``12, 3``, not ``3, 12``)."""
    named_gold, named_pred = named_values(gold), named_values(pred)
    if named_gold is not None and named_pred is None and isinstance(pred, List | Tup):
        if len(pred.items) != len(named_gold) or any(isinstance(i, Relation | Def) for i in pred.items):
            return None
        same = _match_ordered(eq, list(named_gold.values()), pred.items)
        return same, "the values " + ("match" if same else "differ from") + " the gold's named values in order"
    if named_gold is None or named_pred is None:
        return None
    same = named_gold.keys() == named_pred.keys() and all(eq(v, named_pred[k]) for k, v in named_gold.items())
    return same, "the named values " + ("match" if same else "differ")


def _equations(gold: Node, pred: Node, scalars: Scalars) -> tuple[Match | None, Node, Node]:
    """Equations judged as equations, or reduced to their values (``x = 2`` -> 2)."""
    config = scalars.config
    if isinstance(gold, Relation) and "~" in gold.ops:  # a gold's note: 2.62 in ``\frac{3+\sqrt{5}}{2} \approx 2.62``
        gold = exact(gold)
    if isinstance(gold, Relation) and "=" in gold.ops:
        gval = value_of_equation(gold, config)
        if isinstance(pred, Relation) and pred.is_equation and gold.is_equation:
            return _two_equations(gold, pred, gval, scalars), gold, pred
        if gval is None:
            return (False, "the answer should be an equation"), gold, pred
        gold = gval
    if isinstance(pred, Relation) and ("=" in pred.ops or "~" in pred.ops):  # x = 2, x \approx 2
        pval = value_of_equation(pred, config)
        if pval is None:
            return (False, "the answer is an unsolved equation, not a value"), gold, pred
        pred = pval
    return None, gold, pred


def _two_equations(gold: Relation, pred: Relation, gval: Node | None, scalars: Scalars) -> Match:
    """Equivalent as equations (``2x = 4`` is ``x - 2 = 0``), else equal as the values stated."""
    if len(gold.exprs) == len(pred.exprs) == 2 and scalars.equation_equal(gold, pred):
        return True, "the equations are equivalent"
    pval = value_of_equation(pred, scalars.config)
    if gval is not None and pval is not None:
        return _rules(gval, pval, scalars)
    return False, "the equations are not equivalent"


def _ratio(eq: ScalarEq, gold: Node, pred: Node, config: MathConfig) -> Match:
    """Ratios are equal when proportional (``7:32`` = ``14:64``), term order counting; a gold ratio
    of two terms and a number, by `MathConfig.ratio_as_quotient` (``7:2`` is ``3.5``, never ``2/7``)."""
    if not (isinstance(gold, Ratio) and isinstance(pred, Ratio)):
        return quotient(eq, gold, pred, config)
    g, p = gold.items, pred.items
    if len(g) != len(p):
        return False, "the ratios have different numbers of terms"
    same = all(eq(Mul((g[k], p[0])), Mul((p[k], g[0]))) for k in range(1, len(g)))
    return same, "the ratios " + ("are proportional" if same else "differ")


def _ranges(eq: ScalarEq, gold: Node, pred: Node) -> Match:
    """Intervals, unions and inequalities match as sets of numbers; other comparisons as
    statements."""
    gold_iv, pred_iv = intervals(gold), intervals(pred)
    if gold_iv is None or pred_iv is None:
        return _statement(eq, gold, pred)
    same = _pairs_up(gold_iv, pred_iv, lambda a, b: _same_interval(eq, a, b))
    return same, "the intervals " + ("match" if same else "differ")


def _same_interval(eq: ScalarEq, a: Interval, b: Interval) -> bool:
    return (
        a.left_closed == b.left_closed
        and a.right_closed == b.right_closed
        and _same(eq, a.low, b.low)
        and _same(eq, a.high, b.high)
    )


def _statement(eq: ScalarEq, gold: Node, pred: Node) -> Match:
    """Comparisons that are not one-variable intervals, compared term by term: a chain
    ``f(2) < f(1) < f(4)`` (also written ``f(4) > f(1) > f(2)``), ``a^b > 3^n/n``, and the
    symmetric ``AB \\perp CD`` / ``AB \\parallel CD`` (either way round)."""
    g, p = _chain(gold), _chain(pred)
    if g is None or p is None:
        return False, "an interval and a non-interval differ"
    if g.ops != p.ops:
        return False, "the statements differ"
    if g.ops in (("perp",), ("parallel",)):
        same = _match_unordered(eq, g.exprs, p.exprs)
    else:
        same = all(eq(a, b) for a, b in zip(g.exprs, p.exprs, strict=True))
    return same, "the statements " + ("match" if same else "differ")


def _chain(node: Node) -> Relation | None:
    """A comparison read one way round (``b > a`` as ``a < b``); None for what is not one."""
    if not isinstance(node, Relation) or not set(node.ops) <= {*FLIP, "perp", "parallel"}:
        return None
    if set(node.ops) <= set(FLIP) and all(o[0] == ">" for o in node.ops):
        return Relation(tuple(FLIP[o] for o in reversed(node.ops)), node.exprs[::-1])
    if set(node.ops) & {"perp", "parallel"} and len(node.ops) != 1:
        return None
    return node


def _tuple(eq: ScalarEq, gold: Tup, pred: Node, config: MathConfig) -> Match:
    """Tuples match in order (``x = 2, y = 3`` gives the values of ``(2, 3)``)."""
    if not isinstance(pred, Tup | List):
        return False, f"a tuple and a {pred.noun} differ"
    items = pred.items if isinstance(pred, Tup) else elements(pred, config)
    same = _match_ordered(eq, gold.items, items)
    return same, "the tuples " + ("match" if same else "differ")


def _collection(eq: ScalarEq, gold: Node, pred: Node, config: MathConfig) -> Match:
    """Sets, lists and ``\\pm`` pairs match as collections of distinct values, in any order."""
    if isinstance(pred, Tup | Interval | Union):
        return False, f"a {gold.noun} and a {pred.noun} differ"
    if _holds_a_set(pred) and not _holds_a_set(gold):  # "\{0, 7\}, 7": a set and more, not one set
        return False, "a list that holds a set and more values is not one collection"
    g, p = elements(gold, config), elements(pred, config)
    if isinstance(gold, Set) and not isinstance(pred, Set | List | Or | PlusMinus) and len(g) != 1:
        return False, "a set and a single value differ"
    same = _match_unordered(eq, _distinct(eq, g), _distinct(eq, p))
    return same, "the collections " + ("match" if same else "differ")


def _holds_a_set(node: Node) -> bool:
    return isinstance(node, List) and len(node.items) > 1 and any(isinstance(i, Set) for i in node.items)


def _single(eq: ScalarEq, gold: Node, pred: Node, config: MathConfig) -> Match:
    """The gold is one value: the prediction must give exactly one (repeats are one)."""
    values = _distinct(eq, elements(pred, config))
    if len(values) != 1:
        return False, f"{len(values)} different values were given where one is expected"
    pred = values[0]
    if not pred.scalar:
        return False, f"a value and a {pred.noun} differ"
    same = eq(gold, pred)
    return same, "the values are " + ("equal" if same else "different")
