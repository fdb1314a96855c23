"""``verifier_executor``: the trainer's one switch from judging here to judging on Ray."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from grpo_envs import make_group, score_groups
from trainer import TrainerError
from trainer._distributed import Dist
from trainer.config import GRPOConfig, load_config
from verifiers import VerifyResult


class Recording:
    """An executor that judges every completion "correct" and records each call's size."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def map(
        self, workload: Any, references: Sequence[Any], completions: Sequence[Any], options: Mapping[str, Any]
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
    scores = score_groups(groups, texts, executor=executor)
    assert executor.sizes == [12]  # every group's answers in one batch
    assert all(score.rewards == (1.0, 1.0, 1.0) for score in scores)
    local = score_groups(groups, texts)  # the default: judged here
    assert [s.rewards for s in local] == [g.score(t).rewards for g, t in zip(groups, texts, strict=True)]


# -- under torchrun: every rank judges on the cluster rank 0 connected to ------------------------
@dataclasses.dataclass(frozen=True)
class Ranks(Dist):
    """A rank of a two-rank job whose ``gather`` gives what rank 0 said (``said``, or its own)."""

    said: str | None = None

    def gather(self, obj: Any) -> list[Any]:
        if self.said is None and not self.main:
            raise AssertionError("gather was not expected here")
        return [obj if self.main else self.said, obj]


class FakeRay:
    """Stands in for `RayExecutor`: records its address; ``connect`` gives one or raises."""

    made: list[FakeRay] = []
    fails: str | None = None

    def __init__(self, address: str | None = None) -> None:
        self.address, self.connected = address, False
        FakeRay.made.append(self)

    def connect(self) -> str:
        if FakeRay.fails:
            raise RuntimeError(FakeRay.fails)
        self.connected = True
        return self.address or "127.0.0.1:6380"


@pytest.fixture
def fake_ray(monkeypatch: pytest.MonkeyPatch) -> type[FakeRay]:
    import trainer.rollouts._executor

    FakeRay.made, FakeRay.fails = [], None
    monkeypatch.setattr(trainer.rollouts._executor, "RayExecutor", FakeRay)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    return FakeRay


def test_rank_0_starts_the_cluster_and_the_other_ranks_join_it(fake_ray: type[FakeRay]) -> None:
    from trainer.rollouts._executor import open_executor

    first = open_executor("ray", Ranks(rank=0, world=2))
    assert isinstance(first, FakeRay) and first.address is None and first.connected
    other = open_executor("ray", Ranks(rank=1, world=2, said="127.0.0.1:6380"))
    assert isinstance(other, FakeRay) and other.address == "127.0.0.1:6380" and other.connected


def test_rank_0s_failure_is_said_on_every_rank(fake_ray: type[FakeRay]) -> None:
    from trainer.rollouts._executor import open_executor

    fake_ray.fails = "no CPUs"
    with pytest.raises(TrainerError, match="rank 0 could not start a Ray cluster .*no CPUs"):
        open_executor("ray", Ranks(rank=0, world=2))
    with pytest.raises(TrainerError, match="rank 0 could not start a Ray cluster .*no CPUs"):
        open_executor("ray", Ranks(rank=1, world=2, said="error: no CPUs"))


def test_a_rank_that_cannot_reach_rank_0s_cluster_is_told_to_set_ray_address(fake_ray: type[FakeRay]) -> None:
    from trainer.rollouts._executor import open_executor

    fake_ray.fails = "connection refused"
    with pytest.raises(TrainerError, match="rank 1 cannot reach rank 0's Ray cluster at 10.0.0.1:6379.*RAY_ADDRESS"):
        open_executor("ray", Ranks(rank=1, world=2, said="10.0.0.1:6379"))


def test_with_ray_address_or_one_process_no_rank_waits_for_rank_0(
    fake_ray: type[FakeRay], monkeypatch: pytest.MonkeyPatch
) -> None:
    from trainer.rollouts._executor import open_executor

    assert open_executor("local", Ranks(rank=1, world=2)) is None
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:6390")
    ex = open_executor("ray", Ranks(rank=1, world=2))  # its gather would fail: never called
    assert repr(ex).startswith("RayExecutor(address=None") and not fake_ray.made  # RAY_ADDRESS: Ray's own rule
    monkeypatch.delenv("RAY_ADDRESS")
    assert repr(open_executor("ray", Dist())).startswith("RayExecutor(") and not fake_ray.made
