"""``rollouts.jsonl``: every training rollout as a row (``GRPOTrainer(rollout_log=True)``,
``grpo-envs train --rollout-log``): a `grpo_envs.RolloutRecord` with its step, the row eval's
``samples.jsonl`` holds per sample (both made by `record_of`), so ``grpo-envs audit`` re-judges
what the policy was trained on. Written by the main rank after each step; a resumed run drops
the rows after its checkpoint's step, as it does for ``metrics.jsonl``."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grpo_envs import Judgement, RolloutRecord
from verifiers import VerifyResult

if TYPE_CHECKING:
    from trainer.rollouts._rollout import Rollout

__all__ = ["RolloutLog", "record_of"]


class RolloutLog:
    """Appends each step's rollouts to ``path``; ``make_env`` gives the env that reads each task's
    prompt and reference back from its seed (its own instance: the rollouts' envs are left alone)."""

    def __init__(self, path: Path, make_env: Callable[[], Any], resume_step: int = 0) -> None:
        self.path, self._make_env = path, make_env
        self._env: Any = None
        if path.exists():
            kept = [line for line in path.read_text().splitlines() if _step(line) <= resume_step]
            path.write_text("".join(line + "\n" for line in kept))

    def write(self, step: int, seeds: Sequence[int], groups: Sequence[Sequence[Any]], level: int | None = None) -> None:
        """One row per rollout of ``groups`` (one group per seed, in order); ``level``: the env's
        difficulty level the step used (``sampling.curriculum``), so the rows show its tasks."""
        if self._env is None:
            self._env = self._make_env()
        if level is not None:
            self._env.unwrapped.set_level(level)
        lines = []
        for seed, group in zip(seeds, groups, strict=True):
            task = _task(self._env, seed)
            for j, r in enumerate(group):
                lines.append(json.dumps(record_of(r, task_seed=seed, sample=j, step=step, **task).to_json()))
        with open(self.path, "a") as f:
            f.write("".join(line + "\n" for line in lines))


def record_of(
    r: Rollout,
    *,
    task_seed: int,
    sample: int,
    task_id: str,
    prompt: str,
    reference: Any,
    attributes: Mapping[str, Any] | None = None,
    step: int | None = None,
) -> RolloutRecord:
    """``r`` as the row eval and the rollout log store: its last verdict with the rollout's reward
    and reward parts (summed over turns, shaped), the task's seed, id, prompt and reference."""
    last = r.judgement or Judgement(0.0, VerifyResult.judged("no_answer", ""), {}, task_id, "", 0, "")
    verdict = replace(last, reward=r.reward or 0.0, reward_parts=r.reward_parts, task_id=task_id)
    return RolloutRecord(
        r.text, verdict, r.reward, task_seed, sample, task_id, prompt, reference, r.generated, r.truncated,
        attributes or {}, step,
    )  # fmt: skip


def _task(env: Any, seed: int) -> dict[str, Any]:
    prompt, _ = env.reset(seed=seed)
    task: Any = getattr(env.unwrapped, "task", None)
    return {"task_id": getattr(task, "task_id", f"seed-{seed}"), "prompt": str(prompt), "reference": reference_of(env)}


def reference_of(env: Any) -> Any:
    """The current task's reference when it is JSON (a math answer, a code env's tests), else None:
    what a record stores for `audit` to re-judge against (rollout logs and eval samples alike)."""
    task: Any = getattr(env.unwrapped, "task", None)
    plain = task.to_dict()["answer"] if hasattr(task, "to_dict") else getattr(task, "answer", None)
    try:
        json.dumps(plain)
    except (TypeError, ValueError):
        return None
    return plain


def _step(line: str) -> int:
    try:
        return int(json.loads(line).get("step", 0))
    except (ValueError, AttributeError):
        return 1 << 62  # a torn line: dropped
