"""Digits: one-digit tasks for tiny models (the CPU training demo)."""

from __future__ import annotations

import random
from typing import Any

from grpo_envs._env import ReasoningEnv
from grpo_envs._formats import AnswerFormat
from grpo_envs._task import Task
from grpo_envs._verifier import Verifier
from grpo_envs.errors import EnvConfigError
from verifiers import VerifyResult
from verifiers.structure import read_completion

__all__ = ["Digits", "PLAIN"]


def _final(text: str) -> str | None:
    """The final section (after any thinking: `verifiers.structure`); None when it never closed."""
    return read_completion(text).final


PLAIN = AnswerFormat("plain", "", _final, lambda text: bool((_final(text) or "").strip()))
OPS = {"c": "copy", "s": "successor", "m": "max", "p": "sum mod 10"}


def _first_digit(reference: Any, completion: str) -> VerifyResult:
    """Judge the first character of the completion; what follows it is ignored."""
    text = completion.strip()
    if not text:
        return VerifyResult.judged("no_answer", "The completion is empty.")
    ok = text[0] == str(reference)
    return VerifyResult.judged(
        "correct" if ok else "incorrect",
        f"The first character is {text[0]!r}; the answer is {reference!r}.",
        extracted=text[0],
    )


class Digits(ReasoningEnv):
    """One-token answers over a 14-character alphabet: a task a tiny model learns on a CPU.

    ## Task
    ``c7=`` asks to copy 7, ``s7=`` for (7 + 1) mod 10, ``m37=`` for max(3, 7) and ``p37=``
    for (3 + 7) mod 10; ``ops`` picks which kinds appear.

    ## Prompt format
    The bare task string (no instruction: a model built from scratch knows no English).
    Its characters are ``Digits.alphabet``, so a character-level tokenizer covers them.

    ## Answer format
    The first character of the completion (a digit); anything after it is ignored, so
    ``max_new_tokens=1`` suffices.

    ## Reward
    1.0 when the first character is the answer, else 0.0.

    ## Episode end
    One step (terminated).

    ## Arguments
    ``ops`` (default "cs": copy and successor).

    ## Version history
    v0: initial version.

    Examples:
        >>> env = Digits(ops="m")
        >>> prompt, _ = env.reset(seed=1)
        >>> prompt[0], prompt[-1]
        ('m', '=')
    """

    alphabet = "0123456789csmp="
    default_format = PLAIN

    levels = ({"ops": "c"}, {"ops": "cs"}, {"ops": "csm"}, {"ops": "csmp"})  # copy, +1, then sums, products

    def __init__(self, *, ops: str = "cs", **kwargs: Any):
        kwargs.setdefault("verifier", Verifier.from_fn("first-digit", _first_digit))
        super().__init__(**kwargs)
        if not ops or set(ops) - set(OPS):
            raise EnvConfigError("Digits", "ops", f"letters from {''.join(sorted(OPS))}", ops)
        self.ops = ops

    def make_task(self, rng: random.Random) -> Task:
        op, a, b = rng.choice(self.ops), rng.randrange(10), rng.randrange(10)
        if op == "c":
            text, answer = f"c{a}=", a
        elif op == "s":
            text, answer = f"s{a}=", (a + 1) % 10
        elif op == "m":
            text, answer = f"m{a}{b}=", max(a, b)
        else:
            text, answer = f"p{a}{b}=", (a + b) % 10
        return Task(f"digits-{text}", text, str(answer), metadata={"op": OPS[op]}, solution=str(answer))
