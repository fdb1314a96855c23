"""Asynchronous rollouts under torchrun: DDP or FSDP learners sharing one set of rollout workers.

Rank 0 owns the workers (one `AsyncRollouts`, on the same schedule as in one process). Each step
it takes the batch and broadcasts it whole to every rank (``broadcast_object_list``), and each
rank trains on its `Dist.shard` of the groups: exactly the share the synchronous path gives it
(there too every rank ends up with every group, gathered). After the update only rank 0
publishes the weights: under DDP they are the same on every rank; under FSDP every rank takes
part in gathering the full state dict (a collective) into a CPU copy of the model that rank 0
keeps for publishing. The cores of rank 0's machine are split between its workers and the
learners on it (``LOCAL_WORLD_SIZE``). Checkpoints and resume are those of one process: rank 0
saves the older versions and publishes them again on resume. An error on rank 0 (a worker that
failed for good) is sent to every rank, so that all of them stop with it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from trainer._distributed import Dist, full_state_dict, unwrap
from trainer.errors import TrainerError
from trainer.policy._lora import is_lora
from trainer.workers._async import AsyncRollouts, check_async, open_workers, thread_split
from trainer.workers._worker import Done

__all__ = ["SharedRollouts", "open_rollouts"]


def open_rollouts(
    config: Any,
    env: Any,
    model: Any,
    tokenizer: Any,
    dist: Dist,
    *,
    seeds: Callable[[int], list[int]],
    start: int,
    saved: Path | None,
    level: Callable[[int], int | None] | None = None,
) -> AsyncRollouts | SharedRollouts | None:
    """The rollout workers of ``config.async_level > 0``: this process's own, or under torchrun
    rank 0's, shared by every rank (`SharedRollouts`). None for ``async_level = 0``."""
    if config.asynchronous.level == 0:
        return None
    if not dist.enabled:
        return open_workers(config, env, model, tokenizer, seeds=seeds, start=start, saved=saved, level=level)
    check_async(config, env, lora=is_lora(unwrap(model)))  # on every rank: all of them stop
    learners = int(os.environ.get("LOCAL_WORLD_SIZE", dist.world))
    shadow = _shadow(model, dist) if dist.fsdp else None
    inner = None
    if dist.main:
        source = shadow if shadow is not None else unwrap(model)
        inner = open_workers(
            config, env, source, tokenizer, seeds=seeds, start=start, saved=saved, learners=learners, level=level
        )  # fmt: skip
    return SharedRollouts(dist, inner, shadow, learners=learners, workers=config.asynchronous.workers)


def _shadow(model: Any, dist: Dist) -> Any:
    """Rank 0's CPU copy of an FSDP model's full weights, to publish from (None on other ranks);
    gathering them is a collective: every rank calls this."""
    weights = full_state_dict(model, dist)
    if weights is None:
        return None
    from transformers import AutoModelForCausalLM

    dtype = next(iter(weights.values())).dtype
    shadow = AutoModelForCausalLM.from_config(unwrap(model).config).to(dtype).eval()
    shadow.requires_grad_(False)
    _load(shadow, weights)
    return shadow


def _load(shadow: Any, weights: dict[str, torch.Tensor]) -> None:
    missing, unexpected = shadow.load_state_dict(weights, strict=False)
    if unexpected or [m for m in missing if not m.endswith("lm_head.weight")]:
        raise TrainerError(
            f"the gathered FSDP weights do not fit the model: missing {missing}, unexpected {unexpected}"
        )
    if missing:  # tied embeddings are gathered once
        shadow.tie_weights()


class SharedRollouts:
    """Every rank's view of rank 0's rollout workers: the same calls as `AsyncRollouts`.

    ``inner`` is rank 0's `AsyncRollouts` (None elsewhere), ``shadow`` rank 0's CPU copy of an
    FSDP model (None under DDP)."""

    def __init__(self, dist: Dist, inner: AsyncRollouts | None, shadow: Any, *, learners: int, workers: int) -> None:
        self.dist, self.inner, self.shadow = dist, inner, shadow
        self._threads_before = torch.get_num_threads()
        if inner is None and os.environ.get("GROUP_RANK", "0") == "0":  # a learner beside rank 0's workers
            torch.set_num_threads(thread_split(workers, learners=learners)[1])

    def take(self, step: int, round_: int = 0, seeds: list[int] | None = None, level: int | None = None) -> Done:
        """The batch of ``step`` (``round_`` > 0: a refill of ``seeds`` at ``level``) on every rank: rank
        0 takes it from its workers and sends it."""
        import torch.distributed as tdist

        box: list[Any] = [None]
        if self.inner is not None:
            try:
                box = [self.inner.take(step, round_, seeds, level)]
            except TrainerError as exc:
                box = [exc]
        tdist.broadcast_object_list(box, src=0, device=self.dist.device())
        if isinstance(box[0], TrainerError):
            raise box[0]
        got: Done = box[0]
        return got

    def advance(self, model: Any, updates: int) -> float:
        """After an update: rank 0 publishes version ``updates`` (FSDP: gathered by every rank)."""
        started = time.perf_counter()
        if self.dist.fsdp:
            weights = full_state_dict(model, self.dist)
            if weights is not None:
                _load(self.shadow, weights)
        if self.inner is not None:
            self.inner.advance(self.shadow if self.shadow is not None else model, updates)
        return time.perf_counter() - started

    def metrics(self, step: int, got: Done) -> dict[str, Any]:
        """``staleness`` and ``weight_version``, as in one process."""
        return {"staleness": step - got.version, "weight_version": got.version}

    def save_into(self, folder: Path, updates: int) -> None:
        """Rank 0 (the one that writes checkpoints) keeps the versions a resume needs."""
        if self.inner is not None:
            self.inner.save_into(folder, updates)

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()
        else:
            torch.set_num_threads(self._threads_before)
