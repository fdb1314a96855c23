"""``verifier_executor``: the trainer's one switch from judging here to judging on Ray."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from grpo_envs import make_group
from trainer import TrainerError
from trainer._rollout import _scores
from trainer.config import GRPOConfig, load_config
from verifiers import VerifyResult


class Recording:
    """An executor that judges every completion "correct" and records each call's size."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def map(
        self, kind: str, references: Sequence[Any], completions: Sequence[Any], options: Mapping[str, Any]
    ) -> list[VerifyResult]:
        self.sizes.append(len(completions))
        return [VerifyResult.judged("correct", "recorded.") for _ in completions]

    def close(self) -> None:
        pass


def test_the_field_takes_local_or_ray() -> None:
    assert GRPOConfig().verifier_executor == "local"
    assert load_config(overrides={"verifier_executor": "ray"}).verifier_executor == "ray"
    with pytest.raises(TrainerError, match="verifier_executor must be one of local, ray"):
        GRPOConfig(verifier_executor="dask")


def test_every_group_of_a_step_is_judged_on_the_executor() -> None:
    groups = [make_group("grpo_envs/Arithmetic-v0", seed=s, num_generations=3) for s in range(4)]
    texts = [["\\boxed{1}", "\\boxed{2}", "\\boxed{3}"] for _ in groups]
    executor = Recording()
    scores = _scores(groups, texts, executor)
    assert sorted(executor.sizes) == [3, 3, 3, 3]  # concurrently: in any order
    assert all(score.rewards == (1.0, 1.0, 1.0) for score in scores)
    local = _scores(groups, texts, None)  # the default: judged here, group by group
    assert [s.rewards for s in local] == [g.score(t).rewards for g, t in zip(groups, texts, strict=True)]
