"""`VerifyResult`: what every verifier in the SDK returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

__all__ = ["STATUS_CORRECT", "Status", "VerifyResult"]

Status = Literal["correct", "incorrect", "no_answer", "unparseable", "timeout", "error"]

STATUS_CORRECT: Mapping[str, bool | None] = MappingProxyType(
    {
        "correct": True,
        "incorrect": False,
        "no_answer": False,
        "unparseable": False,
        "timeout": None,
        "error": None,
    }
)
"""Each status's ``correct`` (read-only): True or False for a verdict, None where nobody could
judge (``timeout``, ``error``: masked, never trained as 0). `VerifyResult` holds the two together."""


@dataclass(frozen=True)
class VerifyResult:
    """The judgement of one completion against one reference.

    Correctness (``correct``, ``status``) is kept apart from the shaped ``reward``: accuracy
    and pass@k read ``correct``, never ``reward > 0``. ``correct`` is True only with status
    "correct", False with "incorrect", "no_answer" and "unparseable" (the model's fault), and
    None with "timeout" and "error" (we could not judge).

    Examples:
        >>> r = VerifyResult.judged("correct", "3/6 equals 1/2.", extracted="3/6")
        >>> (r.reward, r.correct, r.status)
        (1.0, True, 'correct')
        >>> VerifyResult.judged("timeout", "Timed out after 5.0 s.").correct is None
        True
    """

    reward: float
    correct: bool | None
    status: Status
    reason: str
    extracted: str | None = None
    components: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.status not in STATUS_CORRECT:
            raise ValueError(f"status must be one of {sorted(STATUS_CORRECT)}, got {self.status!r}")
        if self.correct is not STATUS_CORRECT[self.status]:
            raise ValueError(
                f"status {self.status!r} requires correct={STATUS_CORRECT[self.status]!r}, got {self.correct!r}"
            )
        object.__setattr__(self, "components", MappingProxyType(dict(self.components)))

    def __reduce__(self) -> tuple[type[VerifyResult], tuple[object, ...]]:
        """Pickle as the fields (a mapping proxy does not pickle): results cross processes."""
        fields = (self.reward, self.correct, self.status, self.reason, self.extracted, dict(self.components))
        return (type(self), fields)

    @classmethod
    def judged(
        cls,
        status: Status,
        reason: str,
        *,
        extracted: str | None = None,
        reward: float | None = None,
        components: Mapping[str, float] | None = None,
    ) -> VerifyResult:
        """Build a result from its status; ``reward`` defaults to 1.0 if correct, else 0.0."""
        correct = STATUS_CORRECT.get(status)
        if reward is None:
            reward = 1.0 if correct else 0.0
        comps = {"correct": 1.0 if correct else 0.0} if components is None else components
        return cls(reward, correct, status, reason, extracted, comps)
