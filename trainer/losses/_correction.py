"""Importance-sampling corrections for the gap between the sampler and the trainer.

The generator (vLLM) samples from a policy that is not bit for bit the one the trainer computes
(kernels, precision; later, older weights). Each completion token's loss term is weighted by
``w = pi_old / pi_behaviour``: the trainer's log-probs of the sampled tokens under the policy
that sampled them (``old``) against the generator's (``behaviour``). The clipped ratio of the
surrogate stays ``pi_theta / pi_old``; these weights carry no gradient.

A mode is a level (how token log-ratios ``d_t = log pi_old - log pi_behaviour`` become a weight)
and an action at the bounds ``[clip_min, clip_max]`` (each a small function; `IS_MODES` pairs
them by name):

==================  ===============================================  ==========================
mode                weight before the bounds                          at the bounds
==================  ===============================================  ==========================
token_truncate      ``exp(d_t)`` per token                            clamped into the bounds
token_mask          ``exp(d_t)`` per token                            0 outside the bounds
sequence_truncate   ``exp(sum_t d_t)``, the product of token ratios   clamped into the bounds
sequence_mask       ``exp(sum_t d_t)``                                0 outside the bounds
seq_mean_truncate   ``exp(mean_t d_t)``, the geometric mean           clamped into the bounds
seq_mean_mask       ``exp(mean_t d_t)``                               0 outside the bounds
==================  ===============================================  ==========================

Names and meaning follow TRL 1.x's ``vllm_importance_sampling_mode`` (``token_truncate``,
``token_mask``, ``sequence_truncate``, ``sequence_mask``; truncation is
``clamp(w, clip_min, clip_max)``, masking zeroes ``w`` outside ``[clip_min, clip_max]``, with
``vllm_importance_sampling_clip_min``/``_clip_max``). ``seq_mean_mask`` is verl's rollout
rejection ``rollout_rs="seq_mean_k1"`` (formerly ``"geometric"``): verl's k1 statistic is
``-mean_t d_t`` and it keeps a sequence when that lies in ``[log lo, log hi]``, i.e. when the
geometric mean lies in ``[1/hi, 1/lo]``; with verl's default ``lo = 1/hi`` that is our
``[clip_min, clip_max] = [1/hi, hi]``. ``seq_mean_truncate`` (the geometric mean clamped) has no
counterpart in either; it is GSPO's length normalisation applied to the behaviour ratio.
``token_mask`` with both bounds set is IcePop (verl's ``rollout_is_threshold="lo_hi"``) and
slime's/prime-rl's MIS.

``clip_min = 0`` means no lower bound (weights are never negative: nothing is raised or masked
from below), in every mode. ``clip_max = 0`` turns the correction off in every mode (the
trainer then passes no weights at all). Like TRL (and unlike verl's rejection, which also drops
a rejected token from the loss's normaliser), a masked token keeps its place in the normaliser
with weight 0. Sequence log-ratios are summed in float32 and the weight is taken after the
bounds are compared in log space, so a long sequence's product never overflows into NaN.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import torch

from trainer.errors import TrainerError

__all__ = ["IS_MODES", "ISWeights", "configured_weights", "importance_weights"]


class ISWeights(NamedTuple):
    """Per-token weights ``[B, T]`` (detached) and which tokens' weights met a bound
    (``bounded``: truncated, or masked to 0), for the step's metrics."""

    weights: torch.Tensor
    bounded: torch.Tensor

    def metrics(self, mask: torch.Tensor) -> dict[str, float]:
        """``is_weight_mean`` (over completion tokens), ``is_clip_frac`` (share of tokens whose
        weight met a bound) and ``is_seq_clip_frac`` (share of completions with such a token)."""
        m = mask.float()
        tokens = m.sum().clamp(min=1.0)
        hit = self.bounded.float() * m
        rows = (m.sum(dim=1) > 0).float()
        return {
            "is_weight_mean": float((self.weights * m).sum() / tokens),
            "is_clip_frac": float(hit.sum() / tokens),
            "is_seq_clip_frac": float(((hit.sum(dim=1) > 0).float() * rows).sum() / rows.sum().clamp(min=1.0)),
        }


