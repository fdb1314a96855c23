"""Our trainer on `OpenEnvEnv`: one GRPO step over OpenEnv's server equals the step on the env itself
(the same tasks, samples, verdicts, loss and eval), single-turn (groups) and multi-turn (stepped)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import pytest

pytest.importorskip("torch")
pytest.importorskip("openenv")

from grpo_envs.adapters.openenv import ENV_ID, OpenEnvServer  # noqa: E402
from tests.grpo_envs.test_adapters_openenv import PYTOOL, TOOL_KWARGS  # noqa: E402

pytestmark = pytest.mark.slow
KEYS = ("reward_mean", "correct_rate", "loss", "kl", "grad_norm", "completion_len_mean", "eval")


def _step(tmp_path: Path, env_id: str, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """One step; env_kwargs may hold objects (a sandbox), so the env comes as a factory."""
    from trainer import GRPOTrainer
    from trainer.config import GRPOConfig
    from trainer.policy._model import demo_tokenizer

    config = GRPOConfig(
        steps=1,
        prompts_per_step=4,
        num_generations=4,
        max_new_tokens=3,
        learning_rate=1e-3,
        output_dir=str(tmp_path / env_id.replace("/", "_")),
        save_every=0,
        eval_prompts=2,
        device="cpu",
    )
    tokenizer = demo_tokenizer("0123456789csmp=`\\{}()boxed ")
    factory = lambda **split: gymnasium.make(env_id, **env_kwargs, **split)  # noqa: E731
    metrics = GRPOTrainer(config, tokenizer=tokenizer, env=factory, show_progress=False).train()
    return {k: v for k, v in metrics.items() if k in KEYS or k.startswith("status/")}


@pytest.mark.parametrize(("env_id", "env_kwargs"), [("grpo_envs/Digits-v0", {}), (PYTOOL, TOOL_KWARGS)])
def test_a_grpo_step_over_openenv_is_the_step_on_the_env(tmp_path: Path, env_id: str, env_kwargs: Any) -> None:
    with OpenEnvServer(env_id, max_sessions=32, env_kwargs=env_kwargs) as server:
        remote = _step(tmp_path / "remote", ENV_ID, {"base_url": server.url})
    local = _step(tmp_path / "local", env_id, env_kwargs)
    assert remote == local and "eval" in remote
