"""Properties of verifiers.math: renderings of one value are equal, neighbours are not,
and no text makes it raise or run past its timeout."""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifiers import VerifyResult
from verifiers import math as vm
from verifiers.testing._math import (
    decimals,
    expressions,
    fractions,
    integers,
    near_misses,
    number_renderings,
    renderings,
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.data(), st.one_of(integers.map(Fraction), fractions, decimals))
def test_a_number_equals_all_its_renderings(data: st.DataObject, value: Fraction) -> None:
    gold = data.draw(number_renderings(value), label="gold")
    shown = data.draw(number_renderings(value), label="shown")
    completion = data.draw(
        st.sampled_from([shown, f"So the answer is {shown}.", f"Thus $\\boxed{{{shown.strip(' $')}}}$"])
    )
    result = vm.verify(gold, completion)
    assert result.correct, (gold, completion, result)


@SETTINGS
@given(st.data(), st.one_of(integers.map(Fraction), fractions, decimals))
def test_a_number_differs_from_its_neighbours(data: st.DataObject, value: Fraction) -> None:
    step = data.draw(st.sampled_from([Fraction(1), Fraction(1, 10**6), -value * 2 if value else Fraction(3)]))
    other = value + step
    gold = data.draw(number_renderings(value), label="gold")
    shown = data.draw(number_renderings(other), label="shown")
    result = vm.verify(gold, f"The answer is {shown}.")
    assert result.status == "incorrect", (gold, shown, result)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), expressions)
def test_an_expression_equals_its_renderings(data: st.DataObject, expr: Any) -> None:
    gold = sympy.latex(expr)
    completion = data.draw(renderings(expr))
    result = vm.verify(gold, completion, timeout_s=10)
    assert result.correct, (gold, completion, result)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), expressions)
def test_an_expression_differs_from_its_near_misses(data: st.DataObject, expr: Any) -> None:
    miss = data.draw(near_misses(expr))
    result = vm.verify(sympy.latex(expr), f"Hence $\\boxed{{{sympy.latex(miss)}}}$.", timeout_s=10)
    assert result.status == "incorrect", (expr, miss, result)


@pytest.mark.serial
@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["5", r"\frac{1}{2}", "x^2+1", r"[0, 1)", r"\text{Monday}"]),
    st.one_of(
        st.text(max_size=300),
        st.text(alphabet="\\{}()[]^_$0123456789xe+-*/=.,!| boxedfracsqrt", max_size=300),
        st.text(max_size=80).map(lambda t: f"\\boxed{{{t}}}"),
    ),
)
def test_arbitrary_text_never_raises_nor_hangs(gold: str, completion: str) -> None:
    start = time.monotonic()
    result = vm.verify(gold, completion, timeout_s=2.0)
    assert isinstance(result, VerifyResult)
    assert result.status != "error", result
    assert time.monotonic() - start < 3.0


@SETTINGS
@given(st.data())
def test_every_gold_the_kit_draws_equals_itself_in_every_rendering(data: st.DataObject) -> None:
    """Reflexivity as a property: a gold of every kind the testing kit draws (numbers,
    expressions, sets, intervals, matrices, pairs), stated as the answer in each form, and each of
    its renderings, is correct."""
    from verifiers.testing import as_the_answer, math_problems

    problem = data.draw(math_problems(), label="problem")
    stated = data.draw(as_the_answer(problem.gold), label="stated")
    result = vm.verify(problem.gold, stated)
    assert result.correct, (problem.gold, stated, result)
    rendered = data.draw(problem.renderings, label="rendered")
    result = vm.verify(problem.gold, rendered)
    assert result.correct, (problem.gold, rendered, result)
