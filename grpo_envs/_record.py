"""`RolloutRecord`: one rollout with its verdict, as one JSON row.

The one serialisation of a judged completion: eval writes one per sample (``samples.jsonl``), the
trainer one per training rollout (``rollouts.jsonl``, with its step); ``eval --resume`` and
``grpo-envs audit`` read them back with `RolloutRecord.from_json`, rows written before a key was
added included. The verdict's part of the row is `Judgement.to_json`, the same keys the OpenEnv
server sends.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from grpo_envs._judgement import Judgement

__all__ = ["RolloutRecord"]


@dataclass(frozen=True)
class RolloutRecord:
    """One completion (or multi-turn episode) of one task and its verdict, as stored.

    ``judgement`` is the last turn's verdict with the rollout's reward parts (summed over turns,
    the trainer's overlong shaping included); ``reward`` is the rollout's reward (summed over
    turns, shaped; None when a turn gave none). ``reference`` is the task's reference when it is
    JSON (what `audit` re-judges against); ``step`` is the training step (rollout logs only);
    ``overlong`` is the overlong penalty inside ``reward`` (shaped runs only).

    Examples:
        >>> import grpo_envs
        >>> group = grpo_envs.make_group("grpo_envs/Arithmetic-v0", seed=3, num_generations=2)
        >>> j = group.score(["no idea", "no idea"]).judgements[0]
        >>> record = RolloutRecord("no idea", j, j.reward, task_seed=3, sample=0, task_id=j.task_id)
        >>> row = record.to_json()
        >>> row["status"], row["reward"], RolloutRecord.from_json(row) == record
        ('incorrect', 0.0, True)
    """

    completion: str
    judgement: Judgement
    reward: float | None
    task_seed: int | None = None
    sample: int | None = None
    task_id: str = ""
    prompt: str | None = None
    reference: Any = None
    tokens: int = 0
    truncated: bool = False
    attributes: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    step: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "attributes", MappingProxyType(dict(self.attributes)))

    def __reduce__(self) -> tuple[type[RolloutRecord], tuple[object, ...]]:
        """Pickle as the fields (a mapping proxy does not pickle)."""
        head = (self.completion, self.judgement, self.reward, self.task_seed, self.sample, self.task_id)
        tail = (self.prompt, self.reference, self.tokens, self.truncated, dict(self.attributes), self.step)
        return (type(self), (*head, *tail))

    @property
    def overlong(self) -> float | None:
        """The overlong penalty inside ``reward`` (None: the run did not shape it)."""
        return self.judgement.reward_parts.get("overlong")

    def to_json(self) -> dict[str, Any]:
        """The row: the task's keys, the completion, the verdict (`Judgement.to_json`) with the
        rollout's ``reward``, its length, and ``overlong`` when the run shaped it."""
        row: dict[str, Any] = {} if self.step is None else {"step": self.step}
        row |= {"task_seed": self.task_seed, "task_id": self.task_id, "sample": self.sample, "prompt": self.prompt}
        row |= {"reference": self.reference, "completion": self.completion}
        row |= {**self.judgement.to_json(), "task_id": self.task_id, "reward": self.reward}
        row |= {"tokens": self.tokens, "truncated": self.truncated, "attributes": dict(self.attributes)}
        if self.overlong is not None:
            row["overlong"] = self.overlong  # the penalty inside ``reward``, beside it
        return row

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> RolloutRecord:
        """The record `to_json` wrote, or a row written before it (no verdict provenance, no
        reward parts: ``overlong`` is then its own key). Raises ValueError on an unknown status."""
        judgement = Judgement.from_json(row)
        if row.get("overlong") is not None and "overlong" not in judgement.reward_parts:
            parts = {**judgement.reward_parts, "overlong": float(row["overlong"])}
            judgement = Judgement.from_json({**row, "reward_parts": parts})
        reward = row.get("reward")
        step = row.get("step")
        return cls(
            completion=str(row.get("completion") or ""),
            judgement=judgement,
            reward=None if reward is None else float(reward),
            task_seed=_int(row.get("task_seed")),
            sample=_int(row.get("sample")),
            task_id=str(row.get("task_id") or ""),
            prompt=None if row.get("prompt") is None else str(row["prompt"]),
            reference=row.get("reference"),
            tokens=int(row.get("tokens") or 0),
            truncated=bool(row.get("truncated")),
            attributes=dict(row.get("attributes") or {}),
            step=None if step is None else int(step),
        )


def _int(value: Any) -> int | None:
    return None if value is None else int(value)
