"""Data parallel training on torch.distributed: `torchrun` ranks, DDP or FSDP (``fully_shard``).

Launched with ``torchrun --nproc_per_node N -m trainer ...`` (or ``--standalone``), every rank
rolls out its own share of the step's tasks and the gradients are averaged by DDP (or reduced
and sharded by FSDP); gloo on CPU, NCCL on GPU. Without torchrun (``WORLD_SIZE`` unset or 1)
nothing here does anything.
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass
from typing import Any

import torch

from trainer.errors import TrainerError

__all__ = ["Dist", "RankBatch", "init_distributed", "pad_ranks"]

log = logging.getLogger("trainer")


@dataclass(frozen=True)
class Dist:
    """This process's place in the job (world 1: a plain single process)."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0
    mode: str = "ddp"  # "ddp" or "fsdp"
    cuda: bool = False  # NCCL on this rank's GPU; else gloo on CPU

    @property
    def enabled(self) -> bool:
        return self.world > 1

    @property
    def main(self) -> bool:
        return self.rank == 0

    @property
    def fsdp(self) -> bool:
        """Sharded over ranks (FSDP under torchrun): every forward is a collective, so all ranks
        must run the same ones. In one process ``mode="fsdp"`` trains exactly like DDP's.

        What FSDP changes in the loop is decided here, once: `collective_forwards`, `frozen`,
        `completion_width`, `check`; the loop itself never asks which mode it runs."""
        return self.enabled and self.mode == "fsdp"

    @property
    def collective_forwards(self) -> bool:
        """Every forward is a collective (FSDP): generation keeps stepping until every rank is
        done (``synced_gpus``) and the loss takes the same forwards on every rank."""
        return self.fsdp

    def frozen(self, model: Any) -> Any:
        """The module for forwards without gradients (old and reference log-probs): the sharded
        module itself under FSDP (its forwards are collectives), else the one under DDP's wrapper."""
        return model if self.fsdp else unwrap(model)

    def completion_width(self, width: int) -> int:
        """The least completion width of this rank's batch: every rank's widest under FSDP (the
        ranks run the same forwards, on the same shapes), else no minimum."""
        return self.max(width) if self.fsdp else 1

    def check(self, *, single_turn: bool, generator: str) -> None:
        """What FSDP does not run: multi-turn envs, and a vLLM engine per rank."""
        if self.fsdp and not single_turn:
            raise TrainerError('distributed="fsdp" supports single-turn envs; use distributed="ddp" for multi-turn')
        if self.fsdp and generator == "vllm":
            raise TrainerError('generator="vllm" runs with distributed="ddp" (one engine per rank), not "fsdp"')

    def shard(self, items: list[Any]) -> list[Any]:
        """This rank's contiguous share of ``items`` (``len(items)`` must divide by the world)."""
        if not self.enabled:
            return items
        if len(items) % self.world:
            raise TrainerError(
                f"{len(items)} tasks cannot be split evenly over {self.world} ranks; "
                f"make prompts_per_step and eval_prompts multiples of {self.world}"
            )
        k = len(items) // self.world
        return items[self.rank * k : (self.rank + 1) * k]

    def gather(self, obj: Any) -> list[Any]:
        """Every rank's ``obj``, in rank order (on every rank)."""
        if not self.enabled:
            return [obj]
        import torch.distributed as dist

        out: list[Any] = [None] * self.world
        dist.all_gather_object(out, obj)
        return out

    def sum(self, value: float) -> float:
        if not self.enabled:
            return value
        import torch.distributed as dist

        t = torch.tensor([value], dtype=torch.float64, device=self.device())
        dist.all_reduce(t)
        return float(t.item())

    def max(self, value: int) -> int:
        if not self.enabled:
            return value
        import torch.distributed as dist

        t = torch.tensor([value], dtype=torch.int64, device=self.device())
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return int(t.item())

    def device(self) -> torch.device:
        """This rank's device: its GPU (``LOCAL_RANK``) under NCCL, else the CPU."""
        return torch.device("cuda", self.local_rank) if self.cuda else torch.device("cpu")

    def device_for(self, name: str) -> torch.device:
        """This rank's device for the config's ``device``: a CUDA name needs CUDA."""
        if name.startswith("cuda") and not self.cuda:
            raise TrainerError(f"device {name!r} was asked for but CUDA is not available; use --device cpu")
        return self.device()

    def grad_sync(self, model: Any, *, last: bool) -> contextlib.AbstractContextManager[Any]:
        """Gradients are reduced over ranks only after the last micro-batch of an update."""
        if not self.enabled:
            return contextlib.nullcontext()
        if self.fsdp:
            model.set_requires_gradient_sync(last)
            return contextlib.nullcontext()
        return contextlib.nullcontext() if last else model.no_sync()

    def barrier(self) -> None:
        if self.enabled:
            import torch.distributed as dist

            dist.barrier()


