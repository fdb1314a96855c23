"""The math of GRPO as small pure functions: advantages, the policy loss (by name, `trainer.losses._surrogates`),
k3 KL (pass@k is `trainer._metrics`: the loss imports nothing from `trainer.eval`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from trainer.errors import TrainerError
from trainer.losses._correction import importance_weights
from trainer.losses._surrogates import LOSSES, REDUCTIONS, Surrogate

__all__ = [
    "LOSS_TYPES",
    "SCALES",
    "group_advantages",
    "grpo_loss",
    "k3_kl",
    "loss_settings",
    "lr_factor",
    "sampler_mismatch",
    "token_logprobs",
    "truncated_is_weights",
]

LOSS_TYPES = tuple(LOSSES)
"""The policy losses `grpo_loss` computes (`trainer.losses._surrogates.LOSSES`)."""


def group_std(r: torch.Tensor, valid: torch.Tensor, centered: torch.Tensor, count: torch.Tensor) -> torch.Tensor:
    """Each group's own std (the paper's scale), ``[num_groups, 1]``."""
    return ((centered**2).sum(dim=1, keepdim=True) / (count - 1).clamp(min=1)).sqrt()


def batch_std(r: torch.Tensor, valid: torch.Tensor, centered: torch.Tensor, count: torch.Tensor) -> torch.Tensor:
    """The std over every valid reward of the batch (one scale for all groups)."""
    flat = r[valid]
    return flat.std(unbiased=True) if flat.numel() > 1 else torch.tensor(0.0)


ScaleFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]
SCALES: dict[str, ScaleFn | None] = {"group": group_std, "batch": batch_std, "none": None}
"""How advantages are scaled (`group_advantages`): each name's std from (rewards, which are valid,
rewards minus their group's mean, valid counts per group), or None for no scaling (Dr. GRPO). A
new scale is one function and a line here."""


def group_advantages(rewards: Any, *, scale: str = "group", eps: float = 1e-8) -> torch.Tensor:
    """Group-relative advantages ``(r - mean) / (std + eps)`` per group (torch's unbiased std).

    ``rewards`` is ``[num_groups, G]`` (a tensor or nested lists; ``None``/NaN entries are left
    out of their group's statistics and get advantage 0). ``scale`` (`SCALES`): "group" (the
    paper), "batch" (std over every valid reward of the batch), "none" (Dr. GRPO: ``r - mean``).
    A group of equal rewards gives exact zeros, never NaN.

    Examples:
        >>> group_advantages([[1.0, 0.0, 0.0, 1.0]])
        tensor([[ 0.8660, -0.8660, -0.8660,  0.8660]])
    """
    if scale not in SCALES:
        raise TrainerError(f"scale must be one of {tuple(SCALES)}, got {scale!r}")
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
    std = SCALES[scale]
    return centered if std is None else centered / (std(r, valid, centered, count) + eps)


def k3_kl(logps: torch.Tensor, ref_logps: torch.Tensor) -> torch.Tensor:
    """Per-token KL estimate k3: ``exp(ref - logp) - (ref - logp) - 1`` (>= 0, unbiased).

    Examples:
        >>> round(float(k3_kl(torch.tensor(-1.0), torch.tensor(-2.0))), 6)
        0.367879
    """
    delta = ref_logps - logps
    return torch.exp(delta) - delta - 1


def truncated_is_weights(train_logps: torch.Tensor, sampler_logps: torch.Tensor, cap: float) -> torch.Tensor:
    """Truncated importance sampling (TIS), per token: ``min(exp(train - sampler), cap)``
    (`trainer.losses._correction.importance_weights` with mode "token_truncate"; every mode is there).

    ``train_logps`` are the training forward's log-probs of the sampled tokens under the policy
    that sampled them (GRPO's "old" log-probs), ``sampler_logps`` the generator's (vLLM's) of the
    same tokens. Their ratio corrects the loss for sampling from a slightly different
    distribution than the one trained (kernels, precision); the cap bounds the variance a rare
    token with a tiny sampler probability would bring. The weights carry no gradient. With
    ``top_p < 1`` the sampler's log-probs are renormalised over the nucleus, so the weights then
    also hold the nucleus's mass (``< 1`` on every kept token): they correct towards the full
    softmax the trainer trains, not towards the truncated distribution actually sampled.

    Examples:
        >>> train = torch.tensor([[-1.0, -2.0, -0.5]])
        >>> sampler = torch.tensor([[-1.0, -3.0, -0.1]])
        >>> truncated_is_weights(train, sampler, cap=2.0)
        tensor([[1.0000, 2.0000, 0.6703]])
    """
    if cap <= 0:
        raise TrainerError(f"the importance-sampling cap must be > 0, got {cap}")
    return importance_weights(train_logps, sampler_logps, torch.ones_like(train_logps), clip_max=cap).weights


def sampler_mismatch(train_logps: torch.Tensor, sampler_logps: torch.Tensor, mask: torch.Tensor) -> dict[str, float]:
    """How far the generator's log-probs of the sampled tokens are from the trainer's: the masked
    mean ``|train - sampler|`` and the k3 KL(sampler || train) estimate, per token.

    Examples:
        >>> m = sampler_mismatch(torch.tensor([[-1.0, -2.0]]), torch.tensor([[-1.0, -1.0]]), torch.tensor([[1, 1]]))
        >>> round(m["logp_abs_diff"], 4), round(m["k3_kl"], 4)
        (0.5, 0.1839)
    """
    m = mask.float()
    tokens = m.sum().clamp(min=1.0)
    diff = (train_logps.float() - sampler_logps.float()).abs()
    kl = k3_kl(sampler_logps.float(), train_logps.float())
    return {"logp_abs_diff": float((diff * m).sum() / tokens), "k3_kl": float((kl * m).sum() / tokens)}


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
    max_new_tokens: int | None = None,
    num_sequences: int | None = None,
    num_tokens: float | None = None,
    is_weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """The policy loss ``loss_type`` (`trainer.losses._surrogates.LOSSES`) with a k3 KL penalty, over ``[B, T]``
    token log-probs.

    Per token: ``objective - beta * KL``, times ``is_weights``; the loss is its negative, reduced by
    ``loss_type``. The objectives: "grpo", "dapo", "dr_grpo" take PPO's clipped surrogate
    ``min(r A, clip(r, 1 - epsilon, 1 + epsilon_high) A)`` with ``r = exp(logps - old_logps)``;
    "gspo" the same clip on the sequence ratio ``exp(mean_t log r_t)``; "cispo"
    ``sg(clip(r)) A logps``. The reductions: "grpo" and "gspo" take each completion's token mean,
    summed over completions / ``num_sequences``; "dapo" and "cispo" the sum over all tokens /
    ``num_tokens``; "dr_grpo" the sum over all tokens / (``num_sequences`` x ``max_new_tokens``,
    the generation limit). ``num_sequences`` and ``num_tokens`` default to this call's counts;
    pass the whole batch's (over micro-batches and ranks) and the summed micro-batch losses equal
    the loss of the batch in one call. ``mask`` (bool or 0/1) keeps completion tokens (the EOS of
    a finished completion included) and drops padding and environment tokens. ``is_weights``
    (`trainer.losses._correction.importance_weights`) scale each token's term. Returns the loss and
    metrics: ``kl`` (masked mean), ``clip_low``/``clip_high`` (fractions of tokens whose term was
    clipped), ``ratio`` (masked mean of the ratio the loss clipped).

    Examples:
        >>> lp = torch.tensor([[-1.0, -1.0, 0.0, 0.0], [-1.0, -1.0, -1.0, -1.0]])
        >>> mask = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1]])
        >>> loss, _ = grpo_loss(lp, lp, None, torch.tensor([1.0, -1.0]), mask, beta=0.0, loss_type="dapo")
        >>> round(float(loss), 5)
        0.33333
    """
    if loss_type not in LOSSES:
        raise TrainerError(f"loss_type must be one of {LOSS_TYPES}, got {loss_type!r}")
    if beta != 0.0 and ref_logps is None:
        raise TrainerError("beta > 0 needs ref_logps (or set beta=0.0 to train without a reference model)")
    spec = LOSSES[loss_type]
    m, logps32 = mask.to(logps.dtype).float(), logps.float()
    eps_low, eps_high = epsilon, epsilon if epsilon_high is None else epsilon_high
    s = spec.surrogate(logps32, old_logps.float(), advantages.float().unsqueeze(1), m, eps_low, eps_high)
    kl = k3_kl(logps32, ref_logps.float()) if ref_logps is not None else torch.zeros_like(logps32)
    per_token = -(s.objective - beta * kl) * (is_weights.float() if is_weights is not None else 1.0)
    sequences = float(num_sequences if num_sequences is not None else logps.shape[0])
    tokens = num_tokens if num_tokens is not None else m.sum()
    return REDUCTIONS[spec.reduction](per_token, m, sequences, tokens, max_new_tokens), _loss_metrics(s, kl, m)


def loss_settings(config: Any, num_sequences: int, *, tokens: float) -> dict[str, Any]:
    """`grpo_loss`'s keyword arguments for an update: the objective of ``config`` (a `GRPOConfig`)
    and the update's global counts."""
    low, high = config.clip_range
    return dict(
        epsilon=low,
        epsilon_high=high,
        beta=config.beta,
        loss_type=config.loss_type,
        max_new_tokens=config.max_new_tokens,
        num_sequences=num_sequences,
        num_tokens=tokens,
    )


def _loss_metrics(s: Surrogate, kl: torch.Tensor, m: torch.Tensor) -> dict[str, float]:
    with torch.no_grad():
        tokens = m.sum().clamp(min=1.0)
        return {
            "kl": float((kl * m).sum() / tokens),
            "clip_low": float((s.clip_low.float() * m).sum() / tokens),
            "clip_high": float((s.clip_high.float() * m).sum() / tokens),
            "ratio": float((s.ratio.detach() * m).sum() / tokens),
        }


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


def lr_factor(step: int, *, warmup: int, total: int, kind: str) -> float:
    """The learning-rate multiplier at ``step``: linear warm-up over ``warmup`` steps, then
    "constant", "linear" decay or "cosine" decay to 0 at ``total``.

    Examples:
        >>> [lr_factor(s, warmup=1, total=3, kind="cosine") for s in range(4)]
        [1.0, 1.0, 0.5, 0.0]
    """
    if warmup and step < warmup:
        return (step + 1) / warmup
    if kind == "constant":
        return 1.0
    progress = min(1.0, max(0.0, (step - warmup) / max(1, total - warmup)))
    return 1.0 - progress if kind == "linear" else 0.5 * (1 + math.cos(math.pi * progress))
