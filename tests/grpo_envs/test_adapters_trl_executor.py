"""The TRL reward function's ``executor``: every task of a batch judged on one executor, in one
batch (a recording one here: RayExecutor itself is tested in tests/verifiers/test_ray_executor.py)."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import pytest

from grpo_envs import env_ids
from grpo_envs.adapters import _common as common
from grpo_envs.adapters import trl as trl_adapter
from grpo_envs.errors import EnvConfigError
from verifiers import VerifyResult, Workload
from verifiers.errors import VerifierInputError

ENV = "grpo_envs/Arithmetic-v0"


class Recording:
    """An executor whose verdicts come from the completion, not the gold: "yes" is correct,
    "slow" timed out, anything else incorrect. Records each call (threads call it at once)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str], list[str]]] = []
        self.lock = threading.Lock()

    def map(
        self, workload: Workload, references: Sequence[Any], completions: Sequence[Any], options: Mapping[str, Any]
    ) -> list[VerifyResult]:
        with self.lock:
            self.calls.append((workload.name, [str(r) for r in references], [str(c) for c in completions]))
        said = {"yes": "correct", "slow": "timeout"}
        return [VerifyResult.judged(said.get(boxed(str(c)), "incorrect"), "recorded.") for c in completions]

    def close(self) -> None:
        pass


def boxed(text: str) -> str:
    return text.removeprefix("\\boxed{").removesuffix("}")


def batch() -> tuple[list[str], dict[str, list[Any]]]:
    """Three tasks interleaved, with 3, 2 and 1 completions: right answers (the executor calls
    them incorrect), "yes" (called correct) and "slow" (called a timeout)."""
    ds = trl_adapter.dataset(ENV, n=3, seed=0)
    order = [(0, "yes"), (1, "right"), (2, "slow"), (0, "right"), (1, "yes"), (0, "slow")]
    texts = [f"\\boxed{{{ds[t]['reference'] if what == 'right' else what}}}" for t, what in order]
    columns = {key: [ds[t][key] for t, _ in order] for key in ("task_seed", "split", "reference")}
    return texts, columns


def test_every_task_of_a_batch_goes_to_the_executor_and_rewards_come_back_in_order() -> None:
    texts, columns = batch()
    executor = Recording()
    reward = trl_adapter.reward_function(ENV, executor=executor)
    logged: list[tuple[str, float]] = []
    got = reward(prompts=[""] * 6, completions=texts, log_metric=lambda k, v: logged.append((k, v)), **columns)
    assert [(kind, len(c)) for kind, _, c in executor.calls] == [("math", 6)]  # one call for every task
    (_, refs, comps), references = executor.calls[0], [str(r) for r in columns["reference"]]
    assert sorted(zip(refs, comps, strict=True)) == sorted(zip(references, texts, strict=True))  # each with its gold
    expected = {"yes": 1.0, "slow": None}
    assert got == [expected.get(boxed(t), 0.0) for t in texts]  # what the executor said, in order
    assert logged == [("grpo_envs/correct_rate", 2 / 6)]


def test_the_default_judges_here_as_env_step_does() -> None:
    texts, columns = batch()
    got = trl_adapter.reward_function(ENV)(completions=texts, **columns)
    env = gymnasium.make(ENV)
    stepped = []
    for text, seed in zip(texts, columns["task_seed"], strict=True):
        env.reset(seed=seed)
        stepped.append(env.step(text)[1])
    assert got == stepped and sorted(stepped) == [0.0] * 4 + [1.0] * 2  # the right answers, judged truly


def test_a_named_executor_is_made_at_the_first_call_and_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []

    def executor_named(name: str) -> Recording:
        made.append(name)
        return Recording()

    monkeypatch.setattr(common, "executor_named", executor_named)
    monkeypatch.setattr(common, "_EXECUTORS", {})
    first = trl_adapter.reward_function(ENV, executor="ray")
    second = trl_adapter.reward_function(ENV, executor="ray", n_ops=2)
    assert made == []  # building a reward function starts nothing
    texts, columns = batch()
    assert first(completions=texts, **columns) == first(completions=texts, **columns)
    second(completions=["\\boxed{yes}"], task_seed=[columns["task_seed"][0]])
    assert made == ["ray"]
    recorded = common._EXECUTORS["ray"]
    assert isinstance(recorded, Recording) and len(recorded.calls) == 1 + 1 + 1  # one per batch


def test_a_bad_executor_is_refused_when_the_reward_function_is_built() -> None:
    with pytest.raises(VerifierInputError, match="executor must be 'local' or 'ray', got 'dask'"):
        trl_adapter.reward_function(ENV, executor="dask")
    with pytest.raises(VerifierInputError, match="got None"):
        trl_adapter.reward_function(ENV, executor=None)
    with pytest.raises(EnvConfigError, match="n_ops"):  # the env's own arguments still reach it
        trl_adapter.reward_function(ENV, executor=Recording(), n_ops=99)(completions=["1"], task_seed=[1])


def test_no_env_takes_an_argument_named_executor() -> None:
    # reward_function(env_id, executor=..., **env_kwargs) keeps ``executor`` for itself
    from gymnasium.envs.registration import load_env_creator

    for env_id in env_ids():
        entry = gymnasium.registry[env_id].entry_point
        creator = load_env_creator(entry) if isinstance(entry, str) else entry
        classes = creator.__mro__ if isinstance(creator, type) else (creator,)
        takes = [p for c in classes if "__init__" in vars(c) for p in inspect.signature(c.__init__).parameters]
        assert "executor" not in takes, env_id
