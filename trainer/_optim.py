"""The optimizer's side of a step: clip and step, or only advance the schedule (nothing to learn)."""

from __future__ import annotations

import warnings
from typing import Any

import torch

__all__ = ["no_update", "optimizer_step"]


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
