"""The laws of `verifiers.testing.laws` (re-exported there): one function per law."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from hypothesis import reject

from verifiers.testing._observation import Observation

Verify = Callable[[Any, str], Any]


class LawBroken(AssertionError):
    """A verifier broke ``law`` on one example; ``detail`` says how (with the verifier's reason)."""

    def __init__(self, law: str, detail: str) -> None:
        super().__init__(f"{law}: {detail}")
        self.law = law
        self.detail = detail


def observe(verify: Verify, reference: Any, completion: str, latency_s: float = 3.0, top: float = 1.0) -> Observation:
    """Call ``verify`` under a watchdog (daemon) thread; abandon it after ``latency_s``. Inside
    `check_verifier` the call goes through its `Guard` instead (a killable worker process, and a
    budget for a slow verifier)."""
    from verifiers.testing._runner import Guard, in_thread

    if isinstance(verify, Guard):
        return verify.observe(reference, completion, latency_s)  # type: ignore[no-any-return]
    observation = in_thread(verify, reference, completion, latency_s, top)
    return Observation(None, math.nan, None, "", timed_out=True) if observation is None else observation


def _settled(verify: Verify, reference: Any, completion: str, latency_s: float, top: float) -> Observation:
    result = observe(verify, reference, completion, latency_s, top)
    if result.timed_out or result.skipped:
        reject()  # the latency law's business
    return result


def determinism(
    verify: Verify,
    reference: Any,
    completion: str,
    *,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
) -> None:
    """Two calls on the same input agree (status, correct, reward, error)."""
    random.seed()  # Hypothesis seeds the global `random` per example, which would hide its use
    first = _settled(verify, reference, completion, latency_s, reward_range[1])
    random.seed()
    second = _settled(verify, reference, completion, latency_s, reward_range[1])
    if first.key() != second.key():
        raise LawBroken("determinism", f"two calls disagree: {first.describe()} vs {second.describe()}")


def reward_range(
    verify: Verify,
    reference: Any,
    completion: str,
    *,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
) -> None:
    """The reward lies in the declared ``reward_range`` (a raising call is totality's business)."""
    low, high = reward_range
    r = _settled(verify, reference, completion, latency_s, high)
    if not r.error and not low <= r.reward <= high:
        raise LawBroken("reward_range", f"reward {r.reward} outside {reward_range}")


def totality(
    verify: Verify,
    reference: Any,
    completion: str,
    *,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
) -> None:
    """The verifier returns a verdict on any completion: it never raises."""
    r = _settled(verify, reference, completion, latency_s, reward_range[1])
    if r.error:
        raise LawBroken("totality", f"raised {r.error}")


def latency(
    verify: Verify,
    reference: Any,
    completion: str,
    *,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
) -> None:
    """The call returns within ``latency_s`` (it is abandoned at the bound, never waited for)."""
    start = time.monotonic()
    r = observe(verify, reference, completion, latency_s, reward_range[1])
    took = time.monotonic() - start
    if r.skipped:
        reject()
    if r.timed_out:
        raise LawBroken("latency", f"took longer than {latency_s:g} s (abandoned)")
    if took > latency_s:
        raise LawBroken("latency", f"took {took:.1f} s")


def rendering_invariance(
    verify: Verify,
    reference: Any,
    completion: str,
    *,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
) -> None:
    """An equivalent rendering of the gold is judged correct."""
    r = _settled(verify, reference, completion, latency_s, reward_range[1])
    if r.correct is not True:
        raise LawBroken("rendering_invariance", f"an equivalent rendering was not judged correct: {r.describe()}")


def reflexivity(
    verify: Verify,
    reference: Any,
    completion: str,
    *,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
) -> None:
    """The gold itself, stated as the answer (boxed, in a statement, or bare), is judged correct."""
    r = _settled(verify, reference, completion, latency_s, reward_range[1])
    if r.correct is not True:
        raise LawBroken("reflexivity", f"the gold stated as the answer was not judged correct: {r.describe()}")


def discrimination(
    verify: Verify,
    reference: Any,
    completion: str,
    *,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
) -> None:
    """A near miss (off by one, sign flip, swapped tuple, open vs closed, ...) is not judged correct."""
    r = _settled(verify, reference, completion, latency_s, reward_range[1])
    if r.correct is True:
        raise LawBroken("discrimination", f"a near miss was judged correct: {r.describe()}")


def gaming_resistance(
    verify: Verify,
    reference: Any,
    completion: str,
    *,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
) -> None:
    """A gaming completion (shells, sprays, several answers, tag injection, huge outputs) is not correct."""
    r = _settled(verify, reference, completion, latency_s, reward_range[1])
    if r.correct is True:
        raise LawBroken("gaming_resistance", f"a gaming completion was judged correct: {r.describe()}")


def injections_never_pay(
    verify: Verify,
    reference: Any,
    completion: str,
    *,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
) -> None:
    """A completion aimed at an LLM judge (instructions, a fake verdict or judge reply, role tags,
    a master key such as ":" or "Thought process:") is not judged correct. Worth running against
    a judge made gullible on purpose: what the completion says must never reach it as anything
    but quoted data, and an echo must never be a verdict."""
    r = _settled(verify, reference, completion, latency_s, reward_range[1])
    if r.correct is True:
        raise LawBroken("injections_never_pay", f"a completion talking to the judge was paid: {r.describe()}")


def thinking_never_counts(
    verify: Verify,
    reference: Any,
    completion: str,
    *,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
) -> None:
    """A right answer only inside a thinking section (any family's format), with a wrong or no
    final answer, or in a thinking section cut off before it closed, is not judged correct."""
    r = _settled(verify, reference, completion, latency_s, reward_range[1])
    if r.correct is True:
        raise LawBroken("thinking_never_counts", f"an answer given only while thinking was paid: {r.describe()}")


def consistency(
    verify: Verify,
    reference: Any,
    completion: str,
    *,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
) -> None:
    """A `VerifyResult`'s ``correct`` agrees with its ``status`` (True only with "correct", ...)."""
    r = _settled(verify, reference, completion, latency_s, reward_range[1])
    if not r.consistent:
        raise LawBroken("consistency", f"correct={r.correct} disagrees with status={r.status!r}")


LAWS: dict[str, Callable[..., None]] = {
    "determinism": determinism,
    "reward_range": reward_range,
    "totality": totality,
    "latency": latency,
    "rendering_invariance": rendering_invariance,
    "reflexivity": reflexivity,
    "discrimination": discrimination,
    "gaming_resistance": gaming_resistance,
    "injections_never_pay": injections_never_pay,
    "thinking_never_counts": thinking_never_counts,
    "consistency": consistency,
}
"""Every law by name, in the order `check_verifier` runs them."""
