"""Reward shaping by the trainer: DAPO's soft overlong punishment (arXiv 2503.14476, eq. 13), a
reward part ``overlong`` that the verdict shows (``reward/overlong`` in the metrics, the rollout
log and the audit), kept apart from what the verifier said (`Rollout.verdict_reward`)."""

from __future__ import annotations

from dataclasses import replace

from trainer.rollouts._rollout import Rollout
from trainer.sampling._config import SamplingConfig

__all__ = ["overlong_penalty", "shape", "shape_overlong"]


def overlong_penalty(length: int, *, max_len: int, buffer: int) -> float:
    """0 up to ``max_len - buffer`` tokens, then linear down to -1 at ``max_len``, -1 beyond.

    Examples:
        >>> [overlong_penalty(n, max_len=10, buffer=4) for n in (6, 8, 10, 12)]
        [0.0, -0.5, -1.0, -1.0]
    """
    start = max_len - buffer
    if length <= start:
        return 0.0
    if length > max_len or buffer == 0:
        return -1.0
    return (start - length) / buffer


def shape_overlong(groups: list[list[Rollout]], *, max_len: int, buffer: int) -> None:
    """Add each judged rollout's penalty (on its generated tokens) to its reward, as the reward
    part ``overlong`` of its last verdict; ``Rollout.shaping`` remembers it. Unjudged rollouts
    (masked anyway) are left as they are."""
    for group in groups:
        for r in group:
            if r.reward is None or not r.judgements:
                continue
            p = overlong_penalty(r.generated, max_len=max_len, buffer=buffer)
            last = r.judgements[-1]
            parts = {**last.reward_parts, "overlong": last.reward_parts.get("overlong", 0.0) + p}
            r.judgements[-1] = replace(last, reward=last.reward + p, reward_parts=parts)
            r.reward += p
            r.shaping += p


def shape(groups: list[list[Rollout]], sampling: SamplingConfig, max_new_tokens: int) -> list[list[Rollout]]:
    """``groups`` with the shaping ``sampling`` asks for (in place; returned for chaining)."""
    if sampling.overlong:
        max_len, buffer = sampling.overlong_lengths(max_new_tokens)
        shape_overlong(groups, max_len=max_len, buffer=buffer)
    return groups
