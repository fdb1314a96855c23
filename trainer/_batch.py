"""Padded tensors for a list of rollouts (a typed `Batch`), and the per-token log-probs of their
completions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from trainer._distributed import RankBatch, unwrap
from trainer.generation._transformers import CacheSupport, cache_support, prompt_cache
from trainer.losses._math import group_advantages, token_logprobs
from trainer.rollouts._rollout import Rollout

__all__ = ["Batch", "loss_mask", "loss_rows", "make_batch", "sequence_logps"]


@dataclass(frozen=True)
class Batch:
    """The rows of an update as tensors: left-padded prompts followed by right-padded completions.

    ``ids``, ``attention``, ``positions``: ``[B, prompt width + completion width]``; ``mask``:
    ``[B, completion width]``, 1 on the policy's tokens (0 on padding and the env's tokens);
    ``sampler_logps``: the generator's log-probs of the completion tokens ``[B, completion
    width]`` when every row has them (`Rollout.sampler_logps`, vLLM), else None."""

    ids: torch.Tensor
    attention: torch.Tensor
    positions: torch.Tensor
    mask: torch.Tensor
    sampler_logps: torch.Tensor | None = None

    @property
    def completion_width(self) -> int:
        return int(self.mask.shape[1])

    @property
    def completion(self) -> torch.Tensor:
        """The completion ids ``[B, completion width]`` (a view of ``ids``)."""
        return self.ids[:, self.ids.shape[1] - self.completion_width :]


def loss_rows(
    groups: list[list[Rollout]], *, scale: str = "group", skip_zero_variance: bool = False
) -> tuple[list[Rollout], torch.Tensor]:
    """The rollouts that enter the loss, with their group-relative advantages.

    Unjudged rollouts (`Rollout.judged` is False: a verifier timeout, an error) are masked, not
    punished: left out of their group's mean and std and out of the loss (its tokens, its
    normaliser and its KL term). A group with fewer than 2 judged rollouts is dropped, and with
    ``skip_zero_variance`` so is a group whose judged rewards before shaping are all equal
    (`Rollout.verdict_reward`: an overlong penalty does not make a group of wrong answers informative).

    Examples:
        >>> from grpo_envs import Judgement
        >>> def judged(reward, status):
        ...     return Rollout([1], reward=reward, judgements=[Judgement.of_step(reward, {"status": status})])
        >>> g = [judged(1.0, "correct"), judged(0.0, "incorrect"), judged(0.0, "timeout")]
        >>> rows, adv = loss_rows([g])
        >>> len(rows), adv
        (2, tensor([ 0.7071, -0.7071]))
    """
    rewards = [[r.reward if r.judged else None for r in g] for g in groups]
    adv = group_advantages(rewards, scale=scale) if groups else torch.zeros((0, 2))
    rows: list[Rollout] = []
    picked: list[tuple[int, int]] = []
    for p, g in enumerate(groups):
        judged = [k for k, r in enumerate(g) if r.judged]
        if len(judged) < 2 or (skip_zero_variance and len({g[k].verdict_reward for k in judged}) == 1):
            continue
        rows += [g[k] for k in judged]
        picked += [(p, k) for k in judged]
    if not picked:
        return rows, torch.zeros(0, dtype=torch.float32)
    where = torch.tensor(picked)
    return rows, adv[where[:, 0], where[:, 1]]


def loss_mask(batch: Batch, share: RankBatch, *, mask_truncated: bool) -> torch.Tensor:
    """The completion tokens that weigh: none of a stand-in row (``share.live`` False), none of a
    truncated completion with ``mask_truncated``."""
    mask = batch.mask.clone()
    for k, r in enumerate(share.rows):
        if not share.live or (mask_truncated and r.truncated):
            mask[k] = 0.0
    return mask


def make_batch(rows: list[Rollout], pad: int, *, completion_width: int = 1) -> Batch:
    """The `Batch` of ``rows``: left-padded prompts followed by right-padded completions (at least
    ``completion_width`` columns), with masks and positions; ``sampler_logps``, the generator's
    log-probs of the completion tokens, when every row has them (`Rollout.sampler_logps`)."""
    width_p = max(len(r.prompt_ids) for r in rows)
    width_c = max(max(len(r.ids) for r in rows), completion_width, 1)
    n = len(rows)
    ids = torch.full((n, width_p + width_c), pad, dtype=torch.long)
    attention = torch.zeros((n, width_p + width_c), dtype=torch.long)
    mask = torch.zeros((n, width_c), dtype=torch.float32)
    logged = all(r.sampler_logps is not None and len(r.sampler_logps) == len(r.ids) for r in rows)
    sampler = torch.zeros((n, width_c), dtype=torch.float32)
    for k, r in enumerate(rows):
        p, c = len(r.prompt_ids), len(r.ids)
        ids[k, width_p - p : width_p] = torch.tensor(r.prompt_ids)
        attention[k, width_p - p : width_p + c] = 1
        if c:
            ids[k, width_p : width_p + c] = torch.tensor(r.ids)
            mask[k, :c] = torch.tensor(r.mask, dtype=torch.float32)
            if logged:
                sampler[k, :c] = torch.tensor(r.sampler_logps, dtype=torch.float32)
    positions = (attention.cumsum(-1) - 1).clamp(min=0)
    return Batch(ids, attention, positions, mask, sampler if logged else None)


def sequence_logps(
    model: Any,
    batch: Batch,
    rows: slice,
    *,
    device: torch.device,
    temperature: float,
    share_prefix: bool = False,
    force: bool = False,
) -> torch.Tensor:
    """Log-probs of each completion token under ``model`` (logits divided by ``temperature``).

    With ``share_prefix``, rows whose prompts are equal (the G completions of a GRPO group) run
    their prompt through the model once: a first forward fills a ``DynamicCache`` with each
    distinct prompt, its rows are copied to every repeat, and a second forward runs only the
    completions on top (gradients flow through both). That saves (G - 1) / G of the prompt's
    compute; the log-probs equal the single-forward ones up to floating-point rounding. It is
    used only where it helps and is safe: prompts repeat in ``rows``, the model takes a cache
    (`cache_support`) and, when gradients are on, gradient checkpointing is off (it drops the
    cache in training). ``force`` takes it even without repeats, so that the ranks of an FSDP job
    (whose forwards are collectives) all run the same forwards; they must then also agree on
    the completion width of ``batch``.

    Examples:
        >>> from trainer.policy._model import demo_model
        >>> from trainer.rollouts._rollout import Rollout
        >>> lm = demo_model(12)
        >>> batch = make_batch([Rollout([3, 4], [5, 6], [1, 1]), Rollout([3, 4], [7], [1])], pad=0)
        >>> a = sequence_logps(lm, batch, slice(0, 2), device=torch.device("cpu"), temperature=1.0)
        >>> b = sequence_logps(lm, batch, slice(0, 2), device=torch.device("cpu"), temperature=1.0,
        ...                    share_prefix=True)
        >>> bool(torch.allclose(a, b, atol=1e-5)), tuple(a.shape)
        (True, (2, 2))
    """
    width_c = batch.completion_width
    support = _cache_for_sharing(model) if share_prefix else None
    if support is not None:
        prompts = batch.ids[rows, : batch.ids.shape[1] - width_c]
        if force or torch.unique(prompts, dim=0).shape[0] < prompts.shape[0]:
            return _shared_prefix_logps(model, batch, rows, support, device=device, temperature=temperature)
    inputs = {
        "input_ids": batch.ids[rows].to(device),
        "attention_mask": batch.attention[rows].to(device),
        "position_ids": batch.positions[rows].to(device),
    }
    try:
        logits = model(**inputs, logits_to_keep=width_c + 1).logits
    except TypeError:  # a model without logits_to_keep
        logits = model(**inputs).logits[:, -(width_c + 1) :]
    logits = logits[:, :-1] / temperature
    return token_logprobs(logits, batch.completion[rows].to(device))


def _cache_for_sharing(model: Any) -> CacheSupport | None:
    """How ``model`` takes a prompt cache, or None when it cannot here."""
    inner = unwrap(model)
    checkpointed = any(getattr(m, "gradient_checkpointing", False) is True for m in inner.modules())
    if checkpointed and inner.training and torch.is_grad_enabled():
        return None  # checkpointed layers drop the cache in training
    return cache_support(inner)


def _shared_prefix_logps(
    model: Any,
    batch: Batch,
    rows: slice,
    support: CacheSupport,
    *,
    device: torch.device,
    temperature: float,
) -> torch.Tensor:
    width_c = batch.completion_width
    width_p = batch.ids.shape[1] - width_c
    ids, attention, positions = (t[rows].to(device) for t in (batch.ids, batch.attention, batch.positions))
    completion = batch.completion[rows].to(device)
    inner = unwrap(model)
    first_pass = model if width_c == 1 else inner  # one DDP forward per backward: the last one
    cache, head = prompt_cache(
        first_pass, inner.config, support, ids[:, :width_p], attention[:, :width_p], positions[:, :width_p]
    )
    logps = token_logprobs(head / temperature, completion[:, :1])  # each row's first completion token
    if width_c == 1:
        return logps
    logits = model(
        input_ids=completion[:, :-1],
        attention_mask=attention[:, :-1],
        position_ids=positions[:, width_p:-1],
        use_cache=True,
        **{support.kwarg: cache},
    ).logits
    return torch.cat([logps, token_logprobs(logits / temperature, completion[:, 1:])], dim=1)
