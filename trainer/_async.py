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
is sent (the learner's ``seeds(t)`` and ``level(t)``, `trainer._dynamic.DynamicSampler.plan`), so
the pass-rate filter and the curriculum keep the exact schedule; a refill takes the level of its step.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import pickle
import queue
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import torch

from trainer._weights import FileWeights
from trainer._worker import Done, Failed, Job, WorkerSpec
from trainer.errors import TrainerError

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
    ``learners``: the learner processes on this machine (torchrun: `trainer._async_dist`)."""
    if config.asynchronous.level == 0:
        return None
    from trainer._distributed import unwrap
    from trainer._lora import is_lora

    base = unwrap(model)
    check_async(config, env, lora=is_lora(base))
    kind = AsyncRollouts
    if config.asynchronous.workers_on == "ray":  # the same schedule, the workers as Ray actors
        from trainer._async_ray import RayPool

        class RayRollouts(RayPool, AsyncRollouts):
            """`AsyncRollouts` whose workers are Ray actors (`RayPool`'s methods)."""

        kind = RayRollouts
    return kind(config, base, tokenizer, env, seeds, start=start, saved=saved, learners=learners, level=level)


@dataclass
class _Slot:
    """One worker: its process, the learner's end of its pipe, its generation (restarts)."""

    process: Any
    conn: Any
    generation: int


class AsyncRollouts:
    """The learner's side: workers, the schedule, weights versions, restarts, resume.

    ``seeds(t)`` gives the task seeds of step ``t`` and ``level(t)`` its env's difficulty level (None:
    as configured), both asked when its job is sent; ``start`` is the number of updates already
    made (a resumed run's step); ``saved`` a checkpoint holding the older versions."""

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
    ) -> None:
        self.k, self.steps, self.seeds = config.asynchronous.level, config.steps, seeds
        self.level = level or (lambda step: None)
        self.weights = self._open_weights()
        model_dir = self.weights.folder / "model"
        model.config.save_pretrained(model_dir)
        tokenizer.save_pretrained(model_dir)
        threads, learner = thread_split(config.asynchronous.workers, learners=learners)
        weight = next(model.parameters())
        self._threads_before = torch.get_num_threads()
        torch.set_num_threads(learner)
        self.spec = WorkerSpec(
            str(model_dir), str(self.weights.folder), env, dict(config.env_kwargs), config.num_generations,
            config.max_new_tokens, config.temperature, config.seed, threads, config.micro_batch_size,
            judge=config.judge, latest=config.asynchronous.schedule == "latest", device=str(weight.device),
            dtype=str(weight.dtype).removeprefix("torch."), generator=config.generator,
        )  # fmt: skip
        self._inbox: queue.Queue[tuple[int, int, Any]] = queue.Queue()
        self.jobs: dict[tuple[int, int], Job] = {}  # sent, not yet taken; by (step, refill round)
        self.done: dict[tuple[int, int], Done] = {}
        self.restarts = 0
        self._failures = [0] * config.asynchronous.workers
        self.slots = [self._spawn(i, 0) for i in range(config.asynchronous.workers)]
        self._finalizer = weakref.finalize(self, self._stopper(), self.slots, self.weights)
        self._publish_start(model, start, saved)
        for t in range(start, start + self.k + 1):
            self._send(t)

    # -- workers (the process pool; trainer._async_ray.RayPool replaces these five) ----------------
    def _stopper(self) -> Callable[[list[Any], Any], None]:
        """The finalizer that stops every worker and frees the weights (it must not hold ``self``)."""
        return _shutdown

    def _open_weights(self) -> FileWeights:
        return FileWeights()

    def _deliver(self, slot: _Slot, job: Job) -> None:
        slot.conn.send(job)

    def _reap(self, slot: _Slot) -> str:
        """How a dead worker ended (waited for), its pipe closed."""
        slot.conn.close()
        return f"exit code {slot.process.wait(timeout=30)}"

    def _spawn(self, index: int, generation: int) -> _Slot:
        """``python -m trainer._worker FD`` with one end of a socket pair: no re-import of the
        caller's script (as multiprocessing's spawn would), the same ``sys.path`` as here."""
        ours, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        fd = theirs.fileno()
        module = "trainer._worker_vllm" if self.spec.generator == "vllm" else "trainer._worker"
        command = [sys.executable, "-m", module, str(fd)]
        process = subprocess.Popen(command, pass_fds=[fd], env=env, stdin=subprocess.DEVNULL)
        theirs.close()  # the worker holds the only other end: its death is an EOF here
        conn = Connection(ours.detach())
        conn.send(self.spec)
        threading.Thread(target=self._listen, args=(index, generation, conn), daemon=True).start()
        return _Slot(process, conn, generation)

    def _listen(self, index: int, generation: int, conn: Any) -> None:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                self._inbox.put((index, generation, None))
                return
            self._inbox.put((index, generation, message))

    def _send(self, step: int, *, asked: bool = False) -> None:
        """Send the job of ``step`` (ahead of time only within ``config.steps``; ``asked``: any)."""
        if (step >= self.steps and not asked) or (step, 0) in self.jobs:
            return
        self._send_job(Job(step, version_for(step, self.k), self.seeds(step), level=self.level(step)))

    def _send_job(self, job: Job) -> None:
        self.jobs[job.key] = job
        self._deliver(self.slots[self._route(job)], job)

    def _route(self, job: Job) -> int:
        """The worker of ``job``: steps round the workers, a step's refills round from its own."""
        return (job.step + job.round) % len(self.slots)

    def _restart(self, index: int) -> None:
        old = self.slots[index]
        self._failures[index] += 1
        how = self._reap(old)
        if self._failures[index] > MAX_RESTARTS:
            raise TrainerError(
                f"rollout worker {index} died {MAX_RESTARTS + 1} times in a row ({how}); "
                "its log is above. Set async_level = 0 to roll out in the learner"
            )
        log.warning("rollout worker %d died (%s): restarting it", index, how)
        self.restarts += 1
        self.slots[index] = self._spawn(index, old.generation + 1)
        for key in sorted(self.jobs):  # its unfinished jobs, sent again: the same batches come back
            if self._route(self.jobs[key]) == index and key not in self.done:
                self._deliver(self.slots[index], self.jobs[key])

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
            if generation != self.slots[index].generation:
                continue  # from a worker already replaced
            if message is None:
                self._restart(index)
            elif isinstance(message, Failed):
                raise TrainerError(f"rollout worker {index} failed on step {message.step}:\n{message.error}")
            else:
                self._failures[index] = 0
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
            self.weights.save(v, target / self.weights.path(v).name)

    def _publish_start(self, model: Any, start: int, saved: Path | None) -> None:
        self.weights.publish(model, start)
        for v in range(version_for(start, self.k), start):
            file = (saved / "async" / self.weights.path(v).name) if saved is not None else None
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


def _shutdown(slots: list[_Slot], weights: FileWeights) -> None:
    for slot in slots:
        try:
            slot.conn.send(None)
        except (OSError, ValueError):
            pass
    for slot in slots:
        try:
            slot.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            slot.process.kill()
            slot.process.wait(timeout=10)
        slot.conn.close()
    weights.close()
