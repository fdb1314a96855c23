"""``rollouts.jsonl``: every training rollout as a row (``GRPOTrainer(rollout_log=True)``,
``grpo-envs train --rollout-log``), the shape of eval's ``samples.jsonl`` plus the step, so
``grpo-envs audit`` re-judges what the policy was trained on. Written by the main rank after each
step; a resumed run drops the rows after its checkpoint's step, as it does for ``metrics.jsonl``."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["RolloutLog"]


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
                row = {"step": step, "task_seed": seed, "sample": j, **task, "completion": r.text}
                row.update(reward=r.reward, correct=r.correct, status=r.status, reason=r.reason)
                row.update(extracted=r.extracted, tokens=r.generated, truncated=r.truncated)
                if "overlong" in r.reward_parts:  # sampling.overlong: the penalty inside ``reward``
                    row["overlong"] = r.reward_parts["overlong"]
                lines.append(json.dumps(row))
        with open(self.path, "a") as f:
            f.write("".join(line + "\n" for line in lines))


def _task(env: Any, seed: int) -> dict[str, Any]:
    prompt, _ = env.reset(seed=seed)
    task: Any = getattr(env.unwrapped, "task", None)
    reference = task.to_dict()["answer"] if hasattr(task, "to_dict") else None
    try:
        json.dumps(reference)
    except (TypeError, ValueError):
        reference = None
    return {"task_id": getattr(task, "task_id", f"seed-{seed}"), "prompt": str(prompt), "reference": reference}


def _step(line: str) -> int:
    try:
        return int(json.loads(line).get("step", 0))
    except (ValueError, AttributeError):
        return 1 << 62  # a torn line: dropped
