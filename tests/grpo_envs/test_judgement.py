"""One verdict value (`Judgement`) from the env to every consumer, and errors that say what happened."""

from __future__ import annotations

import dataclasses
import json
import logging
import pickle

import gymnasium
import pytest

import grpo_envs
from grpo_envs import AnswerFormat, EnvConfigError, GrpoEnvsError, Judgement, RolloutRecord, make_group
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


def test_a_verdict_serialised_reads_back_as_itself() -> None:
    group = make_group("grpo_envs/Arithmetic-v0", seed=5, num_generations=3)
    completions = [group.env.reference_completion(group.task), "the answer is 12345", "no idea"]
    judgements = [*group.score(completions).judgements, Judgement.of_step(0.5, {"reason": "half", "task_id": "t"})]
    judgements.append(Judgement.of_step(float("nan"), {}))  # an error: nobody judged it
    for j in judgements:
        data = json.loads(json.dumps(j.to_json()))
        assert Judgement.from_json(data) == j and data["reward"] == j.reward
        assert {k: data[k] for k in j.info()} == j.info()  # Gymnasium's info keys are the same ones
    with pytest.raises(ValueError, match="status must be one of"):
        Judgement.from_json({"status": "great"})


def test_a_rollout_record_is_one_row_read_back_old_rows_included() -> None:
    group = make_group("grpo_envs/Arithmetic-v0", seed=5, num_generations=2)
    right = group.score([group.env.reference_completion(group.task)] * 2).judgements[0]
    shaped = dataclasses.replace(right, reward=0.75, reward_parts={**right.reward_parts, "overlong": -0.25})
    record = RolloutRecord("\\boxed{4}", shaped, 0.75, task_seed=5, sample=1, task_id=right.task_id, prompt="q")
    record = dataclasses.replace(record, reference="4", tokens=9, truncated=True, attributes={"op": "+"}, step=3)
    row = json.loads(json.dumps(record.to_json()))
    assert RolloutRecord.from_json(row) == record and pickle.loads(pickle.dumps(record)) == record
    assert (row["step"], row["status"], row["correct"], row["reward"], row["overlong"]) == (
        3,
        "correct",
        True,
        0.75,
        -0.25,
    )
    old = {  # a row of eval's samples.jsonl as written before `RolloutRecord`
        "task_seed": 11, "task_id": "t", "sample": 0, "prompt": "2 + 2?", "completion": "\\boxed{5}", "reward": -0.5,
        "correct": False, "status": "incorrect", "reason": "The values are different.", "extracted": "5",
        "tokens": 3, "truncated": False, "attributes": {"op": "+"}, "overlong": -0.5, "reference": "4",
    }  # fmt: skip
    read = RolloutRecord.from_json(old)
    assert (read.judgement.status, read.judgement.correct, read.judgement.reason, read.judgement.extracted) == (
        "incorrect", False, "The values are different.", "5"
    )  # fmt: skip
    assert (read.reward, read.overlong, read.tokens, read.reference, dict(read.attributes)) == (
        -0.5,
        -0.5,
        3,
        "4",
        {"op": "+"},
    )
    assert {k: v for k, v in read.to_json().items() if k in old} == old  # rewritten, it keeps what it said


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
