"""The laws a verifier must keep, one function each, for use inside your own Hypothesis tests.

Each law takes ``verify(reference, completion)`` (returning a `VerifyResult`, a bool, or a float
that is correct when it equals the top of ``reward_range``) and one example, calls the verifier
under a watchdog thread that abandons it after ``latency_s``, and raises `LawBroken` (an
``AssertionError``) when the law does not hold. A call that times out breaks `latency` only; the
other laws ``hypothesis.reject()`` that example (inside ``@given``, Hypothesis draws another).

Examples:
    >>> from hypothesis import given, settings, strategies as st
    >>> from verifiers import math as vm
    >>> from verifiers.testing import laws, math_problems
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(math_problems(), st.data())
    ... def test_renderings_score_correct(problem, data):
    ...     laws.rendering_invariance(vm.verify, problem.gold, data.draw(problem.renderings))
    >>> test_renderings_score_correct()
"""

from __future__ import annotations

from verifiers.testing._laws import (
    LAWS,
    LawBroken,
    consistency,
    determinism,
    discrimination,
    gaming_resistance,
    injections_never_pay,
    latency,
    reflexivity,
    rendering_invariance,
    reward_range,
    thinking_never_counts,
    totality,
)

__all__ = [
    "LAWS",
    "LawBroken",
    "consistency",
    "determinism",
    "discrimination",
    "gaming_resistance",
    "injections_never_pay",
    "latency",
    "reflexivity",
    "rendering_invariance",
    "reward_range",
    "thinking_never_counts",
    "totality",
]
