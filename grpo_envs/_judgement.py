"""`Judgement`: the verdict on one completion, as one value from the env to every consumer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from verifiers import VerifyResult

__all__ = ["Judgement"]


@dataclass(frozen=True)
class Judgement:
    """The verdict on one completion of a task: its reward, what the verifier said, the
    rubric's parts of the reward, and where it came from.

    Built once, by the env (`ReasoningEnv.judgements`); carried by `GroupScore`, the trainer's
    rollouts and the adapters; rendered into Gymnasium's ``info`` only by `info`.

    Examples:
        >>> import grpo_envs
        >>> group = grpo_envs.make_group("grpo_envs/Arithmetic-v0", seed=3, num_generations=2)
        >>> j = group.score([group.env.reference_completion(group.task), "no idea"]).judgements[0]
        >>> j.reward, j.correct, j.status, j.info()["env_id"]
        (1.0, True, 'correct', 'grpo_envs/Arithmetic-v0')
    """

    reward: float
    result: VerifyResult
    reward_parts: Mapping[str, float]
    task_id: str
    env_id: str
    env_version: int
    verifier: str  # "name:digest"
    group_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "reward_parts", MappingProxyType(dict(self.reward_parts)))

    @property
    def correct(self) -> bool | None:
        """True or False when judged; None when nobody could judge (timeout, error)."""
        return self.result.correct

    @property
    def judged(self) -> bool:
        """False for an infrastructure failure (timeout, error): nobody judged the completion, so
        trainers leave it out of its group's statistics and of the loss rather than train on a 0."""
        return self.result.correct is not None

    @property
    def status(self) -> str:
        return self.result.status

    @property
    def reason(self) -> str:
        return self.result.reason

    @property
    def extracted(self) -> str | None:
        return self.result.extracted

    @property
    def components(self) -> Mapping[str, float]:
        """The verifier's components of its verdict (the rubric's are `reward_parts`)."""
        return self.result.components

    def info(self) -> dict[str, Any]:
        """The verdict as Gymnasium ``info`` keys (plain values: JSON-serializable)."""
        out: dict[str, Any] = {
            "task_id": self.task_id,
            "env_id": self.env_id,
            "env_version": self.env_version,
            "correct": self.correct,
            "status": self.status,
            "reason": self.reason,
            "extracted": self.extracted,
            "components": dict(self.components),
            "reward_parts": dict(self.reward_parts),
            "verifier": self.verifier,
        }
        if self.group_id is not None:
            out["group_id"] = self.group_id
        return out
