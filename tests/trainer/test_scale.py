"""LoRA (reference = adapter disabled) and torchrun data parallel (DDP, FSDP) on CPU with gloo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.trainer.test_trainer import tiny as trainer_tiny
from trainer import TrainerError
from trainer._batch import make_batch
from trainer.config import GRPOConfig
from trainer.grpo import GRPOTrainer
from trainer.policy._lora import adapter_disabled
from trainer.policy._model import demo_model

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
WORKER = Path(__file__).with_name("_dist_worker.py")
CASES = ["grpo", "dapo_skip", "dr_grpo", "gspo", "cispo"]


def tiny(tmp_path: Path, **overrides: Any) -> GRPOConfig:
    """test_trainer's tiny run with LoRA (r 4): 2 steps of 3 new tokens at learning rate 1e-2."""
    changes: dict[str, Any] = {"steps": 2, "max_new_tokens": 3, "learning_rate": 1e-2, "lora": {"r": 4}}
    return trainer_tiny(tmp_path, **{**changes, **overrides})


# -- LoRA ----------------------------------------------------------------------------------------
def test_lora_reference_is_the_base_model_with_the_adapter_disabled(tmp_path: Path) -> None:
    cfg = tiny(tmp_path)
    trainer = GRPOTrainer(cfg, show_progress=False)
    assert trainer.ref_model is None, "LoRA must not keep a second copy of the model"
    trainable = [n for n, p in trainer.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in n for n in trainable)
    for _ in range(2):
        metrics = trainer.step()
    assert metrics["kl"] > 0, "after two updates the adapted policy differs from the reference"
    groups = trainer._rollouts([11, 12], trainer._pool(trainer._envs, 2))
    batch = make_batch([r for g in groups for r in g], trainer.tokenizer.pad_token_id)
    rows = slice(0, batch.ids.shape[0])
    base = demo_model(len(trainer.tokenizer), seed=cfg.seed).eval()  # the same initial weights, never trained
    trainer.model.eval()
    with torch.no_grad():
        expected = trainer._logps(base, batch, rows)
        with adapter_disabled(trainer.model):
            disabled = trainer._logps(trainer.model, batch, rows)
        enabled = trainer._logps(trainer.model, batch, rows)
        reference = trainer._ref_logps(batch, rows)
    assert reference is not None
    torch.testing.assert_close(disabled, expected, rtol=0, atol=1e-6)
    torch.testing.assert_close(reference, expected, rtol=0, atol=1e-6)
    assert (enabled - expected).abs().max() > 1e-4, "the adapter should have changed the policy"


def test_lora_checkpoint_resume_and_final_model(tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM

    cfg = tiny(tmp_path, steps=2, save_every=1)
    first = GRPOTrainer(cfg, show_progress=False)
    first.train()
    saved = tmp_path / "run" / "checkpoints" / "step-000002" / "model"
    assert (saved / "adapter_model.safetensors").is_file(), "a LoRA checkpoint holds the adapter"
    assert not list(saved.glob("model*.safetensors")), "not the frozen base weights"
    resumed = GRPOTrainer(cfg, show_progress=False, resume=True)
    assert resumed.step_count == 2
    lora = {n: p for n, p in first.model.named_parameters() if "lora_" in n}
    for name, param in resumed.model.named_parameters():
        if name in lora:
            torch.testing.assert_close(param, lora[name], rtol=0, atol=0)
    assert any(p.abs().max() > 0 for n, p in lora.items() if "lora_B" in n), "lora_B starts at zero; it trained"
    final = AutoModelForCausalLM.from_pretrained(tmp_path / "run" / "final").eval()
    assert (tmp_path / "run" / "final" / "adapter" / "adapter_model.safetensors").is_file()
    ids = torch.tensor([[5, 6, 7, 8]])
    first.model.eval()
    with torch.no_grad():
        torch.testing.assert_close(final(ids).logits, first.model(input_ids=ids).logits, rtol=1e-4, atol=1e-5)


def test_lora_bad_target_modules_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TrainerError, match="target_modules"):
        GRPOTrainer(tiny(tmp_path, lora={"r": 4, "target_modules": "no_such_proj"}), show_progress=False)


# -- torchrun ------------------------------------------------------------------------------------
def _env() -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}


def _torchrun(*args: str, nproc: int = 2, timeout: float = 240, ok: bool = True) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(nproc), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=_env())
    if ok:
        assert done.returncode == 0, done.stderr[-4000:]
    return done


