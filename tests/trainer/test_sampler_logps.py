"""The vLLM generator's pieces that run without vLLM: the sampler's log-probs through rollouts and
batches, importance sampling in the update (every mode, with a scripted sampler), LoRA weights merged for the sync, and the
errors. The engine itself is tested in test_train_vllm.py (in the vLLM virtualenv)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import pytest
import torch

from tests.trainer.test_trainer import EchoDigit, tiny
from trainer import GRPOTrainer, TrainerError
from trainer._batch import make_batch
from trainer.config import GRPOConfig
from trainer.generation._generator import Continuation, Generator, SamplingParams
from trainer.generation._transformers import TransformersGenerator
from trainer.generation._vllm import KWARGS_ENV, _env_kwargs, policy_weights
from trainer.policy._lora import apply_lora, merged_copy
from trainer.policy._model import demo_model, demo_tokenizer
from trainer.rollouts._rollout import rollout


class Scripted:
    """A `Generator` with log-probs: every context gets ``[7, EOS]`` with log-probs ``[-0.5, -0.25]``."""

    def __init__(self, eos: int) -> None:
        self.eos, self.calls = eos, 0

    def generate(self, contexts: list[list[int]], params: SamplingParams) -> list[Continuation]:
        self.calls += 1
        return [Continuation((7, self.eos), False, (-0.5, -0.25)) for _ in contexts]


@pytest.mark.parametrize("turns", [1, 2])
def test_a_logged_generators_logps_follow_the_tokens_into_the_batch(turns: int) -> None:
    tok = demo_tokenizer("0123456789e=")
    gen = Scripted(tok.eos_token_id)
    assert isinstance(gen, Generator)
    single = turns == 1
    make_env = (lambda: gymnasium.make("grpo_envs/Digits-v0")) if single else (lambda: EchoDigit(turns=turns))
    envs = [make_env() for _ in range(2 if single else 6)]
    sampling = dict(max_new_tokens=2, temperature=1.0)
    groups = rollout(gen, tok, envs, [1, 2], 3, make_env=make_env, **sampling)  # type: ignore[arg-type]
    rows = [r for g in groups for r in g]
    for r in rows:
        assert r.sampler_logps is not None and len(r.sampler_logps) == len(r.ids) == len(r.mask)
        generated = [lp for lp, m in zip(r.sampler_logps, r.mask, strict=True) if m]
        assert generated == [-0.5, -0.25] * (len(generated) // 2) and len(generated) >= 2
        assert all(lp == 0.0 for lp, m in zip(r.sampler_logps, r.mask, strict=True) if not m)  # env tokens
    if not single:
        assert any(sum(r.mask) == 4 for r in rows)  # some episodes took both turns (EchoDigit never says e7)
    batch = make_batch(rows, tok.pad_token_id)
    assert batch.sampler_logps is not None
    for k, r in enumerate(rows):
        assert batch.sampler_logps[k, : len(r.ids)].tolist() == r.sampler_logps
    rows[0].sampler_logps = None  # one row without them: no sampler log-probs at all
    assert make_batch(rows, tok.pad_token_id).sampler_logps is None


class FarSampler:
    """Samples with transformers over the trainer's own policy (same tokens as the "hf" generator
    would) but reports every token's log-prob as -50: the weights ``exp(train + 50)`` all hit the cap."""

    def __init__(self, trainer: GRPOTrainer) -> None:
        self.inner = TransformersGenerator(trainer.model, trainer.tokenizer, trainer.device)
        self.synced = 0

    def generate(self, contexts: list[list[int]], params: SamplingParams) -> list[Continuation]:
        return [Continuation(c.ids, c.truncated, (-50.0,) * len(c.ids)) for c in self.inner.generate(contexts, params)]

    def sync(self, model: Any) -> float:
        self.synced += 1
        return 0.001


def far_trainer(tmp_path: Path, cap: float, **overrides: Any) -> tuple[GRPOTrainer, FarSampler]:
    name = "-".join([str(cap), *map(str, overrides.values())])
    cfg = tiny(tmp_path / name, importance_sampling_clip_max=cap, max_grad_norm=1e9, steps=2, **overrides)
    trainer = GRPOTrainer(cfg, env=lambda: EchoDigit(), show_progress=False)
    trainer.engine = FarSampler(trainer)  # type: ignore[assignment]
    return trainer, trainer.engine  # type: ignore[return-value]