# -- levels: token log-ratios [B, T] -> the log-weight of each token [B, T] -----------------------
def _token(d: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    return d


def _sequence(d: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    """The sequence's log-ratio (the log of the product of its token ratios), on every token."""
    return (d * m).sum(dim=1, keepdim=True).expand_as(d)


def _seq_mean(d: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    """The mean token log-ratio (the log of the geometric mean), on every token."""
    mean = (d * m).sum(dim=1, keepdim=True) / m.sum(dim=1, keepdim=True).clamp(min=1.0)
    return mean.expand_as(d)


# -- actions at the bounds: log-weights -> (weights, bounded) --------------------------------------
def _truncate(log_w: torch.Tensor, lo: float, hi: float) -> tuple[torch.Tensor, torch.Tensor]:
    low, high = math.log(lo) if lo > 0 else -math.inf, math.log(hi)
    bounded = (log_w < low) | (log_w > high)
    return torch.exp(log_w.clamp(min=low, max=high)), bounded


def _mask(log_w: torch.Tensor, lo: float, hi: float) -> tuple[torch.Tensor, torch.Tensor]:
    low, high = math.log(lo) if lo > 0 else -math.inf, math.log(hi)
    bounded = (log_w < low) | (log_w > high)
    return torch.where(bounded, torch.zeros_like(log_w), torch.exp(log_w.clamp(max=high))), bounded


Level = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
Action = Callable[[torch.Tensor, float, float], tuple[torch.Tensor, torch.Tensor]]
IS_MODES: dict[str, tuple[Level, Action]] = {
    "token_truncate": (_token, _truncate),
    "token_mask": (_token, _mask),
    "sequence_truncate": (_sequence, _truncate),
    "sequence_mask": (_sequence, _mask),
    "seq_mean_truncate": (_seq_mean, _truncate),
    "seq_mean_mask": (_seq_mean, _mask),
}
"""Every ``importance_sampling_mode``: its level and its action at the bounds."""


def importance_weights(
    old_logps: torch.Tensor,
    sampler_logps: torch.Tensor,
    mask: torch.Tensor,
    *,
    mode: str = "token_truncate",
    clip_max: float = 2.0,
    clip_min: float = 0.0,
) -> ISWeights:
    """Importance weights ``pi_old / pi_behaviour`` of each completion token, by ``mode``.

    ``old_logps`` are the trainer's log-probs of the sampled tokens under the policy that
    sampled them, ``sampler_logps`` the generator's; ``mask`` (0/1) keeps completion tokens
    (sequence modes sum or average over them only). ``clip_max`` must be > 0 (0 means "no
    correction", which the caller decides by passing no weights); ``clip_min = 0`` is no lower
    bound.

    Examples:
        >>> old = torch.tensor([[-1.0, -2.0, -0.5]])
        >>> sampler = torch.tensor([[-1.0, -3.0, -0.1]])
        >>> importance_weights(old, sampler, torch.ones(1, 3), clip_max=2.0).weights
        tensor([[1.0000, 2.0000, 0.6703]])
        >>> importance_weights(old, sampler, torch.ones(1, 3), mode="token_mask", clip_max=2.0).weights
        tensor([[1.0000, 0.0000, 0.6703]])
    """
    if mode not in IS_MODES:
        raise TrainerError(f"importance_sampling_mode must be one of {', '.join(IS_MODES)}, got {mode!r}")
    if not clip_max > 0 or clip_min < 0 or clip_min > clip_max:
        raise TrainerError(
            f"importance sampling needs 0 <= clip_min <= clip_max and clip_max > 0, got clip_min={clip_min}, "
            f"clip_max={clip_max}"
        )
    level, action = IS_MODES[mode]
    m = mask.float()
    d = (old_logps.detach().float() - sampler_logps.detach().float()) * m
    weights, bounded = action(level(d, m), clip_min, clip_max)
    return ISWeights(weights.detach(), bounded & (m > 0))


def configured_weights(
    config: Any, sampler: torch.Tensor | None, before: torch.Tensor, live: torch.Tensor
) -> ISWeights | None:
    """`importance_weights` with ``config``'s ``importance_sampling_mode`` and bounds, or None when
    nothing is corrected: no generator log-probs (the policy sampled itself) or
    ``importance_sampling_clip_max = 0``."""
    if sampler is None or config.importance_sampling_clip_max <= 0:
        return None
    return importance_weights(
        before,
        sampler,
        live,
        mode=config.importance_sampling_mode,
        clip_max=config.importance_sampling_clip_max,
        clip_min=config.importance_sampling_clip_min,
    )
