"""The policy losses by name: each a small pure surrogate and a reduction (`LOSSES`).

A surrogate maps token log-probs ``[B, T]`` under the policy (``logps``, with gradient) and
under the policy that sampled (``old_logps``) and advantages ``[B, 1]`` to the objective of each
token (to be maximised), the ratio it clipped and which tokens were clipped. `trainer.losses._math.grpo_loss`
subtracts the KL term, applies importance weights and reduces it; the loop never asks which
loss it runs.

- ``grpo``, ``dapo``, ``dr_grpo``: PPO's clipped surrogate per token,
  ``min(r_t A, clip(r_t, 1 - eps_low, 1 + eps_high) A)`` with ``r_t = pi_theta / pi_old``;
  they differ in the reduction only (each completion's token mean, the token mean, or the sum
  over completions x ``max_new_tokens``).
- ``gspo`` (Qwen, arXiv 2507.18071): the same clip on the sequence ratio
  ``s_i = exp(mean_t log r_i,t)`` (the geometric mean of the token ratios), one term per
  completion: ``min(s_i A_i, clip(s_i, 1 - eps_low, 1 + eps_high) A_i)``, averaged over
  completions. TRL's ``importance_sampling_level="sequence"`` computes the same ``s_i``; the
  paper's clip range is tiny (3e-4, 4e-4: preset ``gspo``).
- ``cispo`` (MiniMax-M1, arXiv 2506.13585): REINFORCE with a clipped, stop-gradient IS weight,
  ``sg(clip(r_t, 1 - eps_low, 1 + eps_high)) A log pi_theta`` on every token, token mean: a
  clipped token is down-weighted, never dropped from the gradient. TRL's ``loss_type="cispo"``
  clamps ``r_t`` at ``epsilon_high`` as an absolute cap (5.0 in ScaleRL) with no lower bound;
  our ``epsilon`` keeps one meaning for every loss (the ratio's range ``[1 - low, 1 + high]``),
  so TRL's cap 5.0 is ``epsilon = [1.0, 4.0]`` here (preset ``cispo``: bounds ``[0, 5]``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import torch

from trainer.errors import TrainerError

__all__ = [
    "LOSSES",
    "REDUCTIONS",
    "Loss",
    "Surrogate",
    "cispo_surrogate",
    "clipped_surrogate",
    "generation_limit",
    "gspo_surrogate",
    "sequence_mean",
    "token_mean",
]


class Surrogate(NamedTuple):
    """A surrogate's value per token ``[B, T]``: the objective (before KL and importance
    weights), the ratio it clipped, and which tokens' terms were clipped from below/above."""

    objective: torch.Tensor
    ratio: torch.Tensor
    clip_low: torch.Tensor
    clip_high: torch.Tensor


def _clip(ratio: torch.Tensor, adv: torch.Tensor, eps_low: float, eps_high: float) -> Surrogate:
    objective = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - eps_low, 1 + eps_high) * adv)
    return Surrogate(objective, ratio, (ratio < 1 - eps_low) & (adv < 0), (ratio > 1 + eps_high) & (adv > 0))


def clipped_surrogate(
    logps: torch.Tensor, old_logps: torch.Tensor, adv: torch.Tensor, mask: torch.Tensor, eps_low: float, eps_high: float
) -> Surrogate:
    """PPO's clipped surrogate per token (GRPO, DAPO, Dr. GRPO): ``min(r A, clip(r) A)``.

    Examples:
        >>> s = clipped_surrogate(torch.tensor([[0.5, 0.0]]), torch.zeros(1, 2), torch.ones(1, 1), torch.ones(1, 2),
        ...                       0.2, 0.2)
        >>> s.objective, s.clip_high
        (tensor([[1.2000, 1.0000]]), tensor([[ True, False]]))
    """
    return _clip(torch.exp(logps - old_logps), adv, eps_low, eps_high)


