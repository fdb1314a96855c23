"""Rollout workers as Ray actors (``async_workers_on = "ray"``): the switch, the weights in Ray's
object store, and, on a real Ray cluster inside a loopback-only network namespace
(_ray_async_worker.py), the same numbers as worker processes, a killed actor replaced, a
processes' checkpoint resumed on actors."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.verifiers.ray_netns import need_namespace, run_worker
from trainer import TrainerError
from trainer.config import GRPOConfig, load_config
from trainer.policy._model import demo_model
from trainer.weights._channel import FileWeights, WeightChannel
from trainer.weights._ray import RayWeights, load_packed, pack

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


class Store:
    """Ray's object store, as `RayWeights` uses it: ``put`` (counted) and ``get``."""

    def __init__(self) -> None:
        self.objects: list[Any] = []

    def put(self, obj: Any) -> int:
        self.objects.append(obj)
        return len(self.objects) - 1

    def get(self, ref: int) -> Any:
        return self.objects[ref]


def test_the_switch_takes_local_or_ray_in_one_line() -> None:
    assert GRPOConfig().asynchronous.workers_on == "local"
    assert load_config(overrides={"async_workers_on": "ray"}).asynchronous.workers_on == "ray"
    with pytest.raises(TrainerError, match="async_workers_on must be one of local, ray"):
        GRPOConfig.from_dict({"async_level": 1, "async_workers_on": "slurm"})


def _same(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


def test_ray_weights_put_each_version_once_and_checkpoint_as_file_weights_do(tmp_path: Path) -> None:
    store = Store()
    channel = RayWeights(store)
    assert isinstance(channel, WeightChannel) and not isinstance(channel, FileWeights)  # composed, not a subclass
    a, b = demo_model(12, seed=1), demo_model(12, seed=2)  # tied embeddings: sent once, loaded back tied
    channel.publish(a, 0)
    channel.publish(b, 1)
    assert len(store.objects) == 2 and len(store.objects[0]["tensors"]) == len(a.state_dict()) - 1
    target = demo_model(12, seed=3)
    assert channel.load(target, 0) == 0 and _same(a, target)
    assert channel.load(target, 1) == 1 and _same(b, target)
    assert torch.equal(target.lm_head.weight, target.model.embed_tokens.weight)
    channel.save(1, tmp_path / "v1.safetensors")  # a checkpoint's copy: FileWeights reads it, and back
    files = FileWeights(tmp_path / "files")
    files.add(tmp_path / "v1.safetensors", 1)
    other = demo_model(12, seed=4)
    assert files.load(other, 1) == 1 and _same(b, other)
    channel.prune(below=1)
    assert channel.versions() == [1] and channel.newest() == 1
    with pytest.raises(TrainerError, match="weights version 0 was not sent with this job"):
        channel.load(target, 0)
    channel.add(files.path(1), 5)  # a resume: published again with the version the file says
    assert channel.load(other, 5) == 1
    channel.close()
    assert not channel.folder.exists() and not channel.refs


def test_weights_that_do_not_fit_the_model_are_one_clear_error() -> None:
    with pytest.raises(TrainerError, match="version 2 does not fit the worker's model: missing .*build the same"):
        load_packed(demo_model(12), pack(torch.nn.Linear(2, 2).state_dict(), 2))


def test_bfloat16_weights_travel_as_bytes() -> None:
    model = torch.nn.Linear(3, 2).to(torch.bfloat16)
    target = torch.nn.Linear(3, 2).to(torch.bfloat16)
    assert load_packed(target, pack(model.state_dict(), 4)) == 4 and _same(model, target)


class FakeRay(types.ModuleType):
    """``import ray`` for `connect`: records how it was initialised."""

    def __init__(self, initialized: bool) -> None:
        super().__init__("ray")
        self.initialized, self.calls = initialized, []

    def is_initialized(self) -> bool:
        return self.initialized

    def init(self, **kwargs: Any) -> None:
        self.calls.append(kwargs)
        if kwargs.get("address") == "unreachable":
            raise ConnectionError("no head answers\nmore")


def test_connect_takes_ray_address_else_a_new_local_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    from trainer.workers._async_ray import connect

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    fake = FakeRay(initialized=False)
    monkeypatch.setitem(sys.modules, "ray", fake)
    assert connect() == (fake, True) and fake.calls == [{"address": "local", "include_dashboard": False}]
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")
    fake.calls = []
    assert connect() == (fake, True) and fake.calls == [{}]  # Ray reads RAY_ADDRESS itself
    inside = FakeRay(initialized=True)  # a trainer inside a Ray job: that connection, kept open
    monkeypatch.setitem(sys.modules, "ray", inside)
    assert connect() == (inside, False) and inside.calls == []


# -- on a real Ray cluster, in a loopback-only network namespace ------------------------------------
@pytest.fixture(scope="module")
def played() -> dict[str, Any]:
    need_namespace()
    return run_worker("all", worker=Path(__file__).with_name("_ray_async_worker.py"), timeout_s=800)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_ray_actors_give_the_numbers_of_worker_processes_with_an_actor_killed_mid_run(played: dict[str, Any]) -> None:
    processes, killed = played["processes"], played["killed"]
    metrics = processes["metrics"]
    assert [m["staleness"] for m in metrics] == [0, 1, 1, 1]
    assert any(m["grad_norm"] > 0 for m in metrics[:-1]) and metrics[-1]["sampler_kl"] > 0  # weights moved
    assert killed["killed"] == 3 and killed["restarts"] == 1  # job 3's actor, killed after step 1, replaced
    assert killed["metrics"] == metrics  # bit for bit, with the killed actor's unfinished batches made again
    actors = set(killed["pids"])
    assert len(actors) >= 2 and killed["learner"] not in actors and not actors & set(processes["pids"])
    assert killed["versions_held"] == [3, 4] and not killed["connected"]  # pruned; disconnected at close


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_checkpoint_of_worker_processes_resumed_on_ray_actors_goes_on_to_the_same_numbers(
    played: dict[str, Any],
) -> None:
    metrics = played["processes"]["metrics"]
    assert played["saved"] == ["v00000001.safetensors"]  # k = 1: the version one update old
    assert played["resumed"]["metrics"] == metrics[2:]
    assert played["resumed"]["restarts"] == 0
    assert played["same_checkpoint"]  # the actors' step-4 checkpoint holds the processes' version 3


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_ray_actors_leave_nothing_behind(played: dict[str, Any]) -> None:
    assert played["shm_left"] == []  # each actor's folder of model files: freed, or swept once it died
    assert played["leftover"] == []
