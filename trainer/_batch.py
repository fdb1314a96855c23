"""Padded tensors for a list of rollouts, and the per-token log-probs of their completions."""

from __future__ import annotations

from typing import Any

import torch

from trainer._math import token_logprobs
from trainer._rollout import Rollout

__all__ = ["make_batch", "sequence_logps"]


def make_batch(rows: list[Rollout], pad: int) -> dict[str, torch.Tensor]:
    """Left-padded prompts followed by right-padded completions, with masks and positions."""
    width_p = max(len(r.prompt_ids) for r in rows)
    width_c = max(max(len(r.ids) for r in rows), 1)
    n = len(rows)
    ids = torch.full((n, width_p + width_c), pad, dtype=torch.long)
    attention = torch.zeros((n, width_p + width_c), dtype=torch.long)
    completion = torch.full((n, width_c), pad, dtype=torch.long)
    mask = torch.zeros((n, width_c), dtype=torch.float32)
    for k, r in enumerate(rows):
        p, c = len(r.prompt_ids), len(r.ids)
        ids[k, width_p - p : width_p] = torch.tensor(r.prompt_ids)
        attention[k, width_p - p : width_p + c] = 1
        if c:
            ids[k, width_p : width_p + c] = torch.tensor(r.ids)
            completion[k, :c] = torch.tensor(r.ids)
            mask[k, :c] = torch.tensor(r.mask, dtype=torch.float32)
    positions = (attention.cumsum(-1) - 1).clamp(min=0)
    return {"ids": ids, "attention": attention, "positions": positions, "completion": completion, "mask": mask}


def sequence_logps(
    model: Any, batch: dict[str, torch.Tensor], rows: slice, *, device: torch.device, temperature: float
) -> torch.Tensor:
    """Log-probs of each completion token under ``model`` (logits divided by ``temperature``)."""
    width_c = batch["completion"].shape[1]
    inputs = {
        "input_ids": batch["ids"][rows].to(device),
        "attention_mask": batch["attention"][rows].to(device),
        "position_ids": batch["positions"][rows].to(device),
    }
    try:
        logits = model(**inputs, logits_to_keep=width_c + 1).logits
    except TypeError:  # a model without logits_to_keep
        logits = model(**inputs).logits[:, -(width_c + 1) :]
    logits = logits[:, :-1] / temperature
    return token_logprobs(logits, batch["completion"][rows].to(device))
