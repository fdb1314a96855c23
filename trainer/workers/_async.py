"""Asynchronous rollouts with bounded staleness (``async_level = k > 0``): rollout workers as
processes on this machine, on an exact schedule.

Steps count from 0. The batch of step ``t`` is sampled from the weights after
``max(0, t - k)`` updates, exactly (prime-rl's nominal schedule), never "whatever was ready":
so a run is reproducible, and resumes bit for bit. Before step 0 the jobs of steps 0..k are
sent (all from version 0); after the update of step ``t`` the learner publishes version
``t + 1`` and sends the job of step ``t + 1 + k``. While the learner trains step ``t``, the
workers sample steps ``t + 1 .. t + k``. A batch is never split across workers (it is one
job, sent to worker ``t mod n``), so a batch does not depend on the number of workers, and
workers beyond ``k`` have nothing to do.

With ``async_schedule = "latest"`` a worker samples a job from the newest version published
when it starts it (the job's version at least, so never older than ``k`` updates): fresher
batches when the workers lag behind the learner, but which version sampled a batch depends on
timing, so such a run does not repeat.

A worker that dies is started again and its unfinished jobs are sent again (the batch is the
same: sampling is seeded by the step). A checkpoint after ``s`` updates keeps the weights
versions ``max(0, s - k) .. s - 1`` (``async/`` in the checkpoint; version ``s`` is the model
itself): on resume they are published again and the in-flight batches are sampled again from
them, not saved.

A job carries its task seeds and the env's difficulty level (``sampling.curriculum``), fixed when it
is sent (the learner's ``seeds(t)`` and ``level(t)``, `trainer.sampling._dynamic.DynamicSampler.plan`), so
the pass-rate filter and the curriculum keep the exact schedule; a refill takes the level of its step.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import torch

from trainer.errors import TrainerError
from trainer.weights._channel import FileWeights, WeightChannel, version_file
from trainer.workers._worker import Done, Failed, Job, WorkerSpec
from verifiers.executors import RestartLimit, Supervisor, WorkerProcess

__all__ = ["AsyncRollouts", "check_async", "open_workers", "thread_split", "version_for"]

log = logging.getLogger("trainer")

MAX_RESTARTS = 3  # a worker that dies this many times in a row without finishing a job stops the run


def version_for(step: int, k: int) -> int:
    """The weights version (updates done) the batch of ``step`` (from 0) is sampled from.

    Examples:
        >>> [version_for(t, 2) for t in range(5)]
        [0, 0, 0, 1, 2]
    """
    return max(0, step - k)


def thread_split(workers: int, cores: int | None = None, learners: int = 1) -> tuple[int, int]:
    """(torch threads per worker, torch threads per learner): the cores shared evenly, the
    ``learners`` (DDP ranks on this machine) sharing what is left over.

    Examples:
        >>> thread_split(1, 8), thread_split(3, 8), thread_split(2, 2), thread_split(1, 8, learners=2)
        ((4, 4), (2, 2), (1, 1), (2, 3))
    """
    affinity = getattr(os, "sched_getaffinity", None)  # Linux; elsewhere every core counts
    cores = cores or (len(affinity(0)) if affinity else os.cpu_count() or 1)
    each = max(1, cores // (workers + learners))
    return each, max(1, (cores - workers * each) // learners)


def check_async(config: Any, env: Any, *, lora: bool) -> None:
    """One clear error for what asynchronous rollouts do not run with yet that the env or the model
    decides (the settings themselves are checked once, by `trainer._config_async.AsyncConfig`)."""
    why = ""
    if lora:
        why = "LoRA is not sent to rollout workers yet: train every weight (lora = {})"
    elif config.generator == "vllm" and importlib.util.find_spec("vllm") is None:
        why = (
            'generator = "vllm" runs a vLLM engine in each rollout worker, and this python has no vLLM (pip install '
            'vllm; here `bash scripts/ensure-vllm.sh` builds a virtualenv with it); or use generator = "hf"'
        )
    else:
        try:
            pickle.dumps(env)
        except Exception as exc:
            why = f"the env runs in worker processes: pass an env id or a module-level factory ({exc})"
        try:
            pickle.dumps(config.judge)
        except Exception as exc:
            why = why or f"the judge runs in worker processes and cannot be sent there ({exc})"
    if why:
        raise TrainerError(f"async_level = {config.asynchronous.level}: {why}, or set async_level = 0")


def open_workers(
    config: Any,
    env: Any,
    model: Any,
    tokenizer: Any,
    *,
    seeds: Callable[[int], list[int]],
    start: int,
    saved: Path | None,
    learners: int = 1,
    level: Callable[[int], int | None] | None = None,
) -> AsyncRollouts | None:
    """The rollout workers of ``config.async_level > 0`` (checked first: `check_async`), or None.
    ``learners``: the learner processes on this machine (torchrun: `trainer.workers._async_dist`)."""
    if config.asynchronous.level == 0:
        return None
    from trainer._distributed import unwrap
    from trainer.policy._lora import is_lora

    base = unwrap(model)
    check_async(config, env, lora=is_lora(base))
    launch: Launch = ProcessLaunch()
    if config.asynchronous.workers_on == "ray":  # the same schedule, the workers as Ray actors
        from trainer.workers._async_ray import RayLaunch

        launch = RayLaunch.connected()
    return AsyncRollouts(
        config, base, tokenizer, env, seeds, start=start, saved=saved, learners=learners, level=level, launch=launch
    )


Inbox = queue.Queue[tuple[int, int, Any]]
"""What the workers sent: (worker index, its generation, a `Done`, a `Failed`, or None: it died)."""


class Launch(Protocol):
    """How rollout workers of one kind start, take jobs, end and stop (processes: `ProcessLaunch`;
    Ray actors: `trainer.workers._async_ray.RayLaunch`). The `Supervisor` of `AsyncRollouts` keeps them."""

    inbox: Inbox

    def open_weights(self) -> WeightChannel: ...
    def start(self, spec: WorkerSpec, index: int, generation: int) -> Any: ...
    def deliver(self, slot: Any, index: int, job: Job) -> None: ...
    def reap(self, slot: Any) -> str: ...
    def stop_all(self, slots: list[Any]) -> None: ...
    def disconnect(self) -> None: ...


@dataclass
class _Slot:
    """One worker process (``process``: its `subprocess.Popen`) and its generation (restarts)."""

    worker: WorkerProcess
    generation: int

    @property
    def process(self) -> subprocess.Popen[bytes]:
        return self.worker.proc


class ProcessLaunch:
    """Rollout workers as processes: ``python -m trainer.workers._worker FD`` with one end of a socket
    pair (no re-import of the caller's script, the same ``sys.path`` as here)."""

    def __init__(self) -> None:
        self.inbox: Inbox = queue.Queue()

    def open_weights(self) -> WeightChannel:
        return FileWeights()

    def start(self, spec: WorkerSpec, index: int, generation: int) -> _Slot:
        module = "trainer.workers._worker_vllm" if spec.generator == "vllm" else "trainer.workers._worker"
        worker = WorkerProcess(module, env={"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
        worker.conn.send(spec)
        threading.Thread(target=self._listen, args=(index, generation, worker.conn), daemon=True).start()
        return _Slot(worker, generation)

    def _listen(self, index: int, generation: int, conn: Any) -> None:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                self.inbox.put((index, generation, None))
                return
            self.inbox.put((index, generation, message))

    def deliver(self, slot: _Slot, index: int, job: Job) -> None:
        slot.worker.conn.send(job)

    def reap(self, slot: _Slot) -> str:
        """How a dead worker ended (waited for), its pipe closed."""
        return f"exit code {slot.worker.reap(timeout_s=30)}"

    def stop_all(self, slots: list[_Slot]) -> None:
        WorkerProcess.stop_all([slot.worker for slot in slots], timeout_s=10)

    def disconnect(self) -> None:
        pass


def _give_up(index: Hashable, failures: int, how: str) -> TrainerError:
    return TrainerError(
        f"rollout worker {index} died {failures} times in a row ({how}); "
        "its log is above. Set async_level = 0 to roll out in the learner"
    )


class AsyncRollouts:
    """The learner's side: workers, the schedule, weights versions, restarts, resume.

    ``seeds(t)`` gives the task seeds of step ``t`` and ``level(t)`` its env's difficulty level (None:
    as configured), both asked when its job is sent; ``start`` is the number of updates already
    made (a resumed run's step); ``saved`` a checkpoint holding the older versions; ``launch``
    how its workers start and stop (processes on this machine unless told; Ray actors:
    `trainer.workers._async_ray.RayLaunch`), kept by a `verifiers.executors.Supervisor`."""

    def __init__(
        self,
        config: Any,
        model: Any,
        tokenizer: Any,
        env: Any,
        seeds: Callable[[int], list[int]],
        *,
        start: int = 0,
        saved: Path | None = None,
        learners: int = 1,
        level: Callable[[int], int | None] | None = None,
        launch: Launch | None = None,
    ) -> None:
        self.launch = launch = launch or ProcessLaunch()
        self.k, self.steps, self.seeds = config.asynchronous.level, config.steps, seeds
        self.level = level or (lambda step: None)
        self._threads_before = torch.get_num_threads()
        try:
            self.weights = launch.open_weights()
            self.spec = self._spec(config, model, tokenizer, env, learners)
            self._open(config.asynchronous.workers, model, start, saved)
        except BaseException:
            self._abort()
            raise

    def _spec(self, config: Any, model: Any, tokenizer: Any, env: Any, learners: int) -> WorkerSpec:
        model_dir = self.weights.folder / "model"
        model.config.save_pretrained(model_dir)
        tokenizer.save_pretrained(model_dir)
        threads, learner = thread_split(config.asynchronous.workers, learners=learners)
        weight = next(model.parameters())
        torch.set_num_threads(learner)
        return WorkerSpec(
            str(model_dir), str(self.weights.folder), env, dict(config.env_kwargs), config.num_generations,
            config.max_new_tokens, config.temperature, config.seed, threads, config.micro_batch_size,
            judge=config.judge, latest=config.asynchronous.schedule == "latest", device=str(weight.device),
            dtype=str(weight.dtype).removeprefix("torch."), generator=config.generator,
        )  # fmt: skip

    def _open(self, workers: int, model: Any, start: int, saved: Path | None) -> None:
        """Start the workers (kept by a `Supervisor`), publish the first versions, send the first jobs."""
        self._inbox = self.launch.inbox
        self.jobs: dict[tuple[int, int], Job] = {}  # sent, not yet taken; by (step, refill round)
        self.done: dict[tuple[int, int], Done] = {}
        self.supervisor: Supervisor[int, Any] = Supervisor(
            functools.partial(_start, self.launch, self.spec),  # never ``self``: the finalizer holds it
            self.launch.reap,
            limit=RestartLimit(MAX_RESTARTS, _give_up),
            stop_all=self.launch.stop_all,
        )
        for i in range(workers):
            self.supervisor.start(i)
        self._finalizer = weakref.finalize(self, _shutdown, self.supervisor, self.weights, self.launch)
        self._publish_start(model, start, saved)
        for t in range(start, start + self.k + 1):
            self._send(t)

    def _abort(self) -> None:
        """A start that failed: stop what it started (workers, weights, a Ray connection) and give
        the learner back its torch threads."""
        torch.set_num_threads(self._threads_before)
        if hasattr(self, "_finalizer"):
            self._finalizer()
            return
        if hasattr(self, "supervisor"):
            self.supervisor.close()
        if hasattr(self, "weights"):
            self.weights.close()
        self.launch.disconnect()

    @property
    def slots(self) -> list[Any]:
        """The workers, by index: each a slot with its ``process`` (a `subprocess.Popen`, or a
        Ray actor) and ``generation``."""
        return [self.supervisor.workers[i] for i in range(len(self.supervisor.workers))]

    @property
    def restarts(self) -> int:
        return self.supervisor.restarts

    def _send(self, step: int, *, asked: bool = False) -> None:
        """Send the job of ``step`` (ahead of time only within ``config.steps``; ``asked``: any)."""
        if (step >= self.steps and not asked) or (step, 0) in self.jobs:
            return
        self._send_job(Job(step, version_for(step, self.k), self.seeds(step), level=self.level(step)))

    def _send_job(self, job: Job) -> None:
        self.jobs[job.key] = job
        index = self._route(job)
        self.launch.deliver(self.supervisor.workers[index], index, job)

    def _route(self, job: Job) -> int:
        """The worker of ``job``: steps round the workers, a step's refills round from its own."""
        return (job.step + job.round) % len(self.supervisor.workers)

    def _restart(self, index: int) -> None:
        """A worker died: the supervisor starts another (or gives up: `MAX_RESTARTS`), which is
        sent the dead one's unfinished jobs."""
        slot = self.supervisor.restart(index)
        log.warning("rollout worker %d died (%s): restarted it", index, self.supervisor.ended.get(index))
        for key in sorted(self.jobs):  # its unfinished jobs, sent again: the same batches come back
            if self._route(self.jobs[key]) == index and key not in self.done:
                self.launch.deliver(slot, index, self.jobs[key])

    # -- the schedule --------------------------------------------------------------------------
    def take(self, step: int, round_: int = 0, seeds: list[int] | None = None, level: int | None = None) -> Done:
        """The batch of ``step`` (from 0), waiting for it; a worker that died meanwhile is replaced.
        ``round_`` > 0: a refill of ``seeds`` at ``level`` (dynamic sampling), one more job from the same
        weights version as the step's batch (that version is kept until the step's update)."""
        if round_:
            self._send_job(Job(step, version_for(step, self.k), list(seeds or []), round_, level))
        self._send(step, asked=True)  # sent already, unless stepped past config.steps by hand
        key = (step, round_)
        while key not in self.done:
            index, generation, message = self._inbox.get()
            if generation != self.supervisor.workers[index].generation:
                continue  # from a worker already replaced
            if message is None:
                self._restart(index)
            elif isinstance(message, Failed):
                raise TrainerError(f"rollout worker {index} failed on step {message.step}:\n{message.error}")
            else:
                self.supervisor.succeeded(index)
                if (message.step, message.round) in self.jobs:  # not made twice (sent again after a restart)
                    self.done[message.step, message.round] = message
        got = self.done.pop(key)
        del self.jobs[key]
        oldest = version_for(step, self.k)
        if not (got.version == oldest or (self.spec.latest and oldest <= got.version <= step)):
            wanted = f"{oldest}..{step}" if self.spec.latest else str(oldest)
            raise TrainerError(f"step {step}: the batch came from weights version {got.version}, not {wanted}")
        return got

    def advance(self, model: Any, updates: int) -> float:
        """After an update: publish version ``updates``, send the job that waited for it and drop
        the versions no batch still needs. Returns the seconds it took."""
        started = time.perf_counter()
        self.weights.publish(model, updates)
        self._send(updates + self.k)
        self.weights.prune(below=version_for(updates, self.k))
        return time.perf_counter() - started

    # -- checkpoints -----------------------------------------------------------------------------
    def save_into(self, folder: Path, updates: int) -> None:
        """Copy versions ``max(0, updates - k) .. updates - 1`` into ``folder/async``."""
        target = folder / "async"
        target.mkdir(parents=True, exist_ok=True)
        for v in range(version_for(updates, self.k), updates):
            self.weights.save(v, target / version_file(v))

    def _publish_start(self, model: Any, start: int, saved: Path | None) -> None:
        self.weights.publish(model, start)
        for v in range(version_for(start, self.k), start):
            file = (saved / "async" / version_file(v)) if saved is not None else None
            if file is None or not file.is_file():
                raise TrainerError(
                    f"resuming at step {start} with async_level = {self.k} needs weights version {v}, which the "
                    f"checkpoint {saved} does not hold; resume from a checkpoint written with async_level = {self.k}"
                )
            self.weights.add(file, v)

    def metrics(self, step: int, got: Done) -> dict[str, Any]:
        """``staleness`` (updates between the sampling weights and the learner's), ``weight_version``."""
        return {"staleness": step - got.version, "weight_version": got.version}

    def close(self) -> None:
        self._finalizer()
        torch.set_num_threads(self._threads_before)


def _start(launch: Launch, spec: WorkerSpec, index: int, generation: int) -> Any:
    return launch.start(spec, index, generation)


def _shutdown(supervisor: Supervisor[int, Any], weights: WeightChannel, launch: Launch) -> None:
    """Stop every worker, free the weights, disconnect (it must not hold the `AsyncRollouts`)."""
    supervisor.close()
    weights.close()
    launch.disconnect()
