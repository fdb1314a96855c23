"""Infrastructure failures are masked, not punished: a rollout nobody judged (a verifier timeout,
an error) is left out of its group's statistics and out of the loss, in our trainer, and the
adapters tell TRL, verl and OpenRLHF what they can do with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import pytest
import torch

from grpo_envs import Judgement, Verifier
from grpo_envs.adapters import trl as trl_adapter
from tests.trainer.test_trainer import EchoDigit, rows, tiny
from trainer import GRPOTrainer, TrainerError, group_advantages
from trainer._batch import loss_rows
from trainer.rollouts._rollout import Rollout
from verifiers import VerifyResult


def rollout(reward: float | None, status: str, correct: bool | None = None) -> Rollout:
    """A rollout of one turn of a plain Gymnasium env whose ``info`` says ``status`` and ``correct``."""
    info = {"status": status} if correct is None else {"status": status, "correct": correct}
    return Rollout([1, 2], ids=[3], mask=[1], reward=reward, judgements=[Judgement.of_step(reward, info)])


def test_judged_rollouts_get_the_advantages_of_the_group_without_the_masked_ones() -> None:
    judged = [rollout(1.0, "correct", True), rollout(0.0, "incorrect", False), rollout(0.5, "incorrect", False)]
    masked = [rollout(0.0, "timeout"), rollout(0.0, "error"), rollout(None, "incorrect", False)]
    for scale in ("group", "batch", "none"):
        rows, adv = loss_rows([[masked[0], judged[0], masked[1], judged[1], masked[2], judged[2]]], scale=scale)
        assert rows == judged  # the masked ones are not in the loss at all: no tokens, no KL, no normaliser
        expected = group_advantages([[1.0, 0.0, 0.5]], scale=scale)[0].tolist()
        assert adv.tolist() == pytest.approx(expected)
    assert adv.tolist() == pytest.approx([0.5, -0.5, 0.0])  # scale="none" by hand: r - mean(1, 0, 0.5)


def test_a_group_with_fewer_than_two_judged_rollouts_is_dropped() -> None:
    one = [rollout(1.0, "correct", True), rollout(0.0, "timeout"), rollout(0.0, "timeout")]
    none = [rollout(0.0, "error"), rollout(0.0, "timeout"), rollout(None, "correct", True)]
    even = [rollout(1.0, "correct", True), rollout(1.0, "correct", True), rollout(0.0, "timeout")]
    full = [rollout(1.0, "correct", True), rollout(0.0, "incorrect", False), rollout(0.0, "incorrect", False)]
    rows, adv = loss_rows([one, none, even, full])
    assert rows == [*even[:2], *full] and adv[:2].tolist() == [0.0, 0.0]
    rows, _ = loss_rows([one, none, even, full], skip_zero_variance=True)
    assert rows == full  # the equal judged rewards of `even` are a zero-variance group


def test_a_plain_env_that_gives_a_verdict_keeps_its_rollouts_and_one_that_raises_is_masked() -> None:
    assert rollout(0.0, "incorrect").judged and rollout(1.0, "correct").judged  # no `correct` key: still judged
    assert not rollout(0.0, "error").judged  # the env raised, or the verifier failed
    assert rollout(0.0, "error", False).judged  # an env that says it judged it (correct=False)


class SometimesUnjudged(EchoDigit):
    """EchoDigit whose 'verifier' times out on replies that start with '=' (no verdict)."""

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        observation, reward, done, truncated, info = super().step(action)
        if action.startswith("="):
            info = {"status": "timeout", "reason": "the verifier timed out"}
        return observation, reward, done, truncated, info


def test_the_trainer_logs_masked_frac_and_trains_on_the_judged_rollouts(tmp_path: Path) -> None:
    cfg = tiny(tmp_path, temperature=1.5)
    trainer = GRPOTrainer(cfg, env=SometimesUnjudged, show_progress=False)
    trainer.train()
    metrics = rows(tmp_path / "run" / "metrics.jsonl")
    steps = [m for m in metrics if "masked_frac" in m]
    assert len(steps) == 3 and any(m["masked_frac"] > 0 for m in steps)
    assert all(m["masked_frac"] == m.get("status/timeout", 0) / 16 for m in steps)


def flaky_digits_verifier() -> Verifier:
    """Digits' exact answers, but a timeout for any answer '7' (an infrastructure failure)."""

    def verify(reference: Any, answer: str) -> VerifyResult:
        if answer.strip() == "7":
            return VerifyResult.judged("timeout", "the verifier timed out")
        return VerifyResult.judged("correct" if answer.strip() == str(reference) else "incorrect", "compared.")

    return Verifier.from_fn("flaky-digits", verify)


