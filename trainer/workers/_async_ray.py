"""Rollout workers as Ray actors (``async_workers_on = "ray"``): the exact schedule, the
restarts and the resume of `trainer.workers._async`, with actors for worker processes.

Ray is connected as `verifiers.executors.RayExecutor` connects (`verifiers.executors.connect_ray`):
the cluster at ``RAY_ADDRESS`` when it is set, else a new local one, or the one this process is
already connected to (a trainer inside a Ray job). Each actor runs the worker processes' `_Worker` (the same rollout
loop, env, verifier and behaviour log-probs) and asks Ray for as many CPUs as a worker process
gets here (`thread_split`). The model's config and tokenizer reach it as bytes, put once, so its
node need not see this machine's files; the weights go through `RayWeights` (``ray.put`` once
per version, the ObjectRef sent with each job). An answer comes back through its call's future
into the inbox a process's pipe feeds. An actor whose call fails with `RayActorError` has died:
it is killed for good, started again and sent its unfinished jobs, as a process is.
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch

from trainer.errors import TrainerError
from trainer.weights._ray import RayWeights
from trainer.workers._worker import Done, Failed, Job, WorkerSpec
from verifiers.errors import ExecutorError
from verifiers.executors import connect_ray, kill_actor

__all__ = ["ActorSlot", "RayLaunch", "RolloutActor", "connect"]

log = logging.getLogger("trainer")
WHERE = 'async_workers_on = "ray"'


def _short(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return (lines[0] if lines else type(exc).__name__)[:300]


def connect() -> tuple[Any, bool]:
    """Ray, connected (`verifiers.executors.connect_ray`: ``RAY_ADDRESS``, else a new local
    cluster without a dashboard): the module, whether this call connected it."""
    try:
        return connect_ray(local=lambda: {"include_dashboard": False}, who=WHERE)
    except ExecutorError as exc:
        raise TrainerError(f'{exc}; or use async_workers_on = "local"') from exc


class RolloutActor:
    """One rollout worker as a Ray actor: a worker process's `_Worker`, fed by calls."""

    def __init__(self, spec: WorkerSpec, files: dict[str, bytes]) -> None:
        import ray

        from trainer.workers._worker import _Worker

        torch.set_num_threads(spec.threads)
        torch.use_deterministic_algorithms(True, warn_only=True)
        self.weights = RayWeights(ray)  # its folder (named by this pid: swept once it is gone) holds the model's files
        model_dir = self.weights.folder / "model"
        for name, data in files.items():
            (model_dir / name).parent.mkdir(parents=True, exist_ok=True)
            (model_dir / name).write_bytes(data)
        self.worker = _Worker(replace(spec, model_dir=str(model_dir), weights_dir=str(self.weights.folder)))
        self.worker.weights = self.weights

    def run(self, job: Job, weights: list[Any]) -> Done | Failed:
        """The batch of ``job``; ``weights`` holds the ObjectRef of its version (in a list: Ray
        resolves it only if this actor holds another version)."""
        self.weights.refs = {job.version: weights[0]}
        try:
            done = self.worker.run(job)
        except Exception:
            return Failed(job.step, traceback.format_exc())
        finally:
            self.weights.refs = {}
        done.pid = os.getpid()
        return done

    def close(self) -> None:
        self.weights.close()


@dataclass
class ActorSlot:
    """One worker: its Ray actor (``process``, as a worker process's slot names it), its generation."""

    process: Any
    generation: int


class RayLaunch:
    """How rollout workers start and stop as Ray actors (`trainer.workers._async.Launch`); the
    `AsyncRollouts` that holds it keeps the schedule, and its supervisor the restarts."""

    def __init__(self, ray: Any, owns: bool) -> None:
        self.ray, self.owns = ray, owns
        self.inbox: queue.Queue[tuple[int, int, Any]] = queue.Queue()
        self._why: dict[int, str] = {}  # why an actor died, by id(handle)
        self._files: Any = None
        self._actor = ray.remote(RolloutActor)
        self.weights: RayWeights | None = None

    @classmethod
    def connected(cls) -> RayLaunch:
        return cls(*connect())

    def _check_room(self, threads: int) -> None:
        """A node with ``threads`` CPUs (else the actors would wait for one forever)."""
        cpus = [n.get("Resources", {}).get("CPU", 0.0) for n in self.ray.nodes() if n.get("Alive")]
        if max(cpus, default=0.0) < threads:
            raise TrainerError(
                f"{WHERE}: each rollout actor asks for {threads} CPUs (a worker process's share of this machine's "
                f"cores) and no node of the Ray cluster has them (CPUs per node: {cpus}); lower async_workers' share "
                "by running the learner with fewer cores, or add a bigger node"
            )

    def open_weights(self) -> RayWeights:
        self.weights = RayWeights(self.ray)
        return self.weights

    def start(self, spec: WorkerSpec, index: int, generation: int) -> ActorSlot:
        if self._files is None:  # the first actor: room for it, and the model's config and tokenizer, put once
            self._check_room(spec.threads)
            root = Path(spec.model_dir)
            files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
            self._files = self.ray.put(files)
        actor = self._actor.options(num_cpus=spec.threads, max_restarts=0).remote(spec, self._files)
        return ActorSlot(actor, generation)

    def deliver(self, slot: ActorSlot, index: int, job: Job) -> None:
        assert self.weights is not None
        called = slot.process.run.remote(job, [self.weights.refs[job.version]])
        called.future().add_done_callback(
            functools.partial(self._landed, index, slot.generation, job.step, id(slot.process))
        )

    def _landed(self, index: int, generation: int, step: int, actor: int, future: Any) -> None:
        """A call's answer into the inbox: its batch, None (the actor died) or a `Failed`."""
        from ray.exceptions import RayActorError

        try:
            message = future.result()
        except RayActorError as exc:
            self._why[actor] = _short(exc)
            message = None
        except Exception as exc:  # the call failed, not the actor: the run stops with the reason
            message = Failed(step, f"{type(exc).__name__}: {_short(exc)}")
        self.inbox.put((index, generation, message))

    def reap(self, slot: ActorSlot) -> str:
        kill_actor(self.ray, slot.process)
        return f"Ray actor: {self._why.pop(id(slot.process), 'died')}"

    def stop_all(self, slots: list[ActorSlot]) -> None:
        """Let each actor free its folder (a few seconds at most), stop it."""
        if self.ray.is_initialized():
            closing = [slot.process.close.remote() for slot in slots]
            self.ray.wait(closing, num_returns=len(closing), timeout=5.0)
            for slot in slots:
                kill_actor(self.ray, slot.process)

    def disconnect(self) -> None:
        """Shut Ray down if `connect` connected it."""
        if self.owns and self.ray.is_initialized():
            self.ray.shutdown()
