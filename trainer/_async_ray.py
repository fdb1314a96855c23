"""Rollout workers as Ray actors (``async_workers_on = "ray"``): the exact schedule, the
restarts and the resume of `trainer._async`, with actors for worker processes.

Ray is the cluster at ``RAY_ADDRESS`` when it is set, else a new local one (as
`verifiers.executors.RayExecutor` chooses), or the one this process is already connected to
(a trainer inside a Ray job). Each actor runs the worker processes' `_Worker` (the same rollout
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
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch

from trainer._weights_ray import RayWeights
from trainer._worker import Done, Failed, Job, WorkerSpec
from trainer.errors import TrainerError

__all__ = ["ActorSlot", "RayPool", "RolloutActor", "connect"]

log = logging.getLogger("trainer")
WHERE = 'async_workers_on = "ray"'


def _short(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return (lines[0] if lines else type(exc).__name__)[:300]


def connect() -> tuple[Any, bool]:
    """Ray, connected: (the module, whether this call connected it, so closing disconnects)."""
    try:
        import ray
    except ImportError:
        raise TrainerError(
            f"{WHERE} needs Ray: pip install 'grpo-envs[ray]', or use async_workers_on = \"local\""
        ) from None
    if ray.is_initialized():
        return ray, False
    local = not os.environ.get("RAY_ADDRESS")
    try:
        if local:
            ray.init(address="local", include_dashboard=False)
        else:
            ray.init()  # Ray reads RAY_ADDRESS
    except Exception as exc:  # an unreachable head, a bad address
        where = "a new local cluster" if local else f"RAY_ADDRESS={os.environ['RAY_ADDRESS']}"
        raise TrainerError(f"{WHERE}: cannot start or reach the Ray cluster ({where}): {_short(exc)}") from exc
    return ray, True


class RolloutActor:
    """One rollout worker as a Ray actor: a worker process's `_Worker`, fed by calls."""

    def __init__(self, spec: WorkerSpec, files: dict[str, bytes]) -> None:
        import ray

        from trainer._worker import _Worker

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


class RayPool:
    """The pool methods of `trainer._async.AsyncRollouts` for Ray actors: put before it as a
    mixin (``class RayRollouts(RayPool, AsyncRollouts)``), it replaces the five that start,
    feed, bury and stop worker processes and the weights channel; the schedule stays the same."""

    spec: WorkerSpec  # set by AsyncRollouts
    slots: list[Any]
    weights: Any
    _inbox: queue.Queue[tuple[int, int, Any]]
    _finalizer: Any  # a weakref.finalize
    _route: Callable[[Job], int]  # AsyncRollouts': which worker takes a job

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.ray, self._owns = connect()
        self._why: dict[int, str] = {}  # why an actor died, by id(handle)
        self._files: Any = None
        self._actor = self.ray.remote(RolloutActor)
        try:
            super().__init__(*args, **kwargs)
        except BaseException:
            if hasattr(self, "_finalizer"):  # actors started: stop them, free the weights, disconnect
                self._finalizer()
            else:
                if getattr(self, "weights", None) is not None:
                    self.weights.close()
                if self._owns:
                    self.ray.shutdown()
            raise

    def _check_room(self, threads: int) -> None:
        """A node with ``threads`` CPUs (else the actors would wait for one forever)."""
        cpus = [n.get("Resources", {}).get("CPU", 0.0) for n in self.ray.nodes() if n.get("Alive")]
        if max(cpus, default=0.0) < threads:
            raise TrainerError(
                f"{WHERE}: each rollout actor asks for {threads} CPUs (a worker process's share of this machine's "
                f"cores) and no node of the Ray cluster has them (CPUs per node: {cpus}); lower async_workers' share "
                "by running the learner with fewer cores, or add a bigger node"
            )

    def _stopper(self) -> Callable[[list[Any], Any], None]:
        return functools.partial(_stop_actors, self.ray, self._owns)

    def _open_weights(self) -> RayWeights:
        return RayWeights(self.ray)

    def _spawn(self, index: int, generation: int) -> Any:  # an ActorSlot
        if self._files is None:  # the first actor: room for it, and the model's config and tokenizer, put once
            self._check_room(self.spec.threads)
            root = Path(self.spec.model_dir)
            files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
            self._files = self.ray.put(files)
        actor = self._actor.options(num_cpus=self.spec.threads, max_restarts=0).remote(self.spec, self._files)
        return ActorSlot(actor, generation)

    def _deliver(self, slot: Any, job: Job) -> None:
        assert isinstance(self.weights, RayWeights)
        called = slot.process.run.remote(job, [self.weights.refs[job.version]])
        index = self._route(job)
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
        self._inbox.put((index, generation, message))

    def _reap(self, slot: Any) -> str:
        try:
            self.ray.kill(slot.process, no_restart=True)
        except Exception as exc:  # gone already
            log.debug("ray.kill of a dead rollout actor: %s", exc)
        return f"Ray actor: {self._why.pop(id(slot.process), 'died')}"


def _stop_actors(ray: Any, owns: bool, slots: list[ActorSlot], weights: RayWeights) -> None:
    """Let each actor free its folder (a few seconds at most), stop it; disconnect if we connected."""
    if ray.is_initialized():
        closing = [slot.process.close.remote() for slot in slots]
        ray.wait(closing, num_returns=len(closing), timeout=5.0)
        for slot in slots:
            try:
                ray.kill(slot.process, no_restart=True)
            except Exception as exc:  # gone already
                log.debug("ray.kill of a rollout actor: %s", exc)
    weights.close()
    if owns and ray.is_initialized():
        ray.shutdown()
