"""The policy's weights: built for the run (dtype, device, gradient checkpointing, LoRA, the
frozen reference, DDP/FSDP), stepped by the optimizer (clip and step, or only advance the schedule
when there is nothing to learn), restored from a checkpoint, exported as a plain model."""

from __future__ import annotations

import copy
import logging
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from trainer._distributed import Dist, full_optimizer_state, full_state_dict, load_full_state, unwrap, wrap
from trainer.config import GRPOConfig
from trainer.errors import TrainerError
from trainer.policy._lora import apply_lora, is_lora, load_adapter, merged_copy
from trainer.policy._model import load_policy
from trainer.run._checkpoint import read_checkpoint, restore_rng, save_checkpoint

__all__ = ["build_policy", "export_final", "no_update", "optimizer_step", "restore", "save_run"]

log = logging.getLogger("trainer")


def build_policy(
    config: GRPOConfig, model: Any, tokenizer: Any, *, alphabet: str | None, device: torch.device, dist: Dist
) -> tuple[Any, Any, Any]:
    """(the module to train, the frozen reference or None, the tokenizer). bfloat16 on a GPU
    that has it; with LoRA the reference is the adapter disabled, so none is built."""
    policy, tokenizer = load_policy(model or config.model, tokenizer, alphabet=alphabet, seed=config.seed)
    if device.type == "cuda" and torch.cuda.is_bf16_supported():
        policy.to(torch.bfloat16)
    policy.to(device)
    if config.gradient_checkpointing:
        enable = getattr(policy, "activation_checkpointing_enable", None)  # transformers >= 5.2x
        (enable or policy.gradient_checkpointing_enable)()
        if config.lora:
            policy.enable_input_require_grads()
    reference = None
    lora = config.lora
    if lora is not None:
        policy = apply_lora(policy, r=lora.r, alpha=lora.alpha, dropout=lora.dropout, targets=lora.target_modules)
    elif config.beta > 0:
        reference = copy.deepcopy(policy).eval()
        reference.requires_grad_(False)
        if dist.fsdp:
            reference = wrap(reference, dist, device)
    policy.train()
    return wrap(policy, dist, device), reference, tokenizer


def restore(found: Path, model: Any, optimizer: Any, scheduler: Any, dist: Dist) -> int:
    """Load a checkpoint's weights (or adapter), optimizer, schedule and RNG streams; returns
    its step."""
    saved = read_checkpoint(found)
    base = unwrap(model)
    if is_lora(base):
        load_adapter(base, found / "model")
        optimizer.load_state_dict(saved["state"]["optimizer"])
    elif dist.fsdp:
        load_full_state(model, optimizer, saved["weights"], saved["state"]["optimizer"], dist)
    else:
        missing, unexpected = base.load_state_dict(saved["weights"], strict=False)
        if unexpected or [m for m in missing if not m.endswith("lm_head.weight")]:
            raise TrainerError(
                f"checkpoint {found} does not match the model: missing {missing}, unexpected {unexpected}"
            )
        if missing:  # tied embeddings are saved once
            base.tie_weights()
        optimizer.load_state_dict(saved["state"]["optimizer"])
    scheduler.load_state_dict(saved["state"]["scheduler"])
    restore_rng(saved["state"])
    step = int(saved["trainer_state"]["step"])
    log.info("resumed from %s (step %d)", found, step)
    return step


def save_run(
    root: Path,
    step: int,
    model: Any,
    tokenizer: Any,
    optimizer: Any,
    scheduler: Any,
    *,
    config: GRPOConfig,
    extra: dict[str, Any],
    run_id: str | None,
    dist: Dist,
    extra_files: Callable[[Path], None] | None = None,
) -> Path:
    """A checkpoint of the run at ``step`` in ``root`` (atomic; older ones pruned to
    ``config.keep_checkpoints``; ``extra_files`` adds to it). Rank 0 writes; with FSDP every rank
    helps gather."""
    path = root / f"step-{step:06d}"
    weights = optim = None
    if dist.fsdp:
        weights = full_state_dict(model, dist)
        optim = full_optimizer_state(model, optimizer, dist)
    if dist.main:
        path = save_checkpoint(
            root,
            step,
            model=unwrap(model),
            tokenizer=tokenizer,
            optimizer=optimizer,
            scheduler=scheduler,
            config=config.to_dict(),
            extra=extra,
            keep=config.keep_checkpoints,
            run_id=run_id,
            weights=weights,
            optimizer_state=optim,
            extra_files=extra_files,
        )
    dist.barrier()
    return path


def export_final(model: Any, tokenizer: Any, dist: Dist, directory: Path) -> None:
    """A plain transformers model (LoRA merged in, the adapter beside it in ``adapter/``) and
    the tokenizer (rank 0 writes; with FSDP every rank helps gather the weights)."""
    weights = full_state_dict(model, dist) if dist.fsdp else None
    if dist.main:
        base = unwrap(model)
        if is_lora(base):
            base.save_pretrained(directory / "adapter", safe_serialization=True, state_dict=weights)
            base = merged_copy(base)
            weights = None
        base.save_pretrained(directory, safe_serialization=True, state_dict=weights)
        tokenizer.save_pretrained(directory)
    dist.barrier()


def optimizer_step(model: Any, optimizer: Any, max_grad_norm: float) -> float:
    """Clip the gradients to ``max_grad_norm`` (0: no clipping), step the optimizer; returns the
    gradient norm before clipping (0 when not clipped)."""
    grad_norm = 0.0
    if max_grad_norm > 0:
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        grad_norm = float(norm.full_tensor() if hasattr(norm, "full_tensor") else norm)
    optimizer.step()
    return grad_norm


def no_update(scheduler: Any) -> dict[str, float]:
    """A step whose groups all had equal rewards: the schedule advances, the weights stay."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "scheduler.step() before optimizer.step()"
        scheduler.step()
    return {"loss": 0.0, "kl": 0.0, "clip_low": 0.0, "clip_high": 0.0, "ratio": 1.0, "grad_norm": 0.0}
