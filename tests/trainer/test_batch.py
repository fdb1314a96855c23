"""The loss forward: `make_batch` + `sequence_logps`, and its shared-prompt path (each distinct
prompt of a micro-batch runs once, its KV cache copied to the rows that repeat it), which must
give the same log-probs and the same gradients as one forward over every full row."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import torch

from trainer import _batch
from trainer._batch import make_batch, sequence_logps
from trainer.config import GRPOConfig
from trainer.grpo import GRPOTrainer
from trainer.policy._model import demo_model
from trainer.rollouts._rollout import Rollout

CPU = torch.device("cpu")
VOCAB = 20


def _groups(seed: int = 3, *, prompts: int = 3, g: int = 4, empty: bool = True, vocab: int = VOCAB) -> list[Rollout]:
    """``prompts`` groups of ``g`` rows: prompts of different lengths (left padding differs),
    completions of different lengths, one environment (mask 0) token, one empty completion."""
    rng = random.Random(seed)
    rows = []
    for p in range(prompts):
        prompt = [rng.randrange(4, vocab) for _ in range(rng.randint(1, 7))]
        for j in range(g):
            n = 0 if (empty and p == 1 and j == 2) else rng.randint(1, 6)
            ids = [rng.randrange(4, vocab) for _ in range(n)]
            mask = [1] * n
            if n > 2:
                mask[1] = 0
            rows.append(Rollout(prompt_ids=prompt, ids=ids, mask=mask))
    return rows


def _logps_and_grads(
    model: Any, batch: dict[str, torch.Tensor], rows: slice, *, share: bool, temperature: float = 1.0
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    model.zero_grad(set_to_none=True)
    logps = sequence_logps(model, batch, rows, device=CPU, temperature=temperature, share_prefix=share)
    weights = torch.linspace(-1.0, 1.0, logps.numel()).reshape(logps.shape)  # every token counts differently
    (logps * batch.mask[rows] * weights).sum().backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    return logps.detach(), grads


def _spy() -> Any:
    return mock.patch.object(_batch, "_shared_prefix_logps", wraps=_batch._shared_prefix_logps)


@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_shared_prompt_forward_gives_the_same_logps_and_gradients(temperature: float) -> None:
    torch.manual_seed(0)
    model = demo_model(VOCAB).train()
    batch = make_batch(_groups(), pad=0)
    for rows in (slice(0, 12), slice(2, 9)):  # whole groups; a micro-batch cutting groups
        plain, plain_grads = _logps_and_grads(model, batch, rows, share=False, temperature=temperature)
        with _spy() as spy:
            shared, shared_grads = _logps_and_grads(model, batch, rows, share=True, temperature=temperature)
        assert spy.call_count == 1, "the shared path was not taken"
        mask = batch.mask[rows].bool()
        torch.testing.assert_close(shared[mask], plain[mask], rtol=1e-5, atol=1e-5)
        assert plain_grads.keys() == shared_grads.keys() and plain_grads
        for name, grad in plain_grads.items():
            torch.testing.assert_close(shared_grads[name], grad, rtol=1e-4, atol=1e-6, msg=name)


def test_one_token_completions_need_only_the_prompt_forward() -> None:
    model = demo_model(VOCAB).eval()
    rows = [Rollout(prompt_ids=[5, 6, 7], ids=[t], mask=[1]) for t in (8, 9, 10)]
    batch = make_batch(rows, pad=0)
    with torch.no_grad():
        plain = sequence_logps(model, batch, slice(0, 3), device=CPU, temperature=1.0)
        shared = sequence_logps(model, batch, slice(0, 3), device=CPU, temperature=1.0, share_prefix=True)
    torch.testing.assert_close(shared, plain, rtol=1e-5, atol=1e-5)


def test_the_shared_path_is_skipped_where_it_cannot_help_or_work() -> None:
    model = demo_model(VOCAB).train()
    distinct = make_batch(_groups(prompts=4, g=1, empty=False), pad=0)
    repeated = make_batch(_groups(), pad=0)
    with _spy() as spy:
        sequence_logps(model, distinct, slice(0, 4), device=CPU, temperature=1.0, share_prefix=True)
        sequence_logps(model, repeated, slice(0, 1), device=CPU, temperature=1.0, share_prefix=True)
        sequence_logps(model, repeated, slice(0, 12), device=CPU, temperature=1.0, share_prefix=False)
        model.activation_checkpointing_enable()  # checkpointed layers drop the cache in training
        plain, _ = _logps_and_grads(model, repeated, slice(0, 12), share=True)
        assert spy.call_count == 0
        with torch.no_grad():  # ... but not without gradients (reference and old log-probs)
            sequence_logps(model, repeated, slice(0, 12), device=CPU, temperature=1.0, share_prefix=True)
        assert spy.call_count == 1
    model.activation_checkpointing_disable()
    expected, _ = _logps_and_grads(model, repeated, slice(0, 12), share=False)
    torch.testing.assert_close(plain, expected)


def test_shared_prompt_forward_under_lora_and_with_the_adapter_disabled() -> None:
    pytest.importorskip("peft")
    from trainer.policy._lora import adapter_disabled, apply_lora

    torch.manual_seed(0)
    model = apply_lora(demo_model(VOCAB), r=4, alpha=8, dropout=0.0, targets="all-linear").train()
    for name, param in model.named_parameters():  # lora_B starts at 0: make the adapter matter
        if "lora_B" in name:
            torch.nn.init.normal_(param, std=0.1)
    batch = make_batch(_groups(), pad=0)
    mask = batch.mask.bool()
    plain, plain_grads = _logps_and_grads(model, batch, slice(0, 12), share=False)
    with _spy() as spy:
        shared, shared_grads = _logps_and_grads(model, batch, slice(0, 12), share=True)
        with adapter_disabled(model), torch.no_grad():
            ref_shared = sequence_logps(model, batch, slice(0, 12), device=CPU, temperature=1.0, share_prefix=True)
    assert spy.call_count == 2
    torch.testing.assert_close(shared[mask], plain[mask], rtol=1e-5, atol=1e-5)
    assert all("lora_" in n for n in plain_grads)
    for name, grad in plain_grads.items():
        torch.testing.assert_close(shared_grads[name], grad, rtol=1e-4, atol=1e-6, msg=name)
    with adapter_disabled(model), torch.no_grad():
        ref_plain = sequence_logps(model, batch, slice(0, 12), device=CPU, temperature=1.0)
    torch.testing.assert_close(ref_shared[mask], ref_plain[mask], rtol=1e-5, atol=1e-5)
    assert not torch.allclose(ref_plain[mask], plain[mask], atol=1e-3), "the adapter changes the policy"


def test_trainer_update_is_the_same_with_and_without_prompt_sharing(tmp_path: Path) -> None:
    """One GRPO update with a reference model (beta > 0) and micro-batches that cut groups."""
    results = []
    for share in (False, True):
        cfg = GRPOConfig(
            steps=1,
            prompts_per_step=3,
            num_generations=4,
            max_new_tokens=6,
            learning_rate=1e-3,
            device="cpu",
            output_dir=str(tmp_path / f"run-{share}"),
            save_every=0,
            beta=0.04,
            micro_batch_size=5,
        )
        trainer = GRPOTrainer(cfg, env="grpo_envs/Digits-v0", show_progress=False)
        trainer.share_prefix = share
        rows = _groups(seed=5, empty=False, vocab=len(trainer.tokenizer))
        for k, r in enumerate(rows):
            r.reward = float(k % 3 == 0)
        with _spy() as spy:
            metrics = trainer._update([rows[i : i + 4] for i in range(0, 12, 4)])
        assert (spy.call_count > 0) == share
        results.append((metrics, {n: p.grad.clone() for n, p in trainer.model.named_parameters()}))
    (m_plain, g_plain), (m_shared, g_shared) = results
    for key in ("loss", "kl", "ratio", "grad_norm"):
        assert m_shared[key] == pytest.approx(m_plain[key], rel=1e-4, abs=1e-6), key
    assert m_plain["grad_norm"] > 0
    for name, grad in g_plain.items():  # (AdamW's step divides by sqrt(v): weights would amplify 1e-9 noise)
        torch.testing.assert_close(g_shared[name], grad, rtol=1e-4, atol=1e-7, msg=name)


def test_a_batch_holds_each_completion_once_after_its_left_padded_prompt() -> None:
    b = make_batch([Rollout([3, 4], [5, 6], [1, 1]), Rollout([7], [8], [1])], pad=0)
    assert b.ids.tolist() == [[3, 4, 5, 6], [0, 7, 8, 0]] and b.attention.tolist() == [[1, 1, 1, 1], [0, 1, 1, 0]]
    assert b.completion.tolist() == [[5, 6], [8, 0]] and b.completion.data_ptr() == b.ids[:, 2:].data_ptr()  # a view
    assert b.mask.tolist() == [[1.0, 1.0], [1.0, 0.0]] and b.sampler_logps is None and b.completion_width == 2
