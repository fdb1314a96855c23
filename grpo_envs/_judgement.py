"""`Judgement`: the verdict on one completion, as one value from the env to every consumer."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, get_args

from verifiers import Status, VerifyResult

__all__ = ["Judgement"]


@dataclass(frozen=True)
class Judgement:
    """The verdict on one completion of a task: its reward, what the verifier said, the
    rubric's parts of the reward, and where it came from.

    Built once, by the env (`ReasoningEnv.judgements`), and carried as is: ``env.step`` gives it
    in ``info["judgement"]``, `GroupScore`, the trainer's rollouts, the adapters and eval hold it;
    `info` renders it as Gymnasium's flat ``info`` keys. A third-party env's step gets one built
    once, where it enters (`of_step`).

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

    def __reduce__(self) -> tuple[type[Judgement], tuple[object, ...]]:
        """Pickle as the fields (a mapping proxy does not pickle): verdicts cross processes."""
        fields = (self.reward, self.result, dict(self.reward_parts), self.task_id, self.env_id, self.env_version)
        return (type(self), (*fields, self.verifier, self.group_id))

    @classmethod
    def of_step(cls, reward: Any, info: Any, *, env_id: str = "") -> Judgement:
        """The verdict of one ``env.step``: the env's own ``info["judgement"]`` (our envs), else
        one built, once, from what any other Gymnasium env gives: its ``correct`` (a bool), a
        known ``status``, else the testing kit's reading of a bare reward (correct at 1.0, as a
        `Verifier` reads a float), with its ``reason`` and ``reward_parts``. A reward that is
        None or NaN is an error verdict: nobody judged the step.

        Examples:
            >>> Judgement.of_step(0.5, {}).status, Judgement.of_step(1.0, {"reason": "done"}).correct
            ('incorrect', True)
            >>> Judgement.of_step(float("nan"), {"correct": True}).judged
            False
        """
        info = info if isinstance(info, Mapping) else {}
        own = info.get("judgement")
        if isinstance(own, Judgement):
            return own
        try:
            value = float(reward)
        except (TypeError, ValueError):
            value = math.nan
        reason = str(info.get("reason") or "")
        if math.isnan(value):
            result = VerifyResult.judged("error", reason or f"The environment gave no reward ({reward!r}).", reward=0.0)
        else:
            status = _status(info.get("correct"), info.get("status"), value)
            reason = reason or f"The environment gave reward {value:g}."
            extracted = info.get("extracted") if isinstance(info.get("extracted"), str) else None
            result = VerifyResult.judged(status, reason, reward=value, extracted=extracted)
        parts = info.get("reward_parts")
        parts = (
            {str(k): float(v) for k, v in parts.items() if isinstance(v, int | float)}
            if isinstance(parts, Mapping)
            else {}
        )
        version = info.get("env_version")
        return cls(
            result.reward,
            result,
            parts,
            str(info.get("task_id") or ""),
            str(info.get("env_id") or env_id),
            version if isinstance(version, int) else 0,
            "env-reward",
            info.get("group_id") if isinstance(info.get("group_id"), str) else None,
        )

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

    def to_json(self) -> dict[str, Any]:
        """The verdict as plain JSON values: its reward and its `info` keys. The one serialisation
        of a verdict: the OpenEnv server sends it, eval's and the trainer's rows store it
        (`RolloutRecord`); `from_json` reads it back.

        Examples:
            >>> j = Judgement.of_step(1.0, {"reason": "done", "task_id": "t"})
            >>> Judgement.from_json(j.to_json()) == j
            True
        """
        return {"reward": self.reward, **self.info()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Judgement:
        """The verdict `to_json` wrote (a key it lacks takes its default: a row written before a key
        was added). The verifier's own reward is the rubric's ``correctness`` part (`Rubric`), else
        the reward. Raises ValueError on a status that is not a `Status`."""
        reward = float(data.get("reward") or 0.0)
        parts = {str(k): float(v) for k, v in dict(data.get("reward_parts") or {}).items()}
        extracted = data.get("extracted")
        result = VerifyResult.judged(
            data.get("status"),  # type: ignore[arg-type]  # checked by VerifyResult
            str(data.get("reason") or ""),
            extracted=None if extracted is None else str(extracted),
            reward=parts.get("correctness", reward),
            components={str(k): float(v) for k, v in dict(data.get("components") or {}).items()},
        )
        version, group_id = data.get("env_version"), data.get("group_id")
        return cls(
            reward,
            result,
            parts,
            str(data.get("task_id") or ""),
            str(data.get("env_id") or ""),
            version if isinstance(version, int) else 0,
            str(data.get("verifier") or ""),
            group_id if isinstance(group_id, str) else None,
        )

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


_STATUSES: dict[str, bool | None] = {s: VerifyResult.judged(s, "").correct for s in get_args(Status)}


def _status(correct: Any, status: Any, reward: float) -> Status:
    """The status a third-party env's step says: its ``status`` when known and consistent with its
    ``correct``; else its ``correct``; else the reward read as the testing kit reads a float."""
    if isinstance(correct, bool):
        if status in _STATUSES and _STATUSES[status] is correct:
            return status  # type: ignore[no-any-return]
        return "correct" if correct else "incorrect"
    if status in _STATUSES:
        return status  # type: ignore[no-any-return]
    return "correct" if reward == 1.0 else "incorrect"
