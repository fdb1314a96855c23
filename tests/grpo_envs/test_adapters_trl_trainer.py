"""The real `trl.GRPOTrainer` trains 2 steps on CPU with our dataset and reward, and logs our rewards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import pytest

trl = pytest.importorskip("trl")

from grpo_envs import Rubric, format_reward  # noqa: E402
from grpo_envs.adapters import trl as adapter  # noqa: E402
from grpo_envs.envs.digits import PLAIN  # noqa: E402
from tests.grpo_envs._trl_tiny import grpo_config  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore")]


def test_trl_version_is_in_the_supported_range() -> None:
    from packaging.specifiers import SpecifierSet

    assert trl.__version__ in SpecifierSet(adapter.SUPPORTED_TRL)


def test_trl_grpo_trainer_logs_our_rewards(tmp_path: Path) -> None:
    from trainer.policy._model import demo_model, demo_tokenizer

    # A small format bonus (non-empty answer) makes rewards differ, so the comparison bites.
    rubric = Rubric(terms=(format_reward(PLAIN, weight=0.25),))
    tokenizer = demo_tokenizer("0123456789csmp=")
    model = demo_model(len(tokenizer), seed=1)
    seen: list[tuple[list[str], list[int], list[float]]] = []
    ours = adapter.reward_function("grpo_envs/Digits-v0", rubric=rubric)

    def recording(**kwargs: Any) -> list[float]:
        rewards = ours(**kwargs)
        seen.append((list(kwargs["completions"]), list(kwargs["task_seed"]), rewards))
        return rewards

    recording.__name__ = ours.__name__
    args = grpo_config(
        tmp_path,
        per_device_train_batch_size=8,
        max_completion_length=2,
        max_steps=2,
        learning_rate=1e-3,
        temperature=1.0,
    )
    trainer = trl.GRPOTrainer(
        model=model,
        reward_funcs=recording,
        args=args,
        processing_class=tokenizer,
        train_dataset=adapter.dataset("grpo_envs/Digits-v0", n=32, seed=0),
    )
    trainer.train()
    logged = [h for h in trainer.state.log_history if f"rewards/{ours.__name__}/mean" in h]
    assert len(logged) == 2 and len(seen) == 2
    for entry, (_, _, rewards) in zip(logged, seen, strict=True):
        assert entry[f"rewards/{ours.__name__}/mean"] == pytest.approx(sum(rewards) / len(rewards), abs=1e-6)
    assert len({r for _, _, rewards in seen for r in rewards}) > 1  # not all the same value
    env = gymnasium.make("grpo_envs/Digits-v0", rubric=rubric)
    for completions, seeds, rewards in seen:
        for completion, seed, reward in zip(completions, seeds, rewards, strict=True):
            env.reset(seed=seed)
            assert env.step(completion)[1] == pytest.approx(reward)