def test_the_trl_reward_function_says_none_for_an_unjudged_completion() -> None:
    reward = trl_adapter.reward_function("grpo_envs/Digits-v0", verifier=flaky_digits_verifier())
    env = gymnasium.make("grpo_envs/Digits-v0")
    env.reset(seed=5)
    answer = str(env.unwrapped.task.answer)
    wrong = "8" if answer != "8" else "9"
    out = reward(completions=[answer, "7", wrong], task_seed=[5, 5, 5])
    assert out == [1.0, None, 0.0]


def test_verl_and_openrlhf_are_told_which_completions_were_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    from grpo_envs.adapters import openrlhf, verl
    from grpo_envs.adapters._common import Scorer

    scorer = Scorer("grpo_envs/Digits-v0", verifier=flaky_digits_verifier())
    monkeypatch.setattr(verl, "_scorer", lambda env_id, env_kwargs=None, judge="": scorer)
    info = {"env_id": "grpo_envs/Digits-v0", "task_seed": 5, "split": "train"}
    env = gymnasium.make("grpo_envs/Digits-v0")
    env.reset(seed=5)
    answer = str(env.unwrapped.task.answer)
    assert verl.compute_score("x", answer, answer, info)["masked"] is False
    timed_out = verl.compute_score("x", "7", answer, info)
    assert timed_out["masked"] is True and timed_out["status"] == "timeout" and timed_out["score"] == 0.0

    server = openrlhf.RewardServer("grpo_envs/Digits-v0", port=0, env_kwargs={"verifier": flaky_digits_verifier()})
    label = openrlhf.task_key("grpo_envs/Digits-v0", "train", 5)
    prompt = "p:"
    out = server.score(
        {"query": [prompt + answer, prompt + "7"], "prompts": [prompt, prompt], "labels": [label, label]}
    )
    assert out["rewards"] == [1.0, 0.0] and out["correct"] == [True, None]
    server.close()
    assert out["extra_logs"]["masked_frac"] == 0.5


class NeverRight(EchoDigit):
    """Every reply scores 0: every group has zero reward variance, and no group is solved."""

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return "", 0.0, True, False, {"correct": False}


class AlwaysRight(EchoDigit):
    """Every reply scores 1: every group has zero reward variance because every group is solved."""

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return "", 1.0, True, False, {"correct": True}


@pytest.mark.parametrize(
    ("env", "level", "said", "not_said"),
    [
        (NeverRight, "WARNING", "no group solved for 5 steps in a row", "all groups solved"),
        (AlwaysRight, "INFO", "all groups solved for 5 steps in a row", "nothing is being learned"),
    ],
)
def test_a_run_without_signal_says_why_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, env: Any, level: str, said: str, not_said: str
) -> None:
    trainer = GRPOTrainer(tiny(tmp_path, steps=11), env=env, show_progress=False)
    with caplog.at_level("INFO", logger="trainer"):
        trainer.train()
    messages = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [lv for lv, m in messages if said in m] == [level]  # once in 11 flat steps, not twice
    assert not any(not_said in m for _, m in messages)


def test_advantage_scales_are_functions_chosen_by_name() -> None:
    from trainer.losses._math import SCALES

    assert set(SCALES) == {"group", "batch", "none"} and SCALES["none"] is None
    rewards = [[1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 0.0]]
    by_batch = group_advantages(rewards, scale="batch")
    std = torch.tensor(rewards).flatten().std()  # one std over the batch: 0.5175
    assert torch.allclose(by_batch[0], torch.tensor([0.5, -0.5, -0.5, 0.5]) / std, atol=1e-6)
    with pytest.raises(TrainerError, match="scale must be one of"):
        group_advantages(rewards, scale="rank")
    _, adv = loss_rows([[rollout(1.0, "correct", True), rollout(0.0, "incorrect", False)]])
    assert adv.dtype == torch.float32 and adv.shape == (2,)  # advantages stay a tensor
