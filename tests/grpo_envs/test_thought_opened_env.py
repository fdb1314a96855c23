"""An env told that the policy's chat template opened the thought (`ReasoningEnv.thought_opened`)
judges a completion cut off before ``</think>`` as a cut-off thought, never as a plain answer."""

from __future__ import annotations

import random

import pytest

from grpo_envs.envs.arithmetic import Arithmetic
from grpo_envs.errors import EnvConfigError


def test_an_env_told_the_template_opened_the_thought_pays_no_value_written_while_thinking() -> None:
    env = Arithmetic()
    task = env.make_task(random.Random(3))
    right = f"The answer is $\\boxed{{{env.reference_answer(task)}}}$."
    cut = f"Let me think. {right} But wait, the other case"
    closed = f"Is it 0?\n</think>\n\n{right}"
    assert [r.correct for r in env.verify(task, [cut, closed])] == [True, True]  # told nothing: the bug
    env.thought_opened = "think"
    told = env.verify(task, [cut, closed, 7])
    assert [r.correct for r in told] == [False, True, False]
    assert told[0].status == "no_answer" and "never closed" in told[0].reason
    env.thought_opened = "<think>"
    with pytest.raises(EnvConfigError, match="thought_opened must be"):
        env.verify(task, [cut])
