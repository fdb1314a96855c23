"""The sympy comparison (worker side): builds sympy objects from parsed nodes, never from strings.

Only ints, Rationals, Symbols with names our lexer produced (letters, greek names,
subscripts) and sympy's own functions are constructed; no text reaches `sympify`. Numbers
too large to compute never reach sympy at all: they are compared by `canonical` forms.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable
from typing import Any

import sympy

from verifiers.math._compare import Scalars
from verifiers.math._config import MathConfig
from verifiers.math._huge import canonical
from verifiers.math._nodes import (
    Abs,
    Add,
    Binom,
    Const,
    Deg,
    Div,
    Fact,
    Fn,
    Log,
    Mul,
    Neg,
    Node,
    Num,
    Pct,
    Pow,
    Relation,
    Root,
    Sym,
)
from verifiers.math._numeric import MAX_DIGITS, decimal_places, log10_size, rational, rational_equal

__all__ = ["SympyScalars", "to_sympy"]

_PREC = 60
_FUNCS: dict[str, Any] = {
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "cot": sympy.cot,
    "sec": sympy.sec,
    "csc": sympy.csc,
    "arcsin": sympy.asin,
    "arccos": sympy.acos,
    "arctan": sympy.atan,
    "sinh": sympy.sinh,
    "cosh": sympy.cosh,
    "tanh": sympy.tanh,
    "ln": sympy.log,
    "log": sympy.log,
    "exp": sympy.exp,
    "floor": sympy.floor,
    "ceiling": sympy.ceiling,
}
_CONSTS: dict[str, Any] = {"pi": sympy.pi, "e": sympy.E, "i": sympy.I, "oo": sympy.oo}
_OF_ONE: dict[type[Node], Callable[[Any], Any]] = {
    Neg: operator.neg,
    Fact: sympy.factorial,
    Abs: sympy.Abs,
    Pct: lambda x: x / 100,
    Deg: lambda x: x,  # a degree sign is read as a plain number
}
"""The nodes of one argument: what each makes of its argument's sympy expression."""


class Unsupported(Exception):
    """A node sympy cannot represent here (a set inside a sum, say)."""


def to_sympy(node: Node) -> Any:
    """Build a sympy expression from a numeric/symbolic node (call only on bounded sizes)."""
    match node:
        case Num(value):
            return sympy.Rational(value.numerator, value.denominator)
        case Sym(name):
            return sympy.Symbol(name)
        case Const(name):
            return _CONSTS[name]
        case Neg(arg) | Fact(arg) | Abs(arg) | Pct(arg) | Deg(arg):
            return _OF_ONE[type(node)](to_sympy(arg))
        case Add(terms):
            return sympy.Add(*(to_sympy(a) for a in terms))
        case Mul(factors):
            return sympy.Mul(*(to_sympy(a) for a in factors))
        case Div(a, b):
            return to_sympy(a) / to_sympy(b)
        case Pow(base, exp):
            return sympy.Pow(to_sympy(base), to_sympy(exp))
        case Fn(name, arg):
            return _FUNCS[name](to_sympy(arg))
        case Log(base, arg):
            return sympy.log(to_sympy(arg), to_sympy(base))
        case Root(arg, index):
            return sympy.root(to_sympy(arg), to_sympy(index))
        case Binom(n, k):
            return sympy.binomial(to_sympy(n), to_sympy(k))
    raise Unsupported(type(node).__name__)


def _numeric(expr: Any) -> Any:
    value = expr.evalf(_PREC)
    return value if value.is_number else None


class SympyScalars(Scalars):
    """Exact rationals first, then canonical forms for huge numbers, then sympy."""

    def __init__(self, config: MathConfig) -> None:
        super().__init__(config)

    def equal(self, gold: Node, pred: Node) -> bool:
        gv, pv = rational(gold), rational(pred)
        if gv is not None and pv is not None:
            return rational_equal(gold, pred, gv, pv, self.config)
        if log10_size(gold) > MAX_DIGITS or log10_size(pred) > MAX_DIGITS:
            return bool(canonical(gold) == canonical(pred))
        try:
            g, p = to_sympy(gold), to_sympy(pred)
        except Unsupported:
            return False
        if g.has(sympy.zoo, sympy.nan) or p.has(sympy.zoo, sympy.nan):
            return False
        places = decimal_places(gold)
        exact_pred = decimal_places(pred) is None and not p.free_symbols
        if places is not None and self.config.decimal_rounding and exact_pred:
            value = _numeric(p - g)
            return value is not None and abs(value) * 2 * sympy.Integer(10) ** places <= 1
        return self._zero(g - p, scale=g)

    def _zero(self, diff: Any, scale: Any) -> bool:
        if diff == 0:
            return True
        if not diff.free_symbols:
            value, size = _numeric(diff), _numeric(scale)
            if value is None:
                return False
            bound = sympy.Float(10) ** (-40) * max(1, abs(size) if size is not None else 1)
            if self.config.rel_tol and size is not None:
                bound = max(bound, self.config.rel_tol * abs(size))
            return bool(abs(value) <= bound)
        verdict = self._sampled_zero(diff)  # fast, and decisive for almost every input
        if verdict is not None:
            return verdict
        return bool(sympy.expand(diff) == 0 or sympy.simplify(diff) == 0)

    def _sampled_zero(self, diff: Any) -> bool | None:
        """Evaluate at random points: a non-zero value proves inequality; zero at every point
        (60 digits) is taken as equality. None when too few points could be evaluated."""
        if not self.config.numeric_samples:
            return None
        symbols = sorted(diff.free_symbols, key=lambda s: s.name)
        rng = random.Random(0)  # deterministic: the same verdict every call
        checked = 0
        for _ in range(self.config.numeric_samples * 3):
            point = {s: sympy.Rational(rng.randint(50, 250), 100) for s in symbols}
            value = _numeric(diff.subs(point))
            if value is None or value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
                continue
            if abs(value) > sympy.Float(10) ** (-30):
                return False
            checked += 1
            if checked >= self.config.numeric_samples:
                break
        return True if checked >= 2 else None

    def equation_equal(self, gold: Relation, pred: Relation) -> bool:
        try:
            g = to_sympy(gold.exprs[0]) - to_sympy(gold.exprs[1])
            p = to_sympy(pred.exprs[0]) - to_sympy(pred.exprs[1])
        except Unsupported:
            return False
        if g == 0 or p == 0:
            return bool(g == p)
        ratio = sympy.simplify(g / p)
        if not ratio.free_symbols:
            return bool(ratio != 0 and ratio.is_finite)
        symbols = sorted((g.free_symbols | p.free_symbols), key=lambda s: s.name)
        rng = random.Random(0)
        values = []
        for _ in range(12):
            point = {s: sympy.Rational(rng.randint(50, 250), 100) for s in symbols}
            value = _numeric(ratio.subs(point))
            if value is not None and not value.has(sympy.zoo, sympy.nan):
                values.append(value)
        if len(values) < 2 or values[0] == 0:
            return False
        return all(abs(v - values[0]) <= sympy.Float(10) ** (-30) * abs(values[0]) for v in values)
