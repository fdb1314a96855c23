"""Sorting: sort a list of integers."""

from __future__ import annotations

import random
from typing import Any

from grpo_envs._env import ReasoningEnv
from grpo_envs._task import Task
from grpo_envs.errors import EnvConfigError

__all__ = ["Sorting"]


class Sorting(ReasoningEnv):
    """Sort integers in ascending (or descending) order.

    ## Task
    ``length`` integers drawn from ``[-max_value, max_value]`` (repeats allowed).

    ## Prompt format
    "Sort these numbers in ascending order: 5, -2, 9 ..." plus the answer instruction.

    ## Answer format
    ``\\boxed{}`` with the sorted numbers separated by commas. The reference is an ordered
    tuple, so order matters and every number must appear (judged by `verifiers.math`).

    ## Reward
    1.0 for exactly the sorted sequence, else 0.0.

    ## Episode end
    One step (terminated).

    ## Arguments
    ``length`` (default 8), ``max_value`` (default 99), ``descending`` (default False).

    ## Version history
    v0: initial version.

    Examples:
        >>> env = Sorting(length=3)
        >>> env.reset(seed=0)[0].startswith("Sort these numbers")
        True
    """

    levels = tuple({"length": n} for n in (4, 8, 16, 32))  # numbers to sort

    def __init__(self, *, length: int = 8, max_value: int = 99, descending: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        if not 2 <= length <= 200:
            raise EnvConfigError("Sorting", "length", "an int in [2, 200]", length)
        self.length, self.max_value, self.descending = length, max_value, descending

    def make_task(self, rng: random.Random) -> Task:
        numbers = [rng.randint(-self.max_value, self.max_value) for _ in range(self.length)]
        ordered = sorted(numbers, reverse=self.descending)
        order = "descending" if self.descending else "ascending"
        return Task(
            task_id=f"sorting-{self.split}-{rng.getrandbits(48):012x}",
            prompt=f"Sort these numbers in {order} order: {', '.join(map(str, numbers))}. "
            "Answer with the sorted numbers separated by commas.",
            answer="(" + ", ".join(map(str, ordered)) + ")",
            solution="The sorted list is $\\boxed{" + ", ".join(map(str, ordered)) + "}$.",
            metadata={"numbers": numbers},
        )
