"""The real `trl.GRPOTrainer` steps with ``environment_factory`` tools that play an env served by
OpenEnv's server (PythonTool with a `FakeSandbox`; scripted turns, as in the TRL tools test)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium
import pytest

trl = pytest.importorskip("trl")
pytest.importorskip("openenv")

from grpo_envs.adapters import openenv as adapter  # noqa: E402
from grpo_envs.adapters import trl as trl_adapter  # noqa: E402
from grpo_envs.errors import GrpoEnvsError  # noqa: E402
from tests.grpo_envs._trl_tiny import call, chat_tokenizer, grpo_config, scripted_turns, tiny_model  # noqa: E402
from tests.grpo_envs.test_adapters_openenv import PYTOOL, TOOL_KWARGS  # noqa: E402


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with adapter.OpenEnvServer(PYTOOL, max_sessions=8, env_kwargs=TOOL_KWARGS) as server:
        yield server.url


def test_the_tools_play_the_served_env(url: str) -> None:
    rows = adapter.dataset(url, n=2, seed=0)
    assert list(rows["task_seed"]) == list(trl_adapter.dataset(PYTOOL, n=2, seed=0, difficulty=1)["task_seed"])
    assert rows[0]["prompt"] == trl_adapter.dataset(PYTOOL, n=1, seed=0, conversational=True, difficulty=1)[0]["prompt"]
    env = adapter.environment_factory(url)()
    assert type(env).__name__ == "grpo_envs_PythonTool_v0" and "submit_answer" in env.reset(**rows[0])
    local = gymnasium.make(PYTOOL, **TOOL_KWARGS).unwrapped
    local.reset(seed=rows[0]["task_seed"])
    assert env.run_python("print(41)").startswith("Output:\n41\n") and env.steps[0]["status"] == "no_answer"
    assert env.submit_answer(str(local.task.answer)) == "Your answer was recorded. The episode is over."
    assert env.get_reward() == 1.0 and env.status == "correct"
    with pytest.raises(GrpoEnvsError, match="is task .*, not wrong-id"):
        env.reset(**{**rows[1], "task_id": "wrong-id"})


@pytest.mark.slow
@pytest.mark.filterwarnings(r"ignore:`\w*gradient_checkpointing\w*` is deprecated:FutureWarning")
def test_trl_grpo_trainer_steps_with_tools_served_by_openenv(url: str, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    tokenizer = chat_tokenizer()
    data = adapter.dataset(url, n=1, seed=0)
    local = gymnasium.make(PYTOOL, **TOOL_KWARGS).unwrapped
    local.reset(seed=data[0]["task_seed"])
    answer, rollouts, seen = int(local.task.answer), itertools.count(), []

    def run_python(text: str) -> str:
        return call("run_python", code=f"print({answer + next(rollouts) % 2})")

    class Scripted(trl.GRPOTrainer):
        """Turn 1 prints the answer (+1 on odd rollouts), turn 2 submits what was printed, turn 3 stops."""

        def _generate_single_turn(self, prompt_ids: list[list[int]], *args: Any, **kwargs: Any) -> Any:
            return scripted_turns(tokenizer, prompt_ids, r"Output:\n(-?\d+)\n", run_python)

        def _calculate_rewards(self, inputs: Any, prompts: Any, completions: Any, ids: Any) -> Any:
            rewards = super()._calculate_rewards(inputs, prompts, completions, ids)
            seen.append([(list(e.steps), e.get_reward()) for e in self.environments])
            return rewards

    args = grpo_config(tmp_path, per_device_train_batch_size=4, max_completion_length=512, max_steps=1)
    trainer = Scripted(
        model=tiny_model(tokenizer),
        args=args,
        processing_class=tokenizer,
        train_dataset=data,
        environment_factory=adapter.environment_factory(url),
    )
    trainer.train()
    logged = [h for h in trainer.state.log_history if "rewards/grpo_envs_PythonTool_v0/mean" in h]
    assert len(logged) == 1 and len(seen) == 1
    assert logged[0]["tools/call_frequency"] == 2.0 and logged[0]["tools/failure_frequency"] == 0.0
    for steps, reward in seen[0]:  # each rollout's reward is the server's verdict on its answer
        assert [s["tool"] for s in steps] == ["run_python", "submit_answer"]
        assert reward == (1.0 if steps[1]["action"] == f"\\boxed{{{answer}}}" else 0.0)
    assert sorted(r for _, r in seen[0]) == [0.0, 0.0, 1.0, 1.0]
    assert logged[0]["rewards/grpo_envs_PythonTool_v0/mean"] == pytest.approx(0.5)
