"""Weights to rollout workers by a collective broadcast (`WeightChannel`): NCCL between GPUs,
gloo on the CPU, the same code.

The learner and its workers share a process group of their own, apart from torchrun's (the
learner may be rank 0 of a DDP job): ``ProcessGroupNCCL`` or ``ProcessGroupGloo`` built on a
``TCPStore`` on 127.0.0.1 that the learner hosts; the learner is rank 0, the workers ranks
1..n. A version goes as a header (its number and its buffers' sizes), then one flat buffer per
dtype (each tensor once: tied weights are one tensor).

Blocking. A broadcast is a collective: it ends only when every member has joined it. So no
thread that does work calls one:

- the learner's `publish` copies the weights into the flat buffers (a snapshot: the optimizer
  goes on changing the parameters) and queues them; a sender thread broadcasts the queued
  versions one after another, in version order. `publish` returns at once, unless
  ``max_pending`` versions are still queued: then it waits (a worker that stopped taking part
  holds the learner up to ``timeout_s``, then `publish` fails).
- each worker's receiver thread joins every broadcast, in order, into fresh buffers, whatever
  the worker does meanwhile: a worker busy generating, or idle between jobs, never holds up the
  learner or the other workers. `load(model, v)` waits until version ``v`` has arrived, copies
  it into ``model`` (at a job's start: the model never changes mid-generation) and drops the
  versions older than ``v``.

So every worker receives every version, in order; none waits for another's generation. The
cost: a copy of the weights per version queued on the learner and per version received and not
yet loaded on a worker (with the exact schedule at most about ``k + workers``). The group's
members are fixed: a worker that dies breaks it for all (the broadcast fails after
``timeout_s``), and a new group must be made with every member, unlike `FileWeights`, where a
restarted worker just reads the files. Both sides must build the same architecture (the header
checks the sizes). On a GPU each process must own its device (NCCL refuses two ranks on one GPU).
"""

from __future__ import annotations

import datetime
import queue
import threading
from dataclasses import dataclass
from typing import Any

import torch

from trainer.errors import TrainerError

__all__ = ["CollectiveWeights", "GroupAddress"]

STOP = -1  # the header's version that ends the receivers


@dataclass(frozen=True)
class GroupAddress:
    """Where the workers find the learner's group: its store's port, the group's size, the backend."""

    port: int
    world: int
    backend: str = "gloo"
    host: str = "127.0.0.1"


def _plan(model: Any) -> list[tuple[torch.dtype, list[str]]]:
    """The state dict's names by dtype (in a fixed order), each storage once (tied weights)."""
    seen: set[int] = set()
    by_dtype: dict[torch.dtype, list[str]] = {}
    for name, tensor in model.state_dict().items():
        if tensor.data_ptr() in seen:
            continue
        seen.add(tensor.data_ptr())
        by_dtype.setdefault(tensor.dtype, []).append(name)
    return sorted(by_dtype.items(), key=lambda item: str(item[0]))


def _group(address: GroupAddress, rank: int, store: Any, timeout: datetime.timedelta) -> Any:
    """This process's member of the group (blocks until all ``address.world`` members join)."""
    import torch.distributed as dist

    prefixed = dist.PrefixStore("grpo-envs-weights", store)  # type: ignore[attr-defined]
    if address.backend == "nccl":
        options = dist.ProcessGroupNCCL.Options()
        options._timeout = timeout
        return dist.ProcessGroupNCCL(prefixed, rank, address.world, options)
    options = dist.ProcessGroupGloo._Options()  # type: ignore[attr-defined]
    options._timeout = timeout
    options._devices = [dist.ProcessGroupGloo.create_device(hostname=address.host)]
    return dist.ProcessGroupGloo(prefixed, rank, address.world, options)


