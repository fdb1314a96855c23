"""One verifier contract: `Verifier.from_fn(name, fn)` takes what `verifiers.testing` takes (a bool, a
float or a `VerifyResult`), `Verifier.from_prompted_fn` gives ``fn`` the prompt too, and both turn a function that raises or returns
something else into an error verdict whose traceback is logged once per distinct error."""

from __future__ import annotations

import logging
import random
from typing import Any

import gymnasium
import pytest

from grpo_envs import ANSWER_TAGS, ReasoningEnv, Task, Verifier, make_group, score_groups
from verifiers import VerifyResult
from verifiers.testing import check_verifier


def exact_bool(reference: Any, answer: str) -> bool:
    return answer.strip() == str(reference)


def exact_float(reference: Any, answer: str) -> float:
    return 1.0 if answer.strip() == str(reference) else 0.25


@pytest.mark.parametrize(
    ("fn", "rewards", "statuses"),
    [
        (exact_bool, [1.0, 0.0], ["correct", "incorrect"]),
        (exact_float, [1.0, 0.25], ["correct", "incorrect"]),  # a float is correct at 1.0, the kit's top
        (
            lambda ref, ans: VerifyResult.judged("correct" if ans == ref else "no_answer", "by hand."),
            [1.0, 0.0],
            ["correct", "no_answer"],
        ),
    ],
)
def test_a_bool_a_float_and_a_verify_result_are_verdicts(fn: Any, rewards: list[float], statuses: list[str]) -> None:
    results = Verifier.from_fn("mine", fn).verify_many(["12", "12"], ["12", "13"])
    assert [r.reward for r in results] == rewards and [r.status for r in results] == statuses
    assert [r.correct for r in results] == [True, False]


def test_the_same_function_passes_the_kit_and_scores_in_an_env() -> None:
    report = check_verifier(exact_bool, "math", laws=["determinism", "reward_range", "consistency"], max_examples=5)
    assert report.ok

    class Twice(ReasoningEnv):
        def make_task(self, rng: random.Random) -> Task:
            n = rng.randint(1, 50)
            return Task(f"twice-{n}", f"What is 2 * {n}?", str(2 * n))

    env = Twice(verifier=Verifier.from_fn("exact", exact_bool), answer_format=ANSWER_TAGS)
    env.reset(seed=1)
    assert env.task is not None
    _, reward, _, _, info = env.step(f"<answer>{env.task.answer}</answer>")
    assert reward == 1.0 and info["correct"] is True  # was: 'bool' object has no attribute 'reward'


def test_a_prompted_function_gets_the_prompt_and_a_plain_one_does_not() -> None:
    seen: list[Any] = []

    def with_prompt(reference: Any, answer: str, prompt: str | None) -> bool:
        seen.append(prompt)
        return True

    env = gymnasium.make("grpo_envs/Arithmetic-v0", verifier=Verifier.from_prompted_fn("p", with_prompt)).unwrapped
    prompt, _ = env.reset(seed=3)
    env.step("\\boxed{1}")
    assert seen == [prompt]  # the prompt as the model saw it (with the answer format's instruction)
    Verifier.from_prompted_fn("k", with_prompt).verify_many(["1"], ["1"], ["q?"])
    assert seen[-1] == "q?"
    assert Verifier.from_fn("plain", exact_bool).verify_many(["1"], ["1"], ["q?"])[0].correct is True
    many: list[Any] = []
    batch = Verifier("b", lambda refs, answers, prompts, executor: many.extend(prompts) or [True] * len(answers))
    assert [r.status for r in batch.verify_many(["1", "1"], ["1", "2"], ["q?", "q?"])] == ["correct", "correct"]
    assert many == ["q?", "q?"]


@pytest.mark.parametrize(
    ("fn", "reason"),
    [
        (lambda ref, ans: None, "returned None, not a VerifyResult, a bool or a float"),
        (lambda ref, ans: "yes", "returned 'yes'"),
        (lambda ref, ans: float("nan"), "returned nan"),
    ],
)
def test_anything_else_is_an_error_verdict(fn: Any, reason: str) -> None:
    result = Verifier.from_fn("odd", fn).verify_many(["1"], ["1"])[0]
    assert result.status == "error" and result.correct is None and reason in result.reason


