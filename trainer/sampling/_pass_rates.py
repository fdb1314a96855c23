"""An online filter of tasks by their own pass rate (``sampling.pass_rate_filter``; prime-rl's
online difficulty filtering): tasks at the edge of what the model can do.

Each sampled task's pass rate (the share of its judged completions that were correct) is kept by
task id with the step it was seen at. A task whose last pass rate is at or above ``skip_above``
(always solved) or at or below ``skip_below`` (never solved) is not sampled again until
``revisit_after`` steps have passed; a seed that draws it is replaced by another seed (from a
stream of its own, seeded by (seed, step, round)), so a step keeps its count. It needs tasks that
recur: a dataset env over epochs, or a procedural env whose task ids are its content (Digits: 400
tasks). A procedural env that draws a fresh task per seed (Arithmetic, Countdown, Sorting... whose
task ids carry the seed's random bits) never meets a task twice, so the filter skips nothing
there, only remembers. The table is part of a checkpoint: a resumed run continues it exactly.
With rollout workers (``async_level = k``) a step's seeds are picked when its job is sent (from the
table as the learner has it then, k steps behind) and its batch is recorded when it comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grpo_envs import stable_seed
from trainer.rollouts._rollout import Rollout
from trainer.sampling._config import SamplingConfig

__all__ = ["PassRates", "task_id_of"]

MAX_DRAWS = 8  # replacement seeds tried per skipped seed before the step takes a skipped task after all


def task_id_of(env: Any, *, cache_size: int = 100_000) -> Callable[[int], str]:
    """Seed -> the task id ``env`` makes of it at its current level (``seed-N`` for an env without
    task ids), remembered (up to ``cache_size`` seeds; the table is emptied when full)."""
    base = env.unwrapped
    names = sorted({name for level in getattr(base, "levels", ()) for name in level})
    cache: dict[tuple[Any, ...], str] = {}

    def task_of(seed: int) -> str:
        key = (int(seed), *(repr(getattr(base, name, None)) for name in names))
        if key not in cache:
            if len(cache) >= cache_size:
                cache.clear()
            env.reset(seed=int(seed))
            cache[key] = str(getattr(getattr(base, "task", None), "task_id", f"seed-{seed}"))
        return cache[key]

    return task_of


class PassRates:
    """Task id -> (pass rate when last sampled, that step).

    Examples:
        >>> rates = PassRates(SamplingConfig(pass_rate_filter=True, revisit_after=10), task_of=str, seed=0)
        >>> rates.table["7"] = (1.0, 3)
        >>> rates.skip("7", step=5), rates.skip("7", step=13), rates.skip("8", step=5)
        (True, False, False)
    """

    def __init__(self, cfg: SamplingConfig, *, task_of: Callable[[int], str], seed: int) -> None:
        self.cfg, self.task_of, self.seed = cfg, task_of, seed
        self.table: dict[str, tuple[float, int]] = {}
        self.skipped = 0  # seeds replaced for the current step (its caller counts them: `DynamicSampler`)

    def skip(self, task: str, step: int) -> bool:
        seen = self.table.get(task)
        if seen is None or step - seen[1] >= self.cfg.revisit_after:
            return False
        return seen[0] >= self.cfg.skip_above or seen[0] <= self.cfg.skip_below

    def pick(self, seeds: list[int], step: int, round_: int) -> list[int]:
        """``seeds`` with each seed of a skipped task replaced by the next seed of a task not skipped
        (not counted here: the step that uses them adds them to ``skipped``)."""
        picked, k = [], 0
        for s in seeds:
            chosen = s
            for _ in range(MAX_DRAWS):
                if not self.skip(self.task_of(chosen), step):
                    break
                chosen = stable_seed(self.seed, "edge", step, round_, k) % (2**31)
                k += 1
            else:
                chosen = s  # every draw was skipped: the step takes the task after all
            picked.append(chosen)
        return picked

    def record(self, seeds: list[int], groups: list[list[Rollout]], step: int) -> None:
        for s, group in zip(seeds, groups, strict=True):
            judged = [r for r in group if r.judged]
            if judged:
                self.table[self.task_of(s)] = (sum(r.correct is True for r in judged) / len(judged), step)

    def metrics(self) -> dict[str, Any]:
        out = {"sampling/tasks_skipped": self.skipped, "sampling/tasks_tracked": len(self.table)}
        self.skipped = 0
        return out

    def state(self) -> dict[str, Any]:
        return {task: list(v) for task, v in self.table.items()}

    def load(self, state: dict[str, Any]) -> None:
        self.table = {task: (float(v[0]), int(v[1])) for task, v in state.items()}
