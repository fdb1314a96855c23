"""Math problems for the laws: a gold answer with strategies of equivalent renderings and near misses.

Each kind (numbers, expressions, answer sets, intervals, matrices, ordered pairs) knows its
value as data (ints, Fractions, sympy objects built without parsing text), so what counts as
"the same answer" never depends on the parser under test.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy
from hypothesis import strategies as st

from verifiers.testing._answers import answer_statements
from verifiers.testing._math import decimals, expressions, fractions, near_misses, number_renderings, renderings

__all__ = ["Problem", "answer_sets", "intervals", "math_problems", "matrices", "numbers", "pairs"]


@dataclass(frozen=True)
class Problem:
    """A gold answer (LaTeX, as a dataset stores it) and how to say it again, or almost."""

    kind: str
    gold: str
    renderings: st.SearchStrategy[str]
    near_misses: st.SearchStrategy[str]


def _frac_latex(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    sign = "-" if v < 0 else ""
    return f"{sign}\\frac{{{abs(v.numerator)}}}{{{v.denominator}}}"


def _unwrap(text: str) -> str:
    """A rendering without its math delimiters (``$..$``, ``\\(..\\)``), to embed it again."""
    text = text.strip()
    for left, right in (("$", "$"), ("\\(", "\\)")):
        if text.startswith(left) and text.endswith(right) and len(text) > len(left) + len(right):
            text = text[len(left) : len(text) - len(right)].strip()
    return text


def _wrapped(text: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A bare answer as a completion: boxed in reasoning, or in any of the final-answer
    statements real models write (`answer_statements`)."""
    return text.flatmap(
        lambda t: st.one_of(
            st.sampled_from([f"We work it out step by step.\nSo the result is $\\boxed{{{t}}}$.", f"\\boxed{{{t}}}"]),
            answer_statements(t),
        )
    )


_JOINS = (", ", " and ", " \\quad ", "$ or $", "; ")


def _boxes(values: list[int] | tuple[int, ...], join: str) -> str:
    return "The values are $" + join.join(f"\\boxed{{{v}}}" for v in values) + "$."


@st.composite
def numbers(draw: st.DrawFn) -> Problem:
    """Integers, decimals and fractions with formatting variants (separators, \\dfrac, sci)."""
    value: Fraction = draw(st.one_of(st.integers(-(10**9), 10**9).map(Fraction), fractions, decimals))
    gold = _unwrap(draw(number_renderings(value)))
    step = draw(st.sampled_from([Fraction(1), Fraction(1, 1000), Fraction(-2) * value if value else Fraction(5)]))
    miss = value + step
    return Problem(
        "number",
        gold or "0",
        _wrapped(number_renderings(value).map(_unwrap)),
        _wrapped(
            st.sampled_from([_frac_latex(miss), str(miss.numerator) if miss.denominator == 1 else _frac_latex(miss)])
        ),
    )


@st.composite
def expression_problems(draw: st.DrawFn) -> Problem:
    """Bounded sympy expressions; renderings include expanded, factored and str forms."""
    expr = draw(expressions)
    return Problem(
        "expression",
        sympy.latex(expr),
        renderings(expr),
        near_misses(expr).map(lambda m: f"Simplifying, we get $\\boxed{{{sympy.latex(m)}}}$."),
    )


def _set_latex(values: list[int]) -> str:
    return "\\{" + ", ".join(map(str, values)) + "\\}"


@st.composite
def answer_sets(draw: st.DrawFn) -> Problem:
    """Sets of integers: any order is the same set; a dropped or extra element is not."""
    values = sorted(draw(st.sets(st.integers(-50, 50), min_size=2, max_size=5)))
    extra = draw(st.integers(51, 99))
    orders = st.permutations(values)
    sized = "\\left\\{{{}\\right\\}}"
    same = orders.flatmap(lambda vs: st.sampled_from([_set_latex(list(vs)), sized.format(", ".join(map(str, vs)))]))
    misses = [_set_latex(values[1:]), _set_latex([*values, extra]), _set_latex([values[0] + 100, *values[1:]])]
    # one box per value, in any order, is the same collection; a run that adds one value is not
    boxed = st.builds(_boxes, orders, st.sampled_from(_JOINS))
    boxed_miss = st.builds(_boxes, st.permutations([*values, extra]), st.sampled_from(_JOINS))
    return Problem(
        "set",
        _set_latex(values),
        st.one_of(_wrapped(same), boxed),
        st.one_of(_wrapped(st.sampled_from(misses)), boxed_miss),
    )