def test_a_raising_verifier_is_an_error_verdict_logged_once_per_distinct_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(reference: Any, answer: str) -> bool:
        if answer == "type":
            raise TypeError("cannot compare")
        raise ValueError(f"bad answer {answer}")  # a different message each time: still one error

    verifier = Verifier.from_fn("broken_w37", broken)
    with caplog.at_level(logging.DEBUG, logger="grpo_envs"):
        results = verifier.verify_many(["1"] * 52, [str(k) for k in range(50)] + ["type", "type"])
        results += verifier.verify_many(["1", "1"], ["x", "y"])
    assert {r.status for r in results} == {"error"} and all(r.correct is None for r in results)
    assert "ValueError: bad answer 7" in results[7].reason and "TypeError" in results[50].reason
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 2 and all(r.exc_info for r in errors)  # one traceback per distinct error
    assert sum(r.levelno == logging.DEBUG for r in caplog.records) == 52  # the rest at debug level


def test_a_batch_function_that_raises_gives_every_answer_an_error() -> None:
    def many(references: Any, answers: Any, prompts: Any, executor: Any) -> list[bool]:
        raise RuntimeError("batch down")

    results = Verifier("m", many).verify_many(["1", "1"], ["1", "2"])
    assert [r.status for r in results] == ["error", "error"] and "batch down" in results[0].reason
    short = Verifier("s", lambda refs, answers, prompts, executor: [True]).verify_many(["1", "1"], ["1", "2"])
    assert {r.status for r in short} == {"error"} and "1 verdicts for 2 answers" in short[0].reason


def test_groups_of_several_envs_scored_at_once_get_what_each_gets_alone() -> None:
    ids = ("grpo_envs/Arithmetic-v0", "grpo_envs/Countdown-v0", "grpo_envs/Arithmetic-v0", "grpo_envs/Digits-v0")
    groups = [make_group(env_id, seed=k, num_generations=3) for k, env_id in enumerate(ids)]
    texts = [[g.env.reference_completion(g.task), "no idea", "\\boxed{1}"] for g in groups]
    together = score_groups(groups, texts)
    assert [s.judgements for s in together] == [g.score(t).judgements for g, t in zip(groups, texts, strict=True)]
    assert [s.rewards[0] for s in together] == [1.0] * 4


def test_the_digest_follows_the_fields_through_replace() -> None:
    import dataclasses

    half = Verifier.from_fn("half", lambda ref, ans: 0.5)
    assert dataclasses.replace(half, name="other").digest != half.digest
    assert dataclasses.replace(half, equivalent=str.__eq__).digest == half.digest  # not a field of the verdict


def test_an_env_whose_judgements_extend_reasoning_envs_is_scored_through_them() -> None:
    """score_tasks asks an env that overrides `judgements`; one that calls the base's gets its verdicts."""
    from dataclasses import replace

    from grpo_envs._env import TaskCompletions, score_tasks

    class Noted(type(gymnasium.make("grpo_envs/Arithmetic-v0").unwrapped)):  # type: ignore[misc]
        def judgements(self, task: Any, completions: Any, **kw: Any) -> Any:
            return [replace(j, reward=j.reward + 10) for j in super().judgements(task, completions, **kw)]

    env = Noted()
    env.reset(seed=3)
    (scored,) = score_tasks([TaskCompletions(env, env.task, [env.reference_completion(env.task), "no"])])
    assert [j.reward for j in scored] == [11.0, 10.0]


def test_envs_made_with_one_function_share_one_verifier_while_they_live() -> None:
    import gc

    from grpo_envs import _verifier

    envs = [gymnasium.make("grpo_envs/Countdown-v0").unwrapped for _ in range(3)]
    assert len({id(env.verifier) for env in envs}) == 1  # their tasks' items go in one batch
    assert Verifier.from_fn("x", lambda ref, ans: 1.0) is not Verifier.from_fn("x", lambda ref, ans: 1.0)

    def mine(reference: Any, answer: str) -> float:
        return 1.0

    made = [Verifier.from_fn("mine", mine) for _ in range(2)]
    assert made[0] is made[1] and any(key[2] is mine for key in _verifier._WRAPPED)
    del made
    gc.collect()
    assert not [key for key in _verifier._WRAPPED if key[2] is mine]  # nothing kept once unused
