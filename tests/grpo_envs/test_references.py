"""Every env reads the answer once: each task's own reference, in every answer format the env
offers, is judged correct (every registered env, every reasoning-gym dataset we wrap)."""

from __future__ import annotations

import importlib.util
import logging
from typing import Any

import gymnasium
import pytest

import grpo_envs
from grpo_envs import ANSWER_TAGS, BOXED, THINK_ANSWER, AnswerFormat

MATH_FORMATS = (BOXED, ANSWER_TAGS, THINK_ANSWER)
ELSEWHERE = {
    "grpo_envs/CodeTests-v0": "Docker (tests/grpo_envs/test_envs.py runs its references)",
    "grpo_envs/CodeRepair-v0": "Docker (tests/grpo_envs/test_envs.py runs its references)",
    "grpo_envs/ReasoningGym-v0": "every dataset, below",
    "grpo_envs/OpenEnv-v0": "a served env (tests/grpo_envs/test_adapters_openenv.py)",
    "grpo_envs/Terminal-v0": "a folder of tasks in Docker (tests/grpo_envs/test_harbor_env_docker.py replays them)",
}


def _offered(env_id: str) -> list[tuple[str, AnswerFormat | None]]:
    """(env id, format): the env's own format, and the three answer formats where the math verifier judges."""
    env = gymnasium.make(env_id).unwrapped
    formats: list[AnswerFormat | None] = [None]
    if env.verifier.name == "math":
        formats += [f for f in MATH_FORMATS if f is not env.answer_format]
    env.close()
    return [(env_id, f) for f in formats]


CASES = [case for env_id in grpo_envs.env_ids() if env_id not in ELSEWHERE for case in _offered(env_id)]


@pytest.mark.parametrize(
    ("env_id", "answer_format"), CASES, ids=[f"{i.split('/')[1]}-{f.name if f else 'own'}" for i, f in CASES]
)
def test_each_tasks_reference_is_correct_in_every_format(env_id: str, answer_format: AnswerFormat | None) -> None:
    kwargs: dict[str, Any] = {} if answer_format is None else {"answer_format": answer_format}
    env = gymnasium.make(env_id, **kwargs).unwrapped
    for seed in range(12):
        env.reset(seed=seed)
        reference = env.reference_completion(env.task)
        (result,) = env.verify(env.task, [reference])
        assert result.correct is True, (env_id, seed, reference[:200], result)


def test_an_answer_tag_holding_a_grid_is_read_whole() -> None:
    pytest.importorskip("reasoning_gym")
    env = gymnasium.make("grpo_envs/ReasoningGym-v0", dataset="binary_matrix", size=3, answer_format=ANSWER_TAGS)
    env = env.unwrapped
    env.reset(seed=0)
    gold = env.task.metadata["gold"]
    assert "\n" in gold and len(gold) > 100  # several lines, longer than a one-line answer
    (result,) = env.verify(env.task, [f"<think>Let me see.</think>\n<answer>\n{gold}\n</answer>"])
    assert result.correct is True, result
    (inside,) = env.verify(env.task, [f"<think><answer>{gold}</answer></think>\nI am not sure."])
    assert inside.correct is not True  # a tag written while thinking is not the answer


def _datasets() -> list[str]:
    if importlib.util.find_spec("reasoning_gym") is None:
        return []
    from reasoning_gym.factory import DATASETS

    return sorted(name for name in DATASETS if name != "composite")  # composite needs a config of datasets


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("dataset", _datasets())  # (some datasets' data loaders leave files open)
def test_every_reasoning_gym_gold_is_accepted_in_both_answer_formats(dataset: str) -> None:
    logging.getLogger("reasoning_gym").setLevel(logging.ERROR)
    for answer_format in (BOXED, ANSWER_TAGS):
        env = gymnasium.make("grpo_envs/ReasoningGym-v0", dataset=dataset, size=3, answer_format=answer_format)
        env = env.unwrapped
        for seed in range(3):
            env.reset(seed=seed)
            if env.task.metadata["gold"] == "None":
                pytest.skip(f"{dataset} stores no answer: its scorer checks a solution against the puzzle")
            (result,) = env.verify(env.task, [env.reference_completion(env.task)])
            assert result.correct is True, (dataset, answer_format.name, env.task.metadata["gold"][:200], result)
