"""GRPOTrainer end to end on CPU with the tiny demo model: any env, checkpoints, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium
import pytest
import torch

from grpo_envs import TextSpace
from trainer import TrainerError
from trainer._batch import make_batch
from trainer.config import GRPOConfig, load_config
from trainer.grpo import GRPOTrainer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def tiny(tmp_path: Path, **overrides: Any) -> GRPOConfig:
    base = dict(
        steps=3,
        prompts_per_step=4,
        num_generations=4,
        max_new_tokens=2,
        learning_rate=1e-3,
        beta=0.04,
        output_dir=str(tmp_path / "run"),
        save_every=0,
        eval_prompts=4,
        device="cpu",
    )
    base.update(overrides)
    return GRPOConfig(**base)


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class EchoDigit(gymnasium.Env[str, str]):
    """A plain Gymnasium env (not a ReasoningEnv): reward 1 when the reply starts with the digit."""

    alphabet = "0123456789e="

    def __init__(self, turns: int = 1) -> None:
        self.observation_space = TextSpace(100)
        self.action_space = TextSpace(100)
        self.turns, self.digit, self.t = turns, "0", 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.digit, self.t = str(int(self.np_random.integers(10))), 0
        return f"e{self.digit}=", {}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        self.t += 1
        ok = action.strip()[:1] == self.digit
        done = ok or self.t >= self.turns
        return ("" if done else f"e{self.digit}="), float(ok), done, False, {"correct": ok}


def test_trains_on_a_plain_gymnasium_env(tmp_path: Path) -> None:
    cfg = tiny(tmp_path)
    trainer = GRPOTrainer(cfg, env=lambda: EchoDigit(), show_progress=False)
    before = [p.detach().clone() for p in trainer.model.parameters()]
    result = trainer.train()
    log = rows(tmp_path / "run" / "metrics.jsonl")
    assert [r["step"] for r in log] == [1, 2, 3]
    for key in (
        "reward_mean",
        "reward_std",
        "correct_rate",
        "kl",
        "clip_low",
        "clip_high",
        "completion_len_mean",
        "completion_len_max",
        "truncated_frac",
        "zero_variance_frac",
        "loss",
        "grad_norm",
        "lr",
    ):
        assert key in log[0], key
    assert all(0 <= r["correct_rate"] <= 1 for r in log)
    perf = rows(tmp_path / "run" / "perf.jsonl")
    assert {"tokens_per_s", "time_rollout_s", "time_train_s", "peak_memory_mb"} <= set(perf[0])
    assert any(not torch.equal(a, b) for a, b in zip(before, trainer.model.parameters(), strict=True))
    assert "accuracy" in result["eval"] and "pass@4" in result["eval"]
    from transformers import AutoModelForCausalLM

    reloaded = AutoModelForCausalLM.from_pretrained(tmp_path / "run" / "final")
    assert sum(p.numel() for p in reloaded.parameters()) == sum(p.numel() for p in trainer.model.parameters())


def test_multi_turn_env_tokens_are_masked_out(tmp_path: Path) -> None:
    cfg = tiny(tmp_path, beta=0.0, max_new_tokens=1)
    trainer = GRPOTrainer(cfg, env=lambda: EchoDigit(turns=3), show_progress=False)
    groups = trainer._rollouts([1, 2], trainer._pool(trainer._envs, 2 * cfg.num_generations))
    multi = [r for g in groups for r in g if 0 in r.mask]
    assert multi, "some rollout should have needed a second turn"
    r = multi[0]
    assert len(r.ids) == len(r.mask) and r.mask[0] == 1 and r.generated >= 2
    batch = make_batch([r], trainer.tokenizer.pad_token_id)
    assert batch.mask.sum() == r.generated


def _options_config(tmp_path: Path, name: str, **overrides: Any) -> GRPOConfig:
    values: dict[str, Any] = dict(
        steps=3,
        prompts_per_step=8,
        num_generations=8,
        max_new_tokens=2,
        learning_rate=1e-2,
        output_dir=str(tmp_path / name),
        save_every=0,
        eval_prompts=2,
        device="cpu",
        env="grpo_envs/Digits-v0",
        num_iterations=2,
        micro_batch_size=16,
        warmup_steps=1,
        lr_scheduler="cosine",
        mask_truncated_completions=False,  # 2 tokens: most completions are cut off
    )
    return load_config(preset="dapo", overrides={**values, **overrides})


def test_reasoning_env_with_presets_and_options(tmp_path: Path) -> None:
    trainer = GRPOTrainer(_options_config(tmp_path, "run"), show_progress=False)
    assert trainer.ref_model is None  # beta 0: no reference model
    trainer.train()
    log = rows(tmp_path / "run" / "metrics.jsonl")
    assert [r["step"] for r in log] == [1, 2, 3]
    # warm-up for 1 step, then cosine decay over the 2 left: the rate after steps 1, 2, 3
    assert [r["lr"] for r in log] == pytest.approx([1e-2, 5e-3, 0.0], abs=1e-12)
    learned = [r for r in log if r["grad_norm"] > 0]
    assert learned, "some step should have had groups with different rewards"
    # two iterations per batch: the second runs on updated weights, so the mean ratio moves off 1
    assert any(abs(r["ratio"] - 1.0) > 1e-6 for r in learned)
    # dynamic sampling: a step whose groups all had equal rewards does not touch the weights
    for r in log:
        if r["zero_variance_frac"] == 1.0:
            assert r["grad_norm"] == 0.0 and r["loss"] == 0.0


def test_micro_batches_and_one_process_fsdp_make_the_same_update(tmp_path: Path) -> None:
    """Gradient accumulation over micro-batches of 1 gives the gradient of one pass over the batch;
    in one process ``distributed="fsdp"`` trains exactly as ``"ddp"`` (the mode matters only
    under torchrun). Compared before AdamW's step (which magnifies rounding in tiny gradients)."""

    def update(name: str, **overrides: Any) -> tuple[dict[str, Any], list[torch.Tensor]]:
        cfg = _options_config(tmp_path, name, steps=1, num_iterations=1, skip_zero_variance_groups=False, **overrides)
        trainer = GRPOTrainer(cfg, show_progress=False)
        metrics = trainer.step()
        return metrics, [p.grad.detach().clone() for p in trainer.model.parameters() if p.grad is not None]

    whole, grads = update("whole", micro_batch_size=64)
    assert whole["grad_norm"] > 0 and grads, "the step should learn"
    for name, overrides in (("micro", {"micro_batch_size": 1}), ("fsdp", {"distributed": "fsdp"})):
        other, other_grads = update(name, **overrides)
        assert other["loss"] == pytest.approx(whole["loss"], rel=1e-5, abs=1e-7), name  # ~0: advantages sum to 0
        assert other["grad_norm"] == pytest.approx(whole["grad_norm"], rel=1e-5), name
        assert len(other_grads) == len(grads)
        assert all(torch.allclose(a, b, rtol=1e-4, atol=1e-8) for a, b in zip(grads, other_grads, strict=True)), name


