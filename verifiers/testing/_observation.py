"""`Observation`: one call of a verifier under test, normalized from whatever it returned (shared by
the laws and the runner that calls verifiers in threads or worker processes)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from verifiers.result import STATUS_CORRECT, VerifyResult

__all__ = ["Observation"]


@dataclass(frozen=True)
class Observation:
    """One call's outcome, normalized from whatever the verifier returned."""

    correct: bool | None
    reward: float
    status: str | None
    reason: str
    error: str | None = None
    timed_out: bool = False
    consistent: bool = True
    skipped: bool = False  # not called: the run's budget for a slow verifier (`check_verifier`)

    def key(self) -> tuple[Any, ...]:
        return (self.correct, round(self.reward, 9), self.status, self.error)

    def describe(self) -> str:
        said = f"status={self.status}, correct={self.correct}, reward={self.reward:g}"
        return f"{said}; reason: {self.reason}" if self.reason else said


def _normalize(value: Any, top: float) -> Observation:
    if isinstance(value, VerifyResult):
        consistent = STATUS_CORRECT.get(value.status, "?") is value.correct
        return Observation(value.correct, float(value.reward), value.status, value.reason, consistent=consistent)
    if isinstance(value, bool):
        return Observation(value, float(value), None, "")
    if isinstance(value, (int, float)):
        return Observation(float(value) == top, float(value), None, "")
    return Observation(
        None, math.nan, None, "", error=f"returned a {type(value).__name__}, not a VerifyResult/bool/float"
    )