class CollectiveWeights:
    """One end of the channel: the learner's (`host`) or a worker's (`join`).

    Examples:
        >>> import torch
        >>> learner = CollectiveWeights.host(torch.nn.Linear(2, 2), workers=0)  # a group of one
        >>> learner.publish(torch.nn.Linear(2, 2), 0)
        >>> learner.address.world, learner.close()
        (1, None)
    """

    def __init__(
        self, address: GroupAddress, rank: int, template: Any, *, store: Any = None, device: Any = None,
        timeout_s: float = 300.0, max_pending: int = 2,
    ) -> None:  # fmt: skip
        import torch.distributed as dist

        self.address, self.rank = address, rank
        self.device = torch.device(device or ("cuda" if address.backend == "nccl" else "cpu"))
        self.plan = _plan(template)
        state = template.state_dict()
        self.sizes = [sum(state[n].numel() for n in names) for _, names in self.plan]
        self.timeout = datetime.timedelta(seconds=timeout_s)
        if store is None:
            store = dist.TCPStore(address.host, address.port, is_master=False, timeout=self.timeout)  # type: ignore[attr-defined]
        self._store = store
        self._queue: queue.Queue[tuple[int, list[torch.Tensor]] | None] = queue.Queue(maxsize=max(1, max_pending))
        self._arrived: dict[int, list[torch.Tensor]] = {}
        self._newest, self._published = -1, -1
        self._error: BaseException | None = None
        self._changed = threading.Condition()
        target = self._send if rank == 0 else self._receive
        self._thread = threading.Thread(target=target, daemon=True, name=f"weights-{rank}")
        self._thread.start()

    @classmethod
    def host(cls, template: Any, workers: int, *, backend: str | None = None, **options: Any) -> CollectiveWeights:
        """The learner's end: a store on 127.0.0.1 (a free port) for ``workers`` workers to join;
        ``backend`` NCCL when CUDA is there, else gloo."""
        import torch.distributed as dist

        backend = backend or ("nccl" if torch.cuda.is_available() else "gloo")
        timeout = datetime.timedelta(seconds=options.get("timeout_s", 300.0))
        store = dist.TCPStore(  # type: ignore[attr-defined]
            "127.0.0.1", 0, world_size=workers + 1, is_master=True, timeout=timeout, wait_for_workers=False
        )
        return cls(GroupAddress(store.port, workers + 1, backend), 0, template, store=store, **options)

    @classmethod
    def join(cls, address: GroupAddress, rank: int, template: Any, **options: Any) -> CollectiveWeights:
        """Worker ``rank`` (1..n)'s end; ``template`` has the learner's architecture."""
        if not 1 <= rank < address.world:
            raise TrainerError(f"a worker's rank in the weights group is 1..{address.world - 1}, got {rank}")
        return cls(address, rank, template, **options)

    # -- the learner -----------------------------------------------------------------------------
    def publish(self, model: Any, version: int) -> None:
        """Queue ``model``'s weights as ``version`` (greater than the last one) for every worker."""
        self._raise()
        if self.rank != 0:
            raise TrainerError("publish is the learner's (rank 0); a worker loads")
        if version <= self._published:
            raise TrainerError(f"weights versions go up: {version} after {self._published}")
        state = model.state_dict()
        with torch.no_grad():
            flats = [
                torch.cat([state[n].detach().reshape(-1) for n in names]).to(self.device) for _, names in self.plan
            ]
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)  # the snapshot is whole before another thread sends it
        try:
            self._queue.put((version, flats), timeout=self.timeout.total_seconds())
        except queue.Full:
            raise TrainerError(
                f"weights version {version}: the workers took no version for {self.timeout}; is one gone?"
            ) from None
        self._published = version

    def _send(self) -> None:
        try:
            group = _group(self.address, 0, self._store, self.timeout)
            while True:
                item = self._queue.get()
                version, flats = item if item is not None else (STOP, [])
                self._broadcast(group, self._header(version, flats))
                for flat in flats:
                    self._broadcast(group, flat)
                if item is None:
                    return
        except BaseException as exc:  # said by the next publish
            self._error = exc

    # -- a worker --------------------------------------------------------------------------------
    def load(self, model: Any, version: int) -> int:
        """Wait for ``version``, copy it into ``model``, drop the older ones; returns ``version``."""
        if self.rank == 0:
            raise TrainerError("load is a worker's; the learner publishes")
        with self._changed:
            ok = self._changed.wait_for(lambda: self._newest >= version or self._error is not None, self._seconds())
            self._raise()
            if not ok:
                raise TrainerError(f"weights version {version} did not arrive within {self.timeout}")
            if version not in self._arrived:
                raise TrainerError(f"weights version {version} is not here (dropped, or never published)")
            flats = self._arrived[version]
            for old in [v for v in self._arrived if v < version]:
                del self._arrived[old]
        state = model.state_dict()
        with torch.no_grad():
            for flat, (_, names) in zip(flats, self.plan, strict=True):
                offset = 0
                for name in names:
                    n = state[name].numel()
                    state[name].copy_(flat[offset : offset + n].view_as(state[name]))
                    offset += n
        return version

    def _receive(self) -> None:
        try:
            group = _group(self.address, self.rank, self._store, self.timeout)
            while True:
                header = self._broadcast(group, torch.zeros(1 + len(self.plan), dtype=torch.int64, device=self.device))
                version, sizes = int(header[0]), header[1:].tolist()
                if version == STOP:
                    return
                if sizes != self.sizes:
                    raise TrainerError(f"weights version {version} has buffers {sizes}, this model {self.sizes}")
                flats = [self._broadcast(group, torch.empty(n, dtype=d, device=self.device)) for n, (d, _) in zip(
                    sizes, self.plan, strict=True)]  # fmt: skip
                with self._changed:
                    self._arrived[version], self._newest = flats, version
                    self._changed.notify_all()
        except BaseException as exc:  # said by the next load
            with self._changed:
                self._error = exc
                self._changed.notify_all()

    # -- both ------------------------------------------------------------------------------------
    def _header(self, version: int, flats: list[torch.Tensor]) -> torch.Tensor:
        sizes = [int(f.numel()) for f in flats] if flats else [0] * len(self.sizes)
        return torch.tensor([version, *sizes], dtype=torch.int64, device=self.device)

    def _broadcast(self, group: Any, tensor: torch.Tensor) -> torch.Tensor:
        group.broadcast([tensor], _root()).wait()
        if tensor.is_cuda:
            torch.cuda.current_stream(tensor.device).synchronize()  # this thread's buffer is whole
        return tensor

    def _seconds(self) -> float:
        return self.timeout.total_seconds()

    def _raise(self) -> None:
        if self._error is not None:
            raise TrainerError(f"the weights group failed: {self._error}") from self._error

    def close(self) -> None:
        """The learner ends the workers' receivers (a STOP header) and waits for its sender."""
        if self.rank == 0 and self._thread.is_alive():
            try:
                self._queue.put(None, timeout=self._seconds())
            except queue.Full:
                pass
            self._thread.join(timeout=self._seconds())


def _root() -> Any:
    import torch.distributed as dist

    options = dist.BroadcastOptions()
    options.rootRank = 0
    return options