def gspo_surrogate(
    logps: torch.Tensor, old_logps: torch.Tensor, adv: torch.Tensor, mask: torch.Tensor, eps_low: float, eps_high: float
) -> Surrogate:
    """GSPO: the clipped surrogate on the sequence ratio ``exp(mean_t log r_t)``, on every token
    of the completion (so each completion's token mean is its one term).

    Examples:
        >>> lp = torch.tensor([[0.2, -0.2, 5.0]])  # the third token is padding
        >>> s = gspo_surrogate(lp, torch.zeros(1, 3), torch.ones(1, 1), torch.tensor([[1, 1, 0]]), 3e-4, 4e-4)
        >>> s.ratio, s.objective
        (tensor([[1., 1., 1.]]), tensor([[1., 1., 1.]]))
    """
    m = mask.float()
    log_s = ((logps - old_logps) * m).sum(dim=1, keepdim=True) / m.sum(dim=1, keepdim=True).clamp(min=1.0)
    return _clip(torch.exp(log_s).expand_as(logps), adv, eps_low, eps_high)


def cispo_surrogate(
    logps: torch.Tensor, old_logps: torch.Tensor, adv: torch.Tensor, mask: torch.Tensor, eps_low: float, eps_high: float
) -> Surrogate:
    """CISPO: ``sg(clip(r, 1 - eps_low, 1 + eps_high)) * A * log pi`` per token.

    Examples:
        >>> s = cispo_surrogate(torch.tensor([[-1.0]]), torch.tensor([[-3.0]]), torch.ones(1, 1), torch.ones(1, 1),
        ...                     1.0, 4.0)
        >>> s.objective, s.clip_high  # r = e^2 = 7.39, capped at 5: 5 * 1 * -1
        (tensor([[-5.]]), tensor([[True]]))
    """
    ratio = torch.exp(logps - old_logps)
    weight = torch.clamp(ratio, 1 - eps_low, 1 + eps_high).detach()
    return Surrogate(weight * adv * logps, ratio, ratio < 1 - eps_low, ratio > 1 + eps_high)


def sequence_mean(per_token: torch.Tensor, mask: torch.Tensor, sequences: float, tokens: Any, limit: int | None) -> Any:
    """Each completion's token mean, summed over completions / ``sequences`` (the GRPO paper)."""
    rows = (per_token * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
    return rows.sum() / sequences


def token_mean(per_token: torch.Tensor, mask: torch.Tensor, sequences: float, tokens: Any, limit: int | None) -> Any:
    """The sum over every token / ``tokens`` (DAPO: a long completion weighs more)."""
    total = tokens.clamp(min=1.0) if torch.is_tensor(tokens) else max(float(tokens), 1.0)
    return (per_token * mask).sum(dim=1).sum() / total


def generation_limit(
    per_token: torch.Tensor, mask: torch.Tensor, sequences: float, tokens: Any, limit: int | None
) -> Any:
    """The sum over every token / (``sequences`` x ``limit``, the generation limit: Dr. GRPO)."""
    if limit is None:
        raise TrainerError("loss_type='dr_grpo' needs max_new_tokens (the generation limit)")
    return (per_token * mask).sum(dim=1).sum() / (sequences * float(limit))


SurrogateFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, float, float], Surrogate]
ReductionFn = Callable[[torch.Tensor, torch.Tensor, float, Any, "int | None"], Any]

REDUCTIONS: dict[str, ReductionFn] = {
    "sequence_mean": sequence_mean,
    "token_mean": token_mean,
    "generation_limit": generation_limit,
}
"""How a loss reduces its per-token terms ``[B, T]`` (masked by ``mask``) to one number, given the
batch's completions (``sequences``), its completion tokens and the generation limit. A new
reduction is one function and a line here."""


class Loss(NamedTuple):
    """A loss: its surrogate and the name of its reduction (`REDUCTIONS`)."""

    surrogate: SurrogateFn
    reduction: str


LOSSES: dict[str, Loss] = {
    "grpo": Loss(clipped_surrogate, "sequence_mean"),
    "dapo": Loss(clipped_surrogate, "token_mean"),
    "dr_grpo": Loss(clipped_surrogate, "generation_limit"),
    "gspo": Loss(gspo_surrogate, "sequence_mean"),
    "cispo": Loss(cispo_surrogate, "token_mean"),
}
"""Every ``loss_type``: its surrogate and reduction. A new loss is one surrogate function and a
line here."""
