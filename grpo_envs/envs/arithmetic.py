"""Arithmetic: evaluate a random expression over integers (and fractions)."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from grpo_envs._env import ReasoningEnv
from grpo_envs._task import Task
from grpo_envs.errors import EnvConfigError

__all__ = ["Arithmetic"]


def _wrap(text: str, ops: int) -> str:
    return f"({text})" if ops else text


class Arithmetic(ReasoningEnv):
    """Evaluate a multi-step arithmetic expression exactly.

    ## Task
    A random expression tree of ``n_ops`` operations (+, -, *, and / when ``fractions``)
    over integers in ``[1, max_value]``, e.g. ``(7 - 3) * (12 + 5) / 4``.

    ## Prompt format
    "Compute the exact value of: <expression>" plus the answer format's instruction.

    ## Answer format
    ``\\boxed{}`` by default; any exact form is accepted (``17/4``, ``4.25``, ``4\\frac{1}{4}``).

    ## Reward
    1.0 if `verifiers.math` judges the answer equal to the exact value, else 0.0.

    ## Episode end
    One step (terminated).

    ## Arguments
    ``n_ops`` (default 3), ``max_value`` (default 20), ``fractions`` (allow division,
    default True), plus every `ReasoningEnv` argument (``split``, ``answer_format``, ...).

    ## Version history
    v0: initial version.

    Examples:
        >>> import gymnasium
        >>> env = gymnasium.make("grpo_envs/Arithmetic-v0", n_ops=2, fractions=False)
        >>> prompt, info = env.reset(seed=0)
        >>> prompt.startswith("Compute the exact value of:")
        True
    """

    levels = tuple({"n_ops": n} for n in (1, 2, 3, 5))  # operations in the expression

    def __init__(self, *, n_ops: int = 3, max_value: int = 20, fractions: bool = True, **kwargs: Any):
        super().__init__(**kwargs)
        if not 1 <= n_ops <= 12:
            raise EnvConfigError("Arithmetic", "n_ops", "an int in [1, 12]", n_ops)
        if max_value < 2:
            raise EnvConfigError("Arithmetic", "max_value", "an int >= 2", max_value)
        self.n_ops, self.max_value, self.fractions = n_ops, max_value, fractions

    def _expr(self, rng: random.Random, ops: int) -> tuple[str, Fraction]:
        if ops == 0:
            n = rng.randint(1, self.max_value)
            return str(n), Fraction(n)
        left_ops = rng.randint(0, ops - 1)
        (ls, lv), (rs, rv) = self._expr(rng, left_ops), self._expr(rng, ops - 1 - left_ops)
        choices = ["+", "-", "*"] + (["/"] if self.fractions and rv != 0 else [])
        op = rng.choice(choices)
        value = {"+": lv + rv, "-": lv - rv, "*": lv * rv, "/": lv / rv if rv else lv}[op]
        return f"{_wrap(ls, left_ops)} {op} {_wrap(rs, ops - 1 - left_ops)}", value

    def make_task(self, rng: random.Random) -> Task:
        text, value = self._expr(rng, self.n_ops)
        answer = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
        return Task(
            task_id=f"arithmetic-{self.split}-{rng.getrandbits(48):012x}",
            prompt=f"Compute the exact value of: {text}",
            answer=answer,
            metadata={"expression": text, "n_ops": self.n_ops},
        )