@dataclass(frozen=True)
class RankBatch:
    """This rank's rows for one update, padded so that every rank runs the same collectives.

    ``chunks`` are the micro-batches; ``counted[i]`` is False for a chunk run only to keep the
    ranks in step (a repeat, so that every rank runs as many backward passes as the busiest, or
    the weightless stand-in row of a rank without rows of its own: ``live`` is False). An
    uncounted chunk must weigh nothing: give it a zero mask.
    """

    rows: list[Any]
    advantages: torch.Tensor
    chunks: list[slice]
    counted: list[bool]
    live: bool


def pad_ranks(
    dist_info: Dist, rows: list[Any], advantages: torch.Tensor, filler: Any, micro_batch_size: int
) -> RankBatch:
    """Cut ``rows`` into micro-batches, padded for the other ranks (a no-op in one process).

    Examples:
        >>> share = pad_ranks(Dist(), ["a", "b", "c"], torch.tensor([1.0, 0.0, -1.0]), "a", 2)
        >>> share.chunks, share.counted, share.live
        ([slice(0, 2, None), slice(2, 3, None)], [True, True], True)
    """
    live = bool(rows)
    if not live:  # other ranks learn: join their collectives with a row that weighs nothing
        rows, advantages = [filler], torch.zeros(1, dtype=torch.float32)
    chunks = [slice(s, min(s + micro_batch_size, len(rows))) for s in range(0, len(rows), micro_batch_size)]
    real = len(chunks) if live else 0
    chunks += [chunks[-1]] * (dist_info.max(len(chunks)) - len(chunks))  # equal backward counts on every rank
    return RankBatch(rows, advantages, chunks, [i < real for i in range(len(chunks))], live)


def init_distributed(mode: str, device: str) -> Dist:
    """Join the torchrun job described by the environment (``RANK``, ``WORLD_SIZE``, ...)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return Dist(mode=mode)
    import torch.distributed as dist

    rank, local_rank = int(os.environ["RANK"]), int(os.environ.get("LOCAL_RANK", "0"))
    cuda = device != "cpu" and torch.cuda.is_available()
    if not dist.is_initialized():
        backend = "nccl" if cuda else "gloo"
        if cuda:
            torch.cuda.set_device(local_rank)
        dist.init_process_group(backend=backend)
        log.info("rank %d/%d joined (%s, %s)", rank, world, backend, mode)
    return Dist(rank=rank, world=world, local_rank=local_rank, mode=mode, cuda=cuda)


def wrap(model: Any, dist_info: Dist, device: torch.device) -> Any:
    """The module to train: ``model`` itself (one process), in DDP, or sharded by ``fully_shard``."""
    if not dist_info.enabled:
        return model
    if dist_info.fsdp:
        from torch.distributed.fsdp import fully_shard

        for layer in _decoder_layers(model):
            fully_shard(layer)
        fully_shard(model)
        return model
    from torch.nn.parallel import DistributedDataParallel

    ids = [device.index] if device.type == "cuda" else None
    return DistributedDataParallel(model, device_ids=ids)


def unwrap(model: Any) -> Any:
    """The module under a DDP wrapper (FSDP shards in place: the module is the model)."""
    return getattr(model, "module", model) if type(model).__name__ == "DistributedDataParallel" else model


def _decoder_layers(model: Any) -> list[torch.nn.Module]:
    """The transformer blocks: each becomes one FSDP unit (all-gathered just before its forward)."""
    for module in model.modules():
        if isinstance(module, torch.nn.ModuleList) and len(module) and "Layer" in type(module[0]).__name__:
            return list(module)
    return []


def full_state_dict(model: Any, dist_info: Dist) -> dict[str, torch.Tensor] | None:
    """The whole model's weights on CPU on rank 0 (FSDP gathers the shards; a collective)."""
    if dist_info.fsdp:
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

        sd = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
        return {k: v for k, v in sd.items() if isinstance(v, torch.Tensor)} if dist_info.main else None
    return {k: v.detach().cpu() for k, v in unwrap(model).state_dict().items()} if dist_info.main else None


def full_optimizer_state(model: Any, optimizer: Any, dist_info: Dist) -> dict[str, Any] | None:
    """The optimizer's full state on rank 0 (FSDP gathers it; a collective)."""
    if dist_info.fsdp:
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict

        sd = get_optimizer_state_dict(
            model, optimizer, options=StateDictOptions(full_state_dict=True, cpu_offload=True)
        )
        return sd if dist_info.main else None
    return optimizer.state_dict() if dist_info.main else None


def load_full_state(
    model: Any, optimizer: Any, weights: dict[str, Any], optim_state: dict[str, Any], dist_info: Dist
) -> None:
    """Load full (unsharded) weights and optimizer state into a possibly sharded model."""
    if dist_info.fsdp:
        from torch.distributed.checkpoint.state_dict import (
            StateDictOptions,
            set_model_state_dict,
            set_optimizer_state_dict,
        )

        options = StateDictOptions(full_state_dict=True, strict=False)  # tied lm_head is saved once
        set_model_state_dict(model, weights, options=options)
        set_optimizer_state_dict(model, optimizer, optim_state, options=options)
        return
    unwrap(model).load_state_dict(weights)
    optimizer.load_state_dict(optim_state)
