"""Properties of verifiers.math: renderings of one value are equal, neighbours are not,
and no text makes it raise or run past its timeout."""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, NamedTuple

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


# -- what equals what (issue #36): each new form, its other writing, and a look-alike ---------
class Form(NamedTuple):
    gold: str
    same: str  # the same answer written another way
    trap: str  # a look-alike that must stay unequal


_three_digits = st.integers(101, 999).filter(lambda n: n % 100 != 0)
_small = st.integers(-20, 20)


@st.composite
def _brackets(draw: st.DrawFn) -> Form:
    values = draw(st.lists(_three_digits, min_size=2, max_size=4, unique=True))
    tight, spaced = ",".join(map(str, values)), ", ".join(map(str, values))
    swapped = ", ".join(map(str, [values[1], values[0], *values[2:]]))
    return Form(f"({tight})", f"({spaced})", f"({swapped})")


@st.composite
def _vectors(draw: st.DrawFn) -> Form:
    values = draw(st.lists(_small, min_size=2, max_size=4).filter(lambda v: v != v[::-1]))
    joiner = draw(st.sampled_from([r" \\ ", " & "]))
    vector = r"\begin{pmatrix} " + joiner.join(map(str, values)) + r" \end{pmatrix}"
    return Form(vector, "(" + ", ".join(map(str, values)) + ")", "(" + ", ".join(map(str, values[::-1])) + ")")


def _suffix(n: int) -> str:
    return "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


@st.composite
def _ordinals(draw: st.DrawFn) -> Form:
    n = draw(st.integers(1, 300))
    written = draw(st.sampled_from([f"{n}^{{\\text{{{_suffix(n)}}}}}", f"{n}{_suffix(n)}", f"{n}^{{{_suffix(n)}}}"]))
    return Form(written, str(n), str(n + 1))


@st.composite
def _functions(draw: st.DrawFn) -> Form:
    name, other = draw(st.lists(st.sampled_from("fghpq"), min_size=2, max_size=2, unique=True))
    x, y = draw(st.lists(st.sampled_from("xtsuv"), min_size=2, max_size=2, unique=True))
    a, b = draw(st.integers(1, 9)), draw(_small)
    body = f"{a}{{v}}^2 + {b}{{v}}".replace("+ -", "- ")
    gold = f"{name}({x}) = " + body.format(v=x)
    return Form(gold, f"{name}({y}) = " + body.format(v=y), f"{other}({x}) = " + body.format(v=x))


@st.composite
def _labels(draw: st.DrawFn) -> Form:
    first, second = draw(st.sampled_from([("Minimum", "Maximum"), ("Width", "Height"), ("Speed", "Distance")]))
    a, b = draw(st.lists(_small, min_size=2, max_size=2, unique=True))
    gold = f"{first}: {a}, {second}: {b}"
    return Form(gold, draw(st.sampled_from([f"{a}, {b}", f"{second}: {b}, {first}: {a}"])), f"{b}, {a}")


@st.composite
def _ranges(draw: st.DrawFn) -> Form:
    a, b = sorted(draw(st.lists(_small, min_size=2, max_size=2, unique=True)))
    if draw(st.booleans()):  # a set written by its condition
        return Form(f"({a}, {b})", rf"\{{x \mid {a} < x < {b}\}}", rf"\{{x \mid {a} \le x < {b}\}}")
    union = rf"(-\infty, {a}) \cup [{b}, \infty)"
    same = draw(st.sampled_from([rf"x < {a} \text{{ or }} x \ge {b}", rf"x \ge {b} \text{{ or }} x < {a}"]))
    return Form(draw(st.sampled_from([union, same])), union, rf"x < {a} \text{{ and }} x \ge {b}")


@st.composite
def _notes(draw: st.DrawFn) -> Form:
    p, q = draw(st.integers(1, 50)), draw(st.sampled_from([3, 7, 9, 11]))
    if p % q == 0:
        p += 1
    note = draw(st.sampled_from([rf"\approx {p / q:.2f}", rf"\text{{ (about {p / q:.2f})}}"]))
    return Form(rf"\frac{{{p}}}{{{q}}} {note}", rf"\frac{{{2 * p}}}{{{2 * q}}}", f"{p / q:.2f}")


NEW_FORMS = st.one_of(_brackets(), _vectors(), _ordinals(), _functions(), _labels(), _ranges(), _notes())


@SETTINGS
@given(st.data(), NEW_FORMS)
def test_every_new_form_equals_itself_stated_in_every_form(data: st.DataObject, form: Form) -> None:
    """Reflexivity as a property for the forms of issue #36 (brackets of unspaced commas,
    vectors, ordinals, function definitions, labelled values, set-builder sets, unions written
    with "or", golds with a note), stated as models state answers, and as one display block."""
    from verifiers.testing import as_the_answer

    stated = data.draw(st.one_of(as_the_answer(form.gold), st.just(f"\\[\n{form.gold}\n\\]")), label="stated")
    result = vm.verify(form.gold, stated)
    assert result.correct, (form.gold, stated, result)


@SETTINGS
@given(NEW_FORMS)
def test_every_new_form_equals_its_other_writing_and_never_its_look_alike(form: Form) -> None:
    same = vm.verify(form.gold, f"So the answer is $\\boxed{{{form.same}}}$.")
    assert same.correct, (form, same)
    trap = vm.verify(form.gold, f"So the answer is $\\boxed{{{form.trap}}}$.")
    assert trap.status == "incorrect", (form, trap)


@SETTINGS
@given(st.lists(st.integers(1, 99), min_size=2, max_size=3, unique=True), st.data())
def test_a_gold_of_boxes_apart_by_labels_equals_itself(values: list[int], data: st.DataObject) -> None:
    from verifiers.testing import as_the_answer

    labels = ["red", "blue", "green"]
    gold = " and ".join(f"\\boxed{{{v}}} {label}" for v, label in zip(values, labels, strict=False))
    stated = data.draw(as_the_answer(gold), label="stated")
    assert vm.verify(gold, stated).correct, (gold, stated)
    assert vm.verify(gold, "\\boxed{" + ", ".join(map(str, values)) + "}").correct
    assert vm.verify(gold, "\\boxed{" + ", ".join(map(str, [v + 1 for v in values])) + "}").status == "incorrect"