@pytest.fixture(scope="module")
def updates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same global batch, updated by 1 process, by 2 DDP ranks and by 2 FSDP ranks."""
    out = tmp_path_factory.mktemp("dist")
    single = subprocess.run(
        [sys.executable, str(WORKER), str(out), "ddp", ",".join(CASES)],
        capture_output=True,
        text=True,
        timeout=240,
        env=_env(),
    )
    assert single.returncode == 0, single.stderr[-4000:]
    _torchrun(str(WORKER), str(out), "ddp", ",".join(CASES))
    _torchrun(str(WORKER), str(out), "fsdp", "grpo,dapo_skip")
    return out


def _load(out: Path, name: str) -> dict[str, Any]:
    return dict(torch.load(out / f"{name}.pt", weights_only=False))


def _same_step(a: torch.Tensor, b: torch.Tensor, name: str, steps: int = 1) -> None:
    """Adam divides by |grad|: where a gradient is ~0 (a key bias's is 0 in exact arithmetic),
    rounding may flip a step of up to lr (1e-3): at most one weight in 1,000 (or one per tensor) per step."""
    gap = (a - b).abs()
    flipped = int((gap > 1e-6).sum())
    limit = steps * max(1, gap.numel() // 1000)
    assert flipped <= limit and float(gap.max()) <= steps * 2e-3, f"weights of {name}: {flipped}"


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_two_ddp_ranks_make_the_same_update_as_one_process(updates: Path, case: str) -> None:
    """Every loss, and (gspo, cispo) importance weights and a second, off-policy iteration: the
    gradients of the last iteration, the weights and every logged number agree."""
    from tests.trainer._dist_worker import CASES as SETTINGS

    one, two = _load(updates, f"{case}-ddp-1"), _load(updates, f"{case}-ddp-2")
    assert one["grads"].keys() == two["grads"].keys()
    steps = int(SETTINGS[case].get("num_iterations", 1))
    moved = 0
    for name, grad in one["grads"].items():
        # after an optimizer step, the second iteration's float32 sums differ at ~1e-5 of the largest gradient
        atol = 1e-7 if steps == 1 else 1e-4 * float(grad.abs().max())
        torch.testing.assert_close(two["grads"][name], grad, rtol=1e-4, atol=atol, msg=f"grad of {name}")
        _same_step(two["weights"][name], one["weights"][name], name, steps)
        moved += int(grad.abs().max() > 0)
    assert moved > len(one["grads"]) // 2, "the update must actually move the weights"
    m1 = json.loads((updates / f"{case}-ddp-1.json").read_text())
    m2 = json.loads((updates / f"{case}-ddp-2.json").read_text())
    assert m1.keys() == m2.keys()
    for key in m1:  # token means weighted by tokens, shares of completions by completions
        assert m2[key] == pytest.approx(m1[key], rel=1e-4, abs=1e-6), key
    if case in ("gspo", "cispo"):  # the importance weights and the clips acted
        assert 0 < m1["is_clip_frac"] < 1 and m1["kl" if case == "cispo" else "clip_low"] > 0, m1


@pytest.mark.slow
@pytest.mark.parametrize("case", ["grpo", "dapo_skip"])  # dapo_skip: rank 1 has no rows and a padding row
def test_fsdp_makes_the_same_update_as_ddp(updates: Path, case: str) -> None:
    ddp, fsdp = _load(updates, f"{case}-ddp-2"), _load(updates, f"{case}-fsdp-2")
    for name, grad in ddp["grads"].items():
        torch.testing.assert_close(fsdp["grads"][name], grad, rtol=1e-4, atol=1e-7, msg=f"grad of {name}")
        _same_step(fsdp["weights"][name], ddp["weights"][name], name)


@pytest.mark.slow
def test_fsdp_generation_keeps_ranks_in_step_when_they_stop_at_different_lengths(tmp_path: Path) -> None:
    """Under FSDP every forward is a collective: a rank whose sequences all stopped must keep
    stepping until the others stop (``synced_gpus``), or the job hangs."""
    _torchrun(str(WORKER), str(tmp_path), "fsdp-generate", timeout=180)
    ranks = [json.loads((tmp_path / f"fsdp-generate-{r}.json").read_text()) for r in (0, 1)]
    assert len(ranks[0]) == len(ranks[1]) == 4, "3 training steps and one evaluation, one call each"
    assert ranks[0] != ranks[1], f"the ranks should stop at different lengths to test this: {ranks}"
    assert min(map(min, ranks)) < 24, "generations stop at EOS, before max_new_tokens"
    rows = (tmp_path / "run-fsdp-generate" / "metrics.jsonl").read_text().splitlines()
    assert len(rows) == 3


@pytest.mark.slow
def test_torchrun_training_run_logs_once_and_resumes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    flags = [
        "-m",
        "trainer",
        "--env",
        "grpo_envs/Digits-v0",
        "--device",
        "cpu",
        "--prompts_per_step",
        "4",
        "--num_generations",
        "4",
        "--max_new_tokens",
        "3",
        "--eval_prompts",
        "4",
        "--save_every",
        "1",
        "--output_dir",
        str(run),
        "--no-progress",
        "--learning_rate",
        "1e-3",
    ]
    _torchrun(*flags, "--steps", "2")
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2], "rank 0 alone writes one row per step"
    assert all(r["completion_len_mean"] > 0 for r in rows)
    state = json.loads((run / "checkpoints" / "step-000002" / "trainer_state.json").read_text())
    assert state["world_size"] == 2
    _torchrun(*flags, "--steps", "3", "--resume")
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2, 3]
    assert (run / "final" / "config.json").is_file()
    # the run directory's rules hold under torchrun too: every rank stops, none hangs
    run_id = json.loads((run / "run.json").read_text())["run_id"]
    assert rows[0]["run_id"] == run_id and state["run_id"] == run_id
    refused = _torchrun(*flags, "--steps", "2", ok=False, timeout=120)
    assert refused.returncode != 0 and "already holds a run" in refused.stderr and "--overwrite" in refused.stderr
    below = _torchrun(*flags, "--steps", "2", "--resume", ok=False, timeout=120)
    assert below.returncode != 0 and "--steps 2 is below the checkpoint's step 3" in below.stderr
    _torchrun(*flags, "--steps", "1", "--overwrite")
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("run.old-")]
    assert len(moved) == 1 and len((moved[0] / "metrics.jsonl").read_text().splitlines()) == 3
    fresh = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in fresh] == [1] and fresh[0]["run_id"] not in (None, run_id)
