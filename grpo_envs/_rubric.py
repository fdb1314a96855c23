"""`Rubric`: rewards as weighted functions; `None` means "not applicable", not zero."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grpo_envs._formats import AnswerFormat
from grpo_envs.errors import GrpoEnvsError

__all__ = ["RewardTerm", "Rubric", "format_reward", "length_penalty"]

RewardFn = Callable[[Any, str, Any], "float | None"]  # (task, completion, VerifyResult)


@dataclass(frozen=True)
class RewardTerm:
    """One weighted reward function ``fn(task, completion, result) -> float | None``."""

    name: str
    fn: RewardFn
    weight: float = 1.0


def format_reward(answer_format: AnswerFormat, weight: float = 0.1) -> RewardTerm:
    """1.0 when the completion follows ``answer_format``, else 0.0."""
    return RewardTerm(
        "format",
        lambda task, completion, result: float(answer_format.well_formed(completion)),
        weight,
    )


def length_penalty(max_chars: int, weight: float = 0.1) -> RewardTerm:
    """1.0 for completions up to ``max_chars``, falling linearly to 0 at twice that."""

    def fn(task: Any, completion: str, result: Any) -> float:
        over = max(0, len(completion) - max_chars)
        return max(0.0, 1.0 - over / max_chars)

    return RewardTerm("length", fn, weight)


@dataclass(frozen=True)
class Rubric:
    """The reward of a completion: the verifier's reward (term "correctness") and extra terms.

    The reward is the weighted mean over the terms that apply (a term returning None is left
    out and the weights are renormalised). ``correct`` always comes from the verifier alone.

    Examples:
        >>> from grpo_envs import BOXED, Rubric, format_reward
        >>> from verifiers import VerifyResult
        >>> rubric = Rubric(terms=(format_reward(BOXED, weight=1.0),))
        >>> rubric.score(None, "\\\\boxed{4}", VerifyResult.judged("incorrect", "no."))
        (0.5, {'correctness': 0.0, 'format': 1.0})
    """

    terms: tuple[RewardTerm, ...] = ()
    correctness_weight: float = 1.0

    def __post_init__(self) -> None:
        names = [t.name for t in self.terms]
        if "correctness" in names or len(set(names)) != len(names):
            raise GrpoEnvsError(f"rubric term names must be unique and not 'correctness': {names}")
        if self.correctness_weight < 0 or any(t.weight < 0 for t in self.terms):
            raise GrpoEnvsError("rubric weights must be >= 0")

    def score(self, task: Any, completion: str, result: Any) -> tuple[float, dict[str, float]]:
        parts: dict[str, float] = {"correctness": float(result.reward)}
        weights = {"correctness": self.correctness_weight}
        for term in self.terms:
            value = term.fn(task, completion, result)
            if value is not None:
                parts[term.name] = float(value)
                weights[term.name] = term.weight
        total = sum(weights.values())
        reward = sum(parts[k] * weights[k] for k in parts) / total if total else 0.0
        return reward, parts
