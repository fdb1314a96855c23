"""The math of GRPO as small pure functions: advantages, the clipped loss, k3 KL, pass@k."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from trainer.errors import TrainerError

__all__ = ["group_advantages", "grpo_loss", "k3_kl", "pass_at_k", "token_logprobs"]

SCALES = ("group", "batch", "none")
LOSS_TYPES = ("grpo", "dapo", "dr_grpo")


def group_advantages(rewards: Any, *, scale: str = "group", eps: float = 1e-8) -> torch.Tensor:
    """Group-relative advantages ``(r - mean) / (std + eps)`` per group (torch's unbiased std).

    ``rewards`` is ``[num_groups, G]`` (a tensor or nested lists; ``None``/NaN entries are left
    out of their group's statistics and get advantage 0). ``scale``: "group" (the paper),
    "batch" (std over every valid reward of the batch), "none" (Dr. GRPO: ``r - mean``).
    A group of equal rewards gives exact zeros, never NaN.

    Example:
        >>> group_advantages([[1.0, 0.0, 0.0, 1.0]])
        tensor([[ 0.8660, -0.8660, -0.8660,  0.8660]])
    """
    if scale not in SCALES:
        raise TrainerError(f"scale must be one of {SCALES}, got {scale!r}")
    if not torch.is_tensor(rewards):
        rewards = torch.tensor(
            [[math.nan if r is None else float(r) for r in row] for row in rewards], dtype=torch.float32
        )
    r = rewards.to(torch.float32)
    if r.dim() != 2:
        raise TrainerError(f"rewards must be shaped [num_groups, G], got {tuple(r.shape)}")
    if r.shape[1] < 2:
        raise TrainerError(f"GRPO needs G >= 2 completions per group, got G={r.shape[1]}")
    valid = ~torch.isnan(r)
    filled = torch.where(valid, r, torch.zeros_like(r))
    count = valid.sum(dim=1, keepdim=True)
    mean = filled.sum(dim=1, keepdim=True) / count.clamp(min=1)
    centered = torch.where(valid, r - mean, torch.zeros_like(r))
    if scale == "none":
        return centered
    if scale == "group":
        var = (centered**2).sum(dim=1, keepdim=True) / (count - 1).clamp(min=1)
        std = var.sqrt()
    else:
        flat = r[valid]
        std = flat.std(unbiased=True) if flat.numel() > 1 else torch.tensor(0.0)
    return centered / (std + eps)


def k3_kl(logps: torch.Tensor, ref_logps: torch.Tensor) -> torch.Tensor:
    """Per-token KL estimate k3: ``exp(ref - logp) - (ref - logp) - 1`` (>= 0, unbiased).

    Example:
        >>> round(float(k3_kl(torch.tensor(-1.0), torch.tensor(-2.0))), 6)
        0.367879
    """
    delta = ref_logps - logps
    return torch.exp(delta) - delta - 1


def grpo_loss(
    logps: torch.Tensor,
    old_logps: torch.Tensor,
    ref_logps: torch.Tensor | None,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    epsilon: float = 0.2,
    epsilon_high: float | None = None,
    beta: float = 0.04,
    loss_type: str = "grpo",
    max_completion_length: int | None = None,
    normalizer: float | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """The clipped surrogate loss with a k3 KL penalty, over ``[B, T]`` token log-probs.

    Per token: ``min(ratio * A, clip(ratio, 1 - epsilon, 1 + epsilon_high) * A) - beta * KL``
    with ``ratio = exp(logps - old_logps)``; the loss is its negative, reduced by ``loss_type``:
    "grpo" (mean over each completion's tokens, then over completions), "dapo" (mean over all
    tokens; ``normalizer`` replaces the token count, e.g. the global count across
    micro-batches), "dr_grpo" (sum over tokens / (completions x ``max_completion_length``);
    ``normalizer`` replaces that product). ``mask`` (bool or 0/1) keeps completion tokens (the
    EOS of a finished completion included) and drops padding and environment tokens.

    Returns the loss and metrics: ``kl`` (masked mean), ``clip_low``/``clip_high`` (fractions
    of tokens clipped), ``ratio`` (masked mean).

    Example:
        >>> lp = torch.tensor([[-1.0, -1.0, 0.0, 0.0], [-1.0, -1.0, -1.0, -1.0]])
        >>> mask = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1]])
        >>> loss, _ = grpo_loss(lp, lp, None, torch.tensor([1.0, -1.0]), mask, beta=0.0,
        ...                     loss_type="dapo")
        >>> round(float(loss), 5)
        0.33333
    """
    if loss_type not in LOSS_TYPES:
        raise TrainerError(f"loss_type must be one of {LOSS_TYPES}, got {loss_type!r}")
    if beta != 0.0 and ref_logps is None:
        raise TrainerError("beta > 0 needs ref_logps (or set beta=0.0 to train without a reference model)")
    mask = mask.to(logps.dtype)
    logps32, old32 = logps.float(), old_logps.float()
    ratio = torch.exp(logps32 - old32)
    eps_low, eps_high = epsilon, epsilon if epsilon_high is None else epsilon_high
    adv = advantages.float().unsqueeze(1)
    clipped = torch.clamp(ratio, 1 - eps_low, 1 + eps_high)
    objective = torch.minimum(ratio * adv, clipped * adv)
    kl = k3_kl(logps32, ref_logps.float()) if ref_logps is not None else torch.zeros_like(logps32)
    per_token = -(objective - beta * kl)
    m = mask.float()
    if loss_type == "grpo":
        loss = ((per_token * m).sum(dim=1) / m.sum(dim=1).clamp(min=1.0)).mean()
    elif loss_type == "dapo":
        loss = (per_token * m).sum() / (normalizer if normalizer is not None else m.sum().clamp(min=1.0))
    else:
        if normalizer is None:
            if max_completion_length is None:
                raise TrainerError("loss_type='dr_grpo' needs max_completion_length (the generation limit)")
            normalizer = logps.shape[0] * max_completion_length
        loss = (per_token * m).sum() / normalizer
    with torch.no_grad():
        tokens = m.sum().clamp(min=1.0)
        low = ((ratio < 1 - eps_low) & (adv < 0)).float()
        high = ((ratio > 1 + eps_high) & (adv > 0)).float()
        metrics = {
            "kl": float((kl * m).sum() / tokens),
            "clip_low": float((low * m).sum() / tokens),
            "clip_high": float((high * m).sum() / tokens),
            "ratio": float((ratio * m).sum() / tokens),
        }
    return loss, metrics


def token_logprobs(logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """``log softmax(logits)[ids]`` per position, as float32 ``[B, T]``.

    Never materializes a float32 ``[B, T, V]`` log-softmax: one row at a time is upcast and
    reduced with ``logsumexp``.
    """
    rows = []
    for row_logits, row_ids in zip(logits, ids, strict=True):
        row = row_logits.float()
        picked = row.gather(-1, row_ids.unsqueeze(-1)).squeeze(-1)
        rows.append(picked - torch.logsumexp(row, dim=-1))
    return torch.stack(rows)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator ``1 - C(n - c, k) / C(n, k)`` (Chen et al., 2021).

    Example:
        >>> pass_at_k(n=8, c=2, k=1), round(pass_at_k(n=8, c=2, k=4), 4)
        (0.25, 0.7857)
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise TrainerError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