def test_a_verifier_that_fails_costs_a_completion_not_the_run(tmp_path: Path) -> None:
    from grpo_envs import Verifier
    from grpo_envs.envs.digits import Digits

    calls = {"n": 0}

    def flaky(reference: Any, completion: str) -> Any:
        calls["n"] += 1
        if calls["n"] % 3 == 0:
            raise RuntimeError("verifier exploded")
        from grpo_envs.envs.digits import _first_digit

        return _first_digit(reference, completion)

    cfg = tiny(tmp_path, max_new_tokens=1, beta=0.0)
    trainer = GRPOTrainer(
        cfg, env=lambda **kw: Digits(verifier=Verifier.from_fn("flaky", flaky), **kw), show_progress=False
    )
    trainer.train()
    log = rows(tmp_path / "run" / "metrics.jsonl")
    assert sum(r.get("status/error", 0) for r in log) > 0
    assert any("verifier exploded" in e for r in log for e in r.get("errors", []))


def test_bad_configs_are_clear() -> None:
    with pytest.raises(TrainerError, match="num_generations must be >= 2"):
        GRPOConfig(num_generations=1)
    with pytest.raises(TrainerError, match="unknown config field 'lr'"):
        load_config(overrides={"lr": "1"})
    with pytest.raises(TrainerError, match="preset must be one of"):
        load_config(preset="ppo")


def test_config_precedence_preset_file_flags(tmp_path: Path) -> None:
    toml = tmp_path / "run.toml"
    toml.write_text('preset = "dr_grpo"\nsteps = 7\nlearning_rate = 2e-5\nenv_kwargs = { ops = "m" }\n')
    cfg = load_config(toml, overrides={"learning_rate": "3e-5"})
    assert (cfg.loss_type, cfg.scale, cfg.beta) == ("dr_grpo", "none", 0.0)  # the file's preset
    assert cfg.steps == 7 and cfg.learning_rate == 3e-5 and cfg.env_kwargs == {"ops": "m"}  # flags win
    yaml = pytest.importorskip("yaml")
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({"steps": 9, "mask_truncated_completions": True}))
    assert load_config(path).steps == 9 and load_config(path).mask_truncated_completions


# -- checkpoints, Ctrl-C, SIGKILL and --resume ----------------------------------------------------
def train_flags(out: Path, steps: int, *extra: str, beta: str = "0.04") -> list[str]:
    """The flags of a short Digits run on the CPU into ``out`` (checkpoints every 2 steps, 2 kept)."""
    return [
        "--env",
        "grpo_envs/Digits-v0",
        "--steps",
        str(steps),
        "--prompts_per_step",
        "4",
        "--num_generations",
        "4",
        "--max_new_tokens",
        "1",
        "--beta",
        beta,
        "--learning_rate",
        "3e-3",
        "--save_every",
        "2",
        "--keep_checkpoints",
        "2",
        "--eval_prompts",
        "2",
        "--device",
        "cpu",
        "--output_dir",
        str(out),
        "--no-progress",
        *extra,
    ]


