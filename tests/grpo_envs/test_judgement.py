"""One verdict value (`Judgement`) from the env to every consumer, and errors that say what happened."""

from __future__ import annotations

import json
import logging

import gymnasium
import pytest

import grpo_envs
from grpo_envs import AnswerFormat, EnvConfigError, GrpoEnvsError, Judgement, make_group
from grpo_envs.adapters._common import Scorer


def test_step_group_and_adapters_render_the_same_verdict() -> None:
    group = make_group("grpo_envs/Arithmetic-v0", seed=5, num_generations=2)
    completions = [group.env.reference_completion(group.task), "the answer is 12345"]
    score = group.score(completions)
    assert all(isinstance(j, Judgement) for j in score.judgements)
    assert score.rewards == tuple(j.reward for j in score.judgements) == (1.0, 0.0)
    for completion, judgement in zip(completions, score.judgements, strict=True):
        env = gymnasium.make("grpo_envs/Arithmetic-v0")
        env.reset(seed=5, options={"group_id": group.group_id})
        _, reward, _, _, info = env.step(completion)
        assert reward == judgement.reward and info["judgement"] == judgement  # the value itself, as is
        assert {k: info[k] for k in judgement.info()} == judgement.info()  # the same keys, the same values
        json.dumps(judgement.info())  # plain values only
    adapter = Scorer("grpo_envs/Arithmetic-v0").score(5, completions)
    assert [(j.reward, j.status, dict(j.reward_parts)) for j in adapter] == [
        (j.reward, j.status, dict(j.reward_parts)) for j in score.judgements
    ]


def test_the_verifiers_components_and_the_rubrics_parts_are_apart() -> None:
    group = make_group("grpo_envs/Arithmetic-v0", seed=5, num_generations=2)
    j = group.score([group.env.reference_completion(group.task)] * 2).judgements[0]
    assert dict(j.components) == dict(j.result.components)
    assert "correctness" in j.reward_parts  # the rubric's parts, not the verifier's components
    with pytest.raises(TypeError):
        j.reward_parts["x"] = 1.0  # type: ignore[index]


def test_a_non_text_completion_says_what_it_was() -> None:
    group = make_group("grpo_envs/Arithmetic-v0", seed=1, num_generations=2)
    score = group.score([None, 42])  # type: ignore[list-item]
    assert [j.status for j in score.judgements] == ["no_answer", "no_answer"]
    assert "NoneType, not text" in score.judgements[0].reason and "int, not text" in score.judgements[1].reason


def test_a_crashing_answer_extractor_is_an_error_with_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    def explode(text: str) -> str | None:
        raise RuntimeError("extractor bug")

    env = gymnasium.make(
        "grpo_envs/Arithmetic-v0", answer_format=AnswerFormat("exploding", "Answer.", explode, lambda text: True)
    )
    env.reset(seed=0)
    with caplog.at_level(logging.ERROR, logger="grpo_envs"):
        _, reward, _, _, info = env.step("The answer is 3.")
    assert reward == 0.0 and info["status"] == "error" and info["correct"] is None
    assert "The answer extractor failed: RuntimeError: extractor bug" in info["reason"]
    assert "answer format exploding failed" in caplog.text


@pytest.mark.parametrize(
    ("env_id", "kwargs", "message"),
    [
        ("grpo_envs/Arithmetic-v0", {"n_ops": 0}, "Arithmetic: n_ops must be an int in [1, 12], got 0"),
        ("grpo_envs/Arithmetic-v0", {"max_value": 1}, "Arithmetic: max_value must be an int >= 2, got 1"),
        ("grpo_envs/Sorting-v0", {"length": 1}, "Sorting: length must be an int in [2, 200], got 1"),
        ("grpo_envs/Digits-v0", {"ops": "xyz"}, "Digits: ops must be letters from"),
    ],
)
def test_a_bad_env_argument_names_the_field_what_it_takes_and_what_it_got(
    env_id: str, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(EnvConfigError, match=message.replace("[", r"\[").replace("]", r"\]")) as caught:
        gymnasium.make(env_id, **kwargs)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, GrpoEnvsError)
    assert caught.value.field == next(iter(kwargs))


def test_errors_live_in_errors_modules() -> None:
    import verifiers
    from grpo_envs import errors as grpo_errors
    from verifiers import errors as verifier_errors

    assert grpo_envs.EnvCheckError is grpo_errors.EnvCheckError
    assert verifiers.WorkerCrashed is verifier_errors.WorkerCrashed
