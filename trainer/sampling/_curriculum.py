"""A curriculum over an env's difficulty levels (``sampling.curriculum``): tasks at the edge of what
the model can do.

An env declares its levels, easiest first, as `grpo_envs.ReasoningEnv.levels` (each level: the
settings its `make_task` reads) and applies one with ``set_level``; the procedural envs have theirs
(Digits: ops c, cs, csm, csmp; Arithmetic: 1, 2, 3, 5 operations; Countdown: 3-6 numbers;
LinearEquations; Sorting: 4-32 numbers; ModularArithmetic and PythonTool: difficulty 1-3). The
trainer rolls out at the current level; after each step it adds the step's correct rate (every
sampled group) to a window of ``level_window`` steps: a full window whose mean reaches
``level_up`` raises the level, one under ``level_down`` lowers it, and a change empties the window.
The level and the window are part of a checkpoint, so a resumed run continues them exactly.
With rollout workers (``async_level = k``) a step's level is fixed when its job is sent, so a batch
can come back sampled at a level the curriculum has since left: its correct rate is not counted.
"""

from __future__ import annotations

import statistics
from typing import Any

from trainer.errors import TrainerError
from trainer.sampling._config import SamplingConfig

__all__ = ["Curriculum", "open_curriculum"]


class Curriculum:
    """The level in use and the recent correct rates.

    Examples:
        >>> c = Curriculum(SamplingConfig(curriculum=True, level_window=2), levels=3)
        >>> [c.observe(rate) for rate in (0.9, 0.9, 0.1, 0.1, 0.1)] and c.level
        0
        >>> c.history
        [1, 0]
    """

    def __init__(self, cfg: SamplingConfig, *, levels: int) -> None:
        self.cfg, self.levels = cfg, levels
        self.level = min(cfg.start_level, levels - 1)
        self.window: list[float] = []
        self.history: list[int] = []  # the levels moved to, in order (this process)

    def observe(self, correct_rate: float, level: int | None = None) -> dict[str, Any]:
        """After a step at ``level`` (default ``self.level``): its metric (the level the step used),
        then maybe a move. A step sampled at another level (asynchronous rollouts: sent before the
        last move) leaves the window as it is."""
        used = self.level if level is None else level
        if used != self.level:
            return {"sampling/level": used}
        self.window = [*self.window, correct_rate][-self.cfg.level_window :]
        if len(self.window) == self.cfg.level_window:
            mean = statistics.fmean(self.window)
            move = 1 if mean >= self.cfg.level_up else -1 if mean < self.cfg.level_down else 0
            if 0 <= self.level + move < self.levels and move:
                self.level += move
                self.window = []
                self.history.append(self.level)
        return {"sampling/level": used}

    def apply(self, envs: list[Any]) -> None:
        for env in envs:
            env.unwrapped.set_level(self.level)

    def state(self) -> dict[str, Any]:
        return {"level": self.level, "window": list(self.window)}

    def load(self, state: dict[str, Any]) -> None:
        self.level, self.window = int(state["level"]), [float(x) for x in state["window"]]


def open_curriculum(cfg: SamplingConfig, env: Any) -> Curriculum | None:
    """The curriculum ``cfg`` asks for over ``env``'s levels, or None; an env without levels is
    refused in one line."""
    if not cfg.curriculum:
        return None
    levels = getattr(env.unwrapped, "levels", ())
    if not levels or not callable(getattr(env.unwrapped, "set_level", None)):
        raise TrainerError(
            f"sampling.curriculum: {type(env.unwrapped).__name__} declares no difficulty levels (a `levels` "
            "class attribute and `set_level`, as grpo_envs.ReasoningEnv has); turn the curriculum off"
        )
    return Curriculum(cfg, levels=len(levels))