def _train_cmd(out: Path, steps: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "trainer", *train_flags(out, steps, *extra)]


def _weights(path: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(next(path.glob("*.safetensors")))


@pytest.mark.slow
def test_sigkill_then_resume_matches_an_uninterrupted_run_bit_for_bit(tmp_path: Path) -> None:
    steps = 8
    env = {**os.environ, "CUBLAS_WORKSPACE_CONFIG": ":4096:8"}
    straight = tmp_path / "straight"
    subprocess.run(_train_cmd(straight, steps), check=True, capture_output=True, env=env, timeout=300)

    killed = tmp_path / "killed"
    child = subprocess.Popen(_train_cmd(killed, steps), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 240
    while not (killed / "checkpoints" / "step-000004").exists():
        assert child.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert not list((killed / "checkpoints").glob("step-000008"))
    resumed = subprocess.run(
        _train_cmd(killed, steps, "--resume"), capture_output=True, text=True, env=env, timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr
    a_rows, b_rows = rows(straight / "metrics.jsonl"), rows(killed / "metrics.jsonl")
    assert b_rows[0].pop("run_id") == json.loads((killed / "run.json").read_text())["run_id"], "the run kept its id"
    assert a_rows[0].pop("run_id") != json.loads((killed / "run.json").read_text())["run_id"]
    assert b_rows == a_rows
    a, b = _weights(straight / "final"), _weights(killed / "final")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.slow
def test_ctrl_c_saves_a_checkpoint_and_resume_needs_the_same_config(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # Ctrl-C as a terminal sends it, to a child that handles it: an ignored SIGINT is inherited
    # across exec (a test before this one in the same worker can leave it ignored), so reset it
    child = subprocess.Popen(
        _train_cmd(out, 400),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 240
    while not (out / "metrics.jsonl").exists() or len(rows(out / "metrics.jsonl")) < 3:
        assert time.monotonic() < deadline and child.poll() is None
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=120)
    assert child.returncode == 130, stderr
    saved = sorted((out / "checkpoints").glob("step-*"))
    assert saved and json.loads((saved[-1] / "trainer_state.json").read_text())["step"] >= 3
    other = subprocess.run(
        _train_cmd(out, 400, "--resume", "--learning_rate", "1e-4"), capture_output=True, text=True, timeout=120
    )
    assert other.returncode == 2 and "another config" in other.stderr


@pytest.mark.slow
@pytest.mark.timeout(900)  # ~30 s each on a quiet machine; several times that on a loaded one
@pytest.mark.parametrize("preset", ["grpo", "dapo", "gspo", "cispo"])
def test_the_demo_learns(tmp_path: Path, preset: str) -> None:
    """The demo's config (from scratch, lr 3e-3, one-token answers) with each loss's preset. The
    one-token answers never end with EOS, so dapo's truncation masking (which would drop every
    completion) is off. 60 steps: the correct rate went 0.08 -> 0.51 (0.55 with dapo) from the
    first ten steps to the last ten."""
    cfg = load_config(
        Path(__file__).resolve().parents[2] / "configs" / "demo.toml",
        preset=preset,
        overrides={
            "steps": 60,
            "output_dir": str(tmp_path / "demo"),
            "save_every": 0,
            "eval_every": 0,
            "mask_truncated_completions": False,
        },
    )
    assert cfg.loss_type == preset
    GRPOTrainer(cfg, show_progress=False).train()
    log = rows(tmp_path / "demo" / "metrics.jsonl")
    first = sum(r["correct_rate"] for r in log[:10]) / 10
    last = sum(r["correct_rate"] for r in log[-10:]) / 10
    assert last - first >= 0.25, (first, last)


def test_chat_messages_go_through_the_tokenizer_chat_template(tmp_path: Path) -> None:
    from trainer.rollouts._rollout import _TokenContexts

    trainer = GRPOTrainer(tiny(tmp_path, beta=0.0), env="grpo_envs/Digits-v0", show_progress=False)
    tok = trainer.tokenizer
    messages = [{"role": "user", "content": "c7="}]
    contexts = _TokenContexts(tok)
    assert contexts.start("c7=", messages) == tok("c7=", add_special_tokens=False)["input_ids"]
    tok.chat_template = (
        "{% for m in messages %}{{ m['content'] }}={% endfor %}{% if add_generation_prompt %}0{% endif %}"
    )
    assert tok.decode(contexts.start("c7=", messages)) == "c7==0"


@pytest.mark.gpu
def test_one_bf16_training_step_on_the_gpu(tmp_path: Path) -> None:
    cfg = tiny(tmp_path, device="cuda", steps=1, env="grpo_envs/Digits-v0", max_new_tokens=1)
    trainer = GRPOTrainer(cfg, show_progress=False)
    assert next(trainer.model.parameters()).dtype == torch.bfloat16
    metrics = trainer.step()
    assert metrics["step"] == 1 and metrics["grad_norm"] >= 0
