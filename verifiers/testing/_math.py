"""Hypothesis strategies for math answers: values, equivalent renderings, near misses.

Values are sympy objects built from ints, Rationals and Symbols (never parsed from text),
so a strategy's idea of "the same number" does not depend on the parser under test.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy
from hypothesis import strategies as st

__all__ = [
    "decimals",
    "expressions",
    "fractions",
    "integers",
    "near_misses",
    "number_renderings",
    "renderings",
]

X, Y = sympy.symbols("x y")

integers = st.integers(min_value=-(10**12), max_value=10**12)
fractions = st.builds(Fraction, st.integers(-10_000, 10_000), st.integers(1, 10_000)).filter(
    lambda f: f.denominator != 1
)
decimals = st.builds(lambda n, k: Fraction(n, 10**k), st.integers(-(10**9), 10**9), st.integers(1, 6)).filter(
    lambda f: f.denominator != 1
)


def _decimal_text(value: Fraction, places: int, *, pad: int = 0) -> str:
    scaled = abs(value) * 10**places
    assert scaled.denominator == 1
    digits = str(scaled.numerator).rjust(places + 1, "0")
    text = digits[:-places] + "." + digits[-places:] + "0" * pad if places else digits
    return ("-" if value < 0 else "") + text


@st.composite
def number_renderings(draw: st.DrawFn, value: Fraction) -> str:
    """Surface forms of one exact number: plain, LaTeX fraction, decimal, separators, sci."""
    forms: list[str] = []
    n, d = value.numerator, value.denominator
    sign = "-" if value < 0 else ""
    if d == 1:
        forms += [str(n), f"{n:,}", f"{sign}{abs(n):,}".replace(",", "{,}"), f"{n}.0", f"{n}.00"]
        if n > 0:
            forms.append(f"+{n}")
        if n and n % 1000 == 0:
            k = len(str(abs(n))) - len(str(abs(n)).rstrip("0"))
            mantissa = Fraction(n, 10**k)
            forms += [f"{mantissa}e{k}", f"{mantissa} \\times 10^{{{k}}}"]
    else:
        forms += [
            f"{sign}\\frac{{{abs(n)}}}{{{d}}}",
            f"\\frac{{{n}}}{{{d}}}",
            f"{n}/{d}",
            f"{sign}\\dfrac{{{abs(n)}}}{{{d}}}",
            f"{sign}\\tfrac{{{abs(n)}}}{{{d}}}",
        ]
        places = next((k for k in range(0, 9) if (value * 10**k).denominator == 1), None)
        if places is not None:
            forms += [_decimal_text(value, places), _decimal_text(value, places, pad=2)]
    form = draw(st.sampled_from(forms))
    return draw(st.sampled_from([form, f"${form}$", f"\\({form}\\)", f" {form} "]))


_LEAVES = st.one_of(
    st.integers(-9, 9).map(sympy.Integer),
    st.builds(sympy.Rational, st.integers(-9, 9), st.integers(2, 9)),
    st.sampled_from([X, Y, sympy.sqrt(2), sympy.sqrt(3), sympy.pi]),
)


def _combine(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(lambda a, b: a + b, children, children),
        st.builds(lambda a, b: a * b, children, children),
        st.builds(lambda a, k: a**k, children, st.integers(2, 3)),
        st.builds(lambda a: -a, children),
    )


expressions: st.SearchStrategy[Any] = st.recursive(_LEAVES, _combine, max_leaves=6).filter(
    lambda e: e.is_finite is not False and sympy.count_ops(e) <= 40
)
"""Bounded sympy expressions over x, y, small rationals, sqrt(2), sqrt(3) and pi."""


@st.composite
def renderings(draw: st.DrawFn, expr: Any) -> str:
    """Equivalent surface forms of ``expr``: LaTeX (as is, expanded, factored), sympy's
    ``str``, ``\\dfrac``, ``\\left(``, spaces; then bare, boxed in chain-of-thought text, or
    stated."""
    variants = [expr, sympy.expand(expr), sympy.factor(expr)]
    chosen = draw(st.sampled_from(variants))
    text = draw(st.sampled_from([sympy.latex(chosen), str(chosen)]))
    if draw(st.booleans()):
        text = text.replace("\\frac", "\\dfrac").replace("\\left(", "(").replace("\\right)", ")")
    if draw(st.booleans()):
        text = text.replace("(", "\\left(").replace(")", "\\right)") if "\\left" not in text else text
    wrap = draw(st.sampled_from(["bare", "boxed", "stated", "dollars"]))
    if wrap == "boxed":
        return f"We simplify step by step and collect terms.\nSo the result is $\\boxed{{{text}}}$."
    if wrap == "stated":
        return f"Combining everything, the answer is ${text}$."
    return f"${text}$" if wrap == "dollars" else text


@st.composite
def near_misses(draw: st.DrawFn, expr: Any) -> Any:
    """A non-equivalent neighbour of ``expr``: off by one, sign flip, doubled, dropped term."""
    options = [expr + 1, expr - 1]
    if expr != 0:
        options += [-expr, 2 * expr]
    terms = sympy.Add.make_args(sympy.expand(expr))
    if len(terms) > 1:
        options.append(sympy.Add(*terms[1:]))
    miss = draw(st.sampled_from(options))
    if sympy.simplify(miss - expr) == 0:  # dropped term that was zero, say
        miss = expr + 1
    return miss