def test_importance_weights_at_their_cap_scale_the_update_by_the_cap(tmp_path: Path) -> None:
    capped, sampler = far_trainer(tmp_path, 3.0)
    a = capped.step()
    plain, _ = far_trainer(tmp_path, 0.0)  # importance_sampling_clip_max = 0: no weights; the same seeds
    b = plain.step()
    assert a["correct_rate"] == b["correct_rate"] and a["reward_std"] == b["reward_std"]  # the same samples
    assert b["grad_norm"] > 0 and a["grad_norm"] == pytest.approx(3.0 * b["grad_norm"], rel=1e-4)
    assert a["sampler_logp_diff"] > 40 and a["sampler_kl"] > 40  # -50 vs the policy's own ~-2.5
    assert a["is_clip_frac"] == a["is_seq_clip_frac"] == 1.0 and a["is_weight_mean"] == pytest.approx(3.0)
    assert "is_clip_frac" not in b and b["sampler_logp_diff"] > 40  # off: no weights, the gap still measured
    assert sampler.synced == 1  # the engine is synced after the step


@pytest.mark.parametrize("mode", ["token_mask", "sequence_mask", "seq_mean_mask"])
def test_a_mask_mode_drops_tokens_whose_weight_is_out_of_bounds(tmp_path: Path, mode: str) -> None:
    masked, _ = far_trainer(tmp_path, 3.0, importance_sampling_mode=mode)
    a = masked.step()  # every weight is e^47 > 3: masked to 0, so nothing is learned
    assert a["grad_norm"] == 0.0 and a["is_clip_frac"] == a["is_seq_clip_frac"] == 1.0 and a["is_weight_mean"] == 0.0
    assert a["sampler_logp_diff"] > 40


@pytest.mark.parametrize("mode", ["sequence_truncate", "seq_mean_truncate"])
def test_sequence_modes_at_their_cap_scale_the_update_by_the_cap(tmp_path: Path, mode: str) -> None:
    capped = far_trainer(tmp_path, 3.0, importance_sampling_mode=mode)[0].step()  # sequence weights e^~95: 3
    plain = far_trainer(tmp_path, 0.0)[0].step()  # the same seeds, no weights
    assert plain["grad_norm"] > 0 and capped["grad_norm"] == pytest.approx(3.0 * plain["grad_norm"], rel=1e-4)


def test_policy_weights_merge_a_lora_adapter_out_of_place() -> None:
    model = apply_lora(demo_model(20), r=4, alpha=8, dropout=0.0, targets="all-linear")
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.1)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    got = dict(policy_weights(model))
    want = merged_copy(model).state_dict()
    assert got.keys() == want.keys()
    assert all(torch.allclose(got[k], want[k], atol=1e-6) for k in want)
    q = "model.layers.0.self_attn.q_proj"
    assert not torch.allclose(got[f"{q}.weight"], before[f"base_model.model.{q}.base_layer.weight"])  # merged
    assert all(torch.equal(v, model.state_dict()[k]) for k, v in before.items())  # the model is untouched


def test_the_vllm_generator_without_vllm_says_how_to_get_it(tmp_path: Path) -> None:
    try:
        import vllm  # noqa: F401

        pytest.skip("vLLM is importable here")
    except ImportError:
        pass
    with pytest.raises(TrainerError, match="needs vLLM.*scripts/ensure-vllm.sh"):
        GRPOTrainer(tiny(tmp_path, generator="vllm"), show_progress=False)


def test_bad_generator_settings_are_named() -> None:
    with pytest.raises(TrainerError, match="generator must be one of hf, vllm"):
        GRPOConfig(generator="sglang")
    with pytest.raises(TrainerError, match="importance_sampling_clip_max must be >= 0"):
        GRPOConfig(importance_sampling_clip_max=-1.0)
    with pytest.raises(TrainerError, match="importance_sampling_mode must be one of token_truncate, token_mask"):
        GRPOConfig(importance_sampling_mode="sequence")
    with pytest.raises(TrainerError, match="importance_sampling_clip_min must be >= 0"):
        GRPOConfig(importance_sampling_clip_min=3.0, importance_sampling_clip_max=2.0)
    assert (
        GRPOConfig(importance_sampling_clip_min=3.0, importance_sampling_clip_max=0.0).importance_sampling_clip_max == 0
    )


def test_engine_options_come_as_a_json_object(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KWARGS_ENV, '{"gpu_memory_utilization": 0.5}')
    assert _env_kwargs() == {"gpu_memory_utilization": 0.5}
    monkeypatch.setenv(KWARGS_ENV, "{gpu_memory_utilization: 0.5}")
    with pytest.raises(TrainerError, match="must be a JSON object"):
        _env_kwargs()
    monkeypatch.setenv(KWARGS_ENV, "[1]")
    with pytest.raises(TrainerError, match="must be a JSON object"):
        _env_kwargs()
