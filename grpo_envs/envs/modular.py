"""ModularArithmetic: modular powers, products and inverses."""

from __future__ import annotations

import random
from typing import Any

from grpo_envs._env import ReasoningEnv
from grpo_envs._task import Task
from grpo_envs.errors import EnvConfigError

__all__ = ["ModularArithmetic"]

_PRIMES = [7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]


class ModularArithmetic(ReasoningEnv):
    """Compute a residue: ``a^b mod m``, ``a * b + c mod m`` or ``a^{-1} mod p``.

    ## Task
    One of three kinds, chosen per task; numbers grow with ``difficulty`` (1-3).

    ## Prompt format
    A one-sentence question, e.g. "What is 37^125 mod 97?", plus the answer instruction.

    ## Answer format
    ``\\boxed{}`` with an integer in ``[0, m)``.

    ## Reward
    1.0 for the exact residue (judged by `verifiers.math`), else 0.0.

    ## Episode end
    One step (terminated).

    ## Arguments
    ``difficulty`` (1-3, default 2), plus every `ReasoningEnv` argument.

    ## Version history
    v0: initial version.

    Examples:
        >>> env = ModularArithmetic()
        >>> "mod" in env.reset(seed=1)[0]
        True
    """

    levels = tuple({"difficulty": d} for d in (1, 2, 3))

    def __init__(self, *, difficulty: int = 2, **kwargs: Any):
        super().__init__(**kwargs)
        if difficulty not in (1, 2, 3):
            raise EnvConfigError("ModularArithmetic", "difficulty", "1, 2 or 3", difficulty)
        self.difficulty = difficulty

    def make_task(self, rng: random.Random) -> Task:
        scale = 10 ** (self.difficulty + 1)
        kind = rng.choice(["power", "affine", "inverse"])
        if kind == "power":
            m = rng.randint(7, scale)
            a, b = rng.randint(2, scale), rng.randint(2, scale * 10)
            question, answer = f"What is {a}^{b} mod {m}?", pow(a, b, m)
        elif kind == "affine":
            m = rng.randint(7, scale)
            a, b, c = (rng.randint(1, scale * 10) for _ in range(3))
            question, answer = f"What is ({a} * {b} + {c}) mod {m}?", (a * b + c) % m
        else:
            p = rng.choice(_PRIMES[: 6 * self.difficulty + 4])
            a = rng.randint(2, p - 1)
            question = f"What is the inverse of {a} modulo {p} (the x in [0, {p}) with {a}x = 1 mod {p})?"
            answer = pow(a, -1, p)
        return Task(
            task_id=f"modular-{self.split}-{rng.getrandbits(48):012x}",
            prompt=question,
            answer=str(answer),
            metadata={"kind": kind},
        )