def _interval_latex(a: int, b: int, lc: bool, rc: bool, left: str = "", right: str = "") -> str:
    return f"{left}{'[' if lc else '('}{a}, {b}{right}{']' if rc else ')'}"


@st.composite
def intervals(draw: st.DrawFn) -> Problem:
    """Intervals (and unions of two): bracket style, inequality form and the order of a union
    are the same set; a flipped end is not."""
    a = draw(st.integers(-50, 49))
    b = draw(st.integers(a + 1, 50))
    lc, rc = draw(st.booleans()), draw(st.booleans())
    le, lt = "\\le", "<"
    ineq = f"{a} {le if lc else lt} x {le if rc else lt} {b}"
    same = [_interval_latex(a, b, lc, rc, "\\left", "\\right"), ineq, _interval_latex(a, b, lc, rc)]
    misses = [_interval_latex(a, b, not lc, rc), _interval_latex(a, b, lc, not rc), _interval_latex(a, b + 1, lc, rc)]
    gold = _interval_latex(a, b, lc, rc)
    if draw(st.booleans()):  # a union with a second, disjoint interval: either order is the same set
        c = draw(st.integers(b + 2, 70))
        d = draw(st.integers(c + 1, 80))
        other = _interval_latex(c, d, True, False)
        single = gold
        gold = f"{gold} \\cup {other}"
        same = [f"{s} \\cup {other}" for s in same[::2]] + [f"{other} \\cup {single}"]
        misses = [f"{m} \\cup {other}" for m in misses] + [single]
    return Problem("interval", gold, _wrapped(st.sampled_from(same)), _wrapped(st.sampled_from(misses)))


def _matrix_latex(rows: list[list[int]], env: str = "pmatrix") -> str:
    body = " \\\\ ".join(" & ".join(map(str, r)) for r in rows)
    return f"\\begin{{{env}}} {body} \\end{{{env}}}"


@st.composite
def matrices(draw: st.DrawFn) -> Problem:
    """Integer matrices: any bracket environment is the same; a transposed or changed one is not."""
    n_rows, n_cols = draw(st.integers(1, 3)), draw(st.integers(2, 3))
    rows = [[draw(st.integers(-9, 9)) for _ in range(n_cols)] for _ in range(n_rows)]
    changed = [list(r) for r in rows]
    changed[0][0] += 1
    misses = [_matrix_latex(changed)]
    transposed = [list(c) for c in zip(*rows, strict=True)]
    if transposed != rows:
        misses.append(_matrix_latex(transposed))
    return Problem(
        "matrix",
        _matrix_latex(rows),
        _wrapped(st.sampled_from([_matrix_latex(rows, env) for env in ("pmatrix", "bmatrix", "matrix")])),
        _wrapped(st.sampled_from(misses)),
    )


@st.composite
def pairs(draw: st.DrawFn) -> Problem:
    """Ordered pairs (points): swapping the coordinates is a different answer."""
    x = draw(st.integers(-20, 20))
    y = draw(st.integers(-20, 20).filter(lambda v: v != x))
    return Problem(
        "pair",
        f"({x}, {y})",
        _wrapped(st.sampled_from([f"({x}, {y})", f"\\left( {x}, {y} \\right)", f"({x},{y})"])),
        _wrapped(st.sampled_from([f"({y}, {x})", f"({x}, {y + 1})", f"\\{{{x}, {y}\\}}"])),
    )


def math_problems() -> st.SearchStrategy[Problem]:
    """Every math problem kind, mixed; numbers weigh three times as much as each other kind, as
    in real datasets (GSM8K's answers are all numbers, most of MATH's are)."""
    kinds = [numbers(), numbers(), numbers(), expression_problems(), answer_sets(), intervals(), matrices(), pairs()]
    return st.sampled_from(kinds).flatmap(lambda kind: kind)
