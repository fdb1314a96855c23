"""PythonTool: the model may run Python in the sandbox before it answers."""

from __future__ import annotations

import random
import re
from typing import Any

from grpo_envs._env import ReasoningEnv
from grpo_envs._task import Task
from grpo_envs.errors import EnvConfigError
from verifiers import VerifyResult

__all__ = ["PythonTool"]

_FENCE = re.compile(r"```(?:python|py)[^\n]*\n(.*?)```", re.DOTALL)
_SHOWN = 2000


def _primes_below(n: int) -> list[int]:
    sieve = bytearray([1]) * n
    sieve[:2] = b"\x00\x00"
    for p in range(2, int(n**0.5) + 1):
        if sieve[p]:
            sieve[p * p :: p] = bytearray(len(sieve[p * p :: p]))
    return [i for i, v in enumerate(sieve) if v]


class PythonTool(ReasoningEnv):
    """Multi-turn tool use: run Python in the Docker sandbox, read its output, then answer.

    ## Task
    Computations that are tedious by hand and easy with code: sums of primes, divisibility
    counts, digit sums of powers, Fibonacci residues (sizes grow with ``difficulty``).

    ## Prompt format
    The question, how to call the tool (a fenced ```python block; its stdout comes back as
    the next message) and how to answer (``\\boxed{}``).

    ## Answer format
    ``\\boxed{}`` with an integer. A turn with a python block and no boxed answer is a tool
    call; a turn with a boxed answer is final.

    ## Reward
    1.0 when the final answer is right (`verifiers.math`), else 0.0; tool calls earn nothing.

    ## Episode end
    Terminated on a final answer or on a turn that is neither a tool call nor an answer;
    truncated after ``max_turns`` (default 4).

    ## Arguments
    ``difficulty`` (1-3, default 2), ``sandbox`` (default: the process-wide pool, started at
    the first tool call), ``timeout_s`` per tool call (default 5), ``max_turns``.

    ## Version history
    v0: initial version.

    Examples:
        >>> env = PythonTool()
        >>> "```python" in env.reset(seed=0)[0]
        True
    """

    levels = tuple({"difficulty": d} for d in (1, 2, 3))

    def __init__(self, *, difficulty: int = 2, sandbox: Any = None, timeout_s: float = 5.0, **kwargs: Any):
        kwargs.setdefault("max_turns", 4)
        super().__init__(**kwargs)
        if difficulty not in (1, 2, 3):
            raise EnvConfigError("PythonTool", "difficulty", "1, 2 or 3", difficulty)
        self.difficulty, self.sandbox, self.timeout_s = difficulty, sandbox, timeout_s

    def make_task(self, rng: random.Random) -> Task:
        scale = 10 ** (self.difficulty + 2)
        kind = rng.choice(["primes", "divisible", "digits", "fibonacci"])
        if kind == "primes":
            n = rng.randint(scale // 2, scale * 5)
            question, answer = f"What is the sum of all primes below {n}?", sum(_primes_below(n))
        elif kind == "divisible":
            n, a, b, c = (
                rng.randint(scale, scale * 20),
                rng.randint(2, 9),
                rng.randint(2, 9),
                rng.randint(11, 29),
            )
            question = f"How many integers from 1 to {n} are divisible by {a} or {b} but not by {c}?"
            answer = sum(1 for i in range(1, n + 1) if (i % a == 0 or i % b == 0) and i % c)
        elif kind == "digits":
            base, exp = rng.randint(2, 9), rng.randint(50, 50 * self.difficulty + 100)
            question, answer = (
                f"What is the sum of the decimal digits of {base}^{exp}?",
                sum(map(int, str(base**exp))),
            )
        else:
            n, m = rng.randint(100, 100 * scale), rng.randint(100, 10_000)
            a, b = 0, 1
            for _ in range(n % (m * 6 + 1)):
                a, b = b, (a + b) % m
            question = f"What is F({n % (m * 6 + 1)}) mod {m}, where F(0) = 0, F(1) = 1, F(k) = F(k-1) + F(k-2)?"
            answer = a
        prompt = (
            f"{question}\n\nYou may run Python: write a ```python block and its output will be shown "
            "to you. When you know the answer, give it as \\boxed{...}."
        )
        return Task(
            task_id=f"pytool-{self.split}-{rng.getrandbits(48):012x}",
            prompt=prompt,
            answer=str(answer),
            metadata={"kind": kind},
        )

    def prompt_text(self, task: Task) -> str:
        return task.prompt  # the tool protocol is part of the prompt

    def feedback(self, task: Task, completion: str, result: VerifyResult) -> str | None:
        """Run the turn's code (a tool call) and return its output; None for a final answer."""
        blocks = _FENCE.findall(completion)
        if "\\boxed" in completion or not blocks:
            return None
        from verifiers.sandbox import default_sandbox

        run = (self.sandbox or default_sandbox()).run(blocks[-1], timeout_s=self.timeout_s)
        if run.error is not None:
            return f"The tool failed on our side ({run.error}). Answer with what you have."
        if run.timed_out:
            return f"The code ran longer than {self.timeout_s:g} s and was stopped."
        out = run.stdout[:_SHOWN] + ("\n...(truncated)" if len(run.stdout) > _SHOWN or run.truncated else "")
        if run.exit_code != 0:
            out += f"\n(exit status {run.exit_code})\n{run.stderr[-_SHOWN:]}"
        return f"Output:\n{out}" if out.strip() else "Output: (nothing was printed)"
