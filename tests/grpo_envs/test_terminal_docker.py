"""The terminal env over real sandbox sessions (`verifiers.sandbox.SessionPool`): the reference
commands replayed as tool calls reach reward 1 through env.step and through the trainer's
rollout, a wrong end state scores 0, and a hung command times out while the episode goes on."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from grpo_envs.envs.terminal import Terminal, TerminalTask
from grpo_envs.tools import ToolCall, tool_format

pytestmark = pytest.mark.docker


def _answer(session: Any) -> float:
    return float(session.exec("cat answer.txt").stdout == "42\n")


TASK = TerminalTask(
    "Write the key (found in key.txt) to answer.txt.",
    verify=_answer,
    setup=("echo 42 > key.txt",),
    reference=("cat key.txt", "cp key.txt answer.txt"),
)
QWEN = tool_format("qwen")


@pytest.fixture(scope="module")
def pool() -> Iterator[Any]:
    from verifiers.sandbox import SessionPool

    with SessionPool(size=2, timeout_s=10) as p:
        yield p


def _call(command: str) -> str:
    return QWEN.write(ToolCall("bash", {"command": command}))


def test_a_hung_command_times_out_and_the_replayed_reference_then_scores_one(pool: Any) -> None:
    env = Terminal([TASK], session=pool.session, timeout_s=1.0)
    env.reset(seed=0)
    observation, reward, terminated, truncated, _ = env.step(_call("sleep 60"))
    assert "[the command timed out]" in observation and (reward, terminated, truncated) == (0.0, False, False)
    observation, *_ = env.step(_call(TASK.reference[0]))
    assert observation == "42\n"  # the session goes on after the timeout
    env.step(_call(TASK.reference[1]))
    _, reward, terminated, _, info = env.step("Done.")
    assert (reward, terminated) == (1.0, True)
    assert [s["command"] for s in info["commands"]] == ["sleep 60", *TASK.reference]
    assert 0.9 <= info["commands"][0]["seconds"] < 15


def test_a_wrong_end_state_scores_zero(pool: Any) -> None:
    env = Terminal([TASK], session=pool.session)
    env.reset(seed=0)
    env.step(_call("echo 41 > answer.txt"))
    _, reward, terminated, _, _ = env.step("Done.")
    assert (reward, terminated) == (0.0, True)


def test_the_reference_replayed_through_the_trainers_rollout_scores_one(pool: Any) -> None:
    from tests.grpo_envs.test_tool_formats import family_tokenizer
    from trainer.generation._generator import Continuation, SamplingParams
    from trainer.rollouts._rollout import rollout

    tokenizer = family_tokenizer("qwen")
    turns = [_call(c) for c in TASK.reference] + ["Done."]

    class Replay:
        def __init__(self) -> None:
            self.turn = 0

        def generate(self, contexts: list[list[int]], params: SamplingParams) -> list[Continuation]:
            ids = [*tokenizer(turns[self.turn], add_special_tokens=False)["input_ids"], tokenizer.eos_token_id]
            self.turn += 1
            return [Continuation(tuple(ids), False) for _ in contexts]

    def make_env() -> Terminal:
        return Terminal([TASK], session=pool.session)

    (r,) = rollout(Replay(), tokenizer, [make_env()], [0], 1, max_new_tokens=64, temperature=1.0, make_env=make_env)[0]  # type: ignore[arg-type]
    assert r.reward == 1.0
    assert "<tool_response>\n42\n\n</tool_response>" in tokenizer.decode(r.ids)  # cat's output, token-exact
