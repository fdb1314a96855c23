"""A rollout worker: a process that holds its own copy of the policy and turns jobs into batches.

It runs the same rollout loop as the trainer (`trainer.rollouts._rollout.rollout`, a
`TransformersGenerator` behind the one generator seam): the environment and its verifier run
here, so the verdicts come back with the rollouts, and so do the behaviour log-probs (each
completion token's log-prob under the weights that sampled it, after temperature), which the
learner's importance-sampling correction weighs against. The protocol over its pipe is small:
the learner sends a `Job` (or None: stop), the worker answers a `Done` or a `Failed`. A job names
the weights version it must be sampled from; the worker loads it through the `WeightChannel`
when it holds another. Sampling is seeded by the job's step alone, so a batch is the same
whichever worker makes it, and made again (a worker restarted, a run resumed) it is the same.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from grpo_envs import stable_seed

__all__ = ["Done", "Failed", "Job", "WorkerSpec", "at_level", "behaviour_logps", "worker_main"]


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker needs to start (picklable): the model's folder (config and tokenizer), the
    weights' folder, the env (an id or a picklable factory) and the sampling settings."""

    model_dir: str
    weights_dir: str
    env: Any
    env_kwargs: dict[str, Any]
    num_generations: int
    max_new_tokens: int
    temperature: float
    seed: int
    threads: int
    micro_batch_size: int = 32
    share_prefix: bool = True
    judge: Any = None  # a grpo_envs.JudgeConfig: the envs' verifier is the judge's
    latest: bool = False  # async_schedule = "latest": the newest version published, job.version at least
    device: str = "cpu"  # the learner's device and dtype (a GPU learner's workers share its GPU)
    dtype: str = "float32"
    generator: str = "hf"  # "hf": transformers (`_Worker`, here); "vllm": a vLLM engine (trainer.workers._worker_vllm)


@dataclass(frozen=True)
class Job:
    """Roll out ``seeds`` for step ``step`` (counted from 0) with weights ``version``; ``round`` > 0:
    a refill of that step (dynamic sampling), seeded apart from the step's first batch; ``level``:
    the env's difficulty level (``sampling.curriculum``; None: the env as configured)."""

    step: int
    version: int
    seeds: list[int]
    round: int = 0
    level: int | None = None

    @property
    def key(self) -> tuple[int, int]:
        return self.step, self.round

    @property
    def again(self) -> tuple[int, ...]:
        """What a refill adds to the step's sampling seeds (nothing for the first batch)."""
        return (self.round,) if self.round else ()


@dataclass
class Done:
    """A job's batch: its groups, the version the worker's weights file said it held, seconds."""

    step: int
    version: int
    groups: list[list[Any]]
    generate_s: float
    rollout_s: float
    pid: int = 0
    round: int = 0


@dataclass
class Failed:
    step: int
    error: str = field(default="")


def at_level(envs: list[Any], level: int | None) -> list[Any]:
    """``envs`` set to the job's difficulty ``level`` (`grpo_envs.ReasoningEnv.set_level`; None: left as they are)."""
    for env in envs if level is not None else ():
        env.unwrapped.set_level(level)
    return envs


def behaviour_logps(
    model: Any,
    groups: list[list[Any]],
    *,
    pad: int,
    temperature: float,
    micro_batch_size: int,
    device: Any = None,
) -> None:
    """Set each rollout's ``sampler_logps``: its completion tokens' log-probs under ``model`` (the
    weights that sampled them) at ``temperature``; the environment's tokens get 0."""
    from trainer._batch import make_batch, sequence_logps

    rows = [r for g in groups for r in g]
    with torch.inference_mode():
        for start in range(0, len(rows), micro_batch_size):
            chunk = rows[start : start + micro_batch_size]
            batch = make_batch(chunk, pad)
            logps = sequence_logps(
                model,
                batch,
                slice(0, len(chunk)),
                device=device or torch.device("cpu"),
                temperature=temperature,
                share_prefix=True,
            )
            for k, r in enumerate(chunk):
                values = logps[k, : len(r.ids)].tolist()
                r.sampler_logps = [float(v) if m else 0.0 for v, m in zip(values, r.mask, strict=True)]


class _Worker:
    def __init__(self, spec: WorkerSpec) -> None:
        from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

        from trainer.rollouts._envs import env_factory, told_opened_thought
        from trainer.weights._channel import FileWeights, WeightChannel

        self.spec = spec
        self.device = torch.device(spec.device)
        config = AutoConfig.from_pretrained(spec.model_dir)
        with self.device:
            model = AutoModelForCausalLM.from_config(config, dtype=getattr(torch, spec.dtype))
        self.model = model.eval()
        self.tokenizer = AutoTokenizer.from_pretrained(spec.model_dir, padding_side="left")
        self.weights: WeightChannel = FileWeights(Path(spec.weights_dir))  # a Ray actor sets its RayWeights
        self.loaded: int | None = None
        self.version = -1
        self.make_env = told_opened_thought(
            env_factory(spec.env, spec.env_kwargs, spec.judge), self.tokenizer, say=False
        )
        self.envs: list[Any] = []

    def run(self, job: Job) -> Done:
        from trainer.generation._generator import timed
        from trainer.generation._transformers import TransformersGenerator
        from trainer.rollouts._rollout import envs_needed, rollout

        spec = self.spec
        started = time.perf_counter()
        want = max(job.version, self.weights.newest()) if spec.latest else job.version
        if self.loaded != want:
            self.version, self.loaded = self.weights.load(self.model, want), want
        if not self.envs:
            self.envs.append(self.make_env())
        n_envs = envs_needed(self.envs[0], len(job.seeds), spec.num_generations)
        while len(self.envs) < n_envs:
            self.envs.append(self.make_env())
        torch.manual_seed(stable_seed(spec.seed, "async-sampling", job.step, *job.again) % (2**31))
        device = self.device
        generator = timed(TransformersGenerator(self.model, self.tokenizer, device, share_prefix=spec.share_prefix))
        groups = rollout(
            generator,
            self.tokenizer,
            at_level(self.envs[:n_envs], job.level),
            job.seeds,
            spec.num_generations,
            max_new_tokens=spec.max_new_tokens,
            temperature=spec.temperature,
            make_env=self.make_env,
        )
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        behaviour_logps(
            self.model, groups, pad=pad, temperature=spec.temperature, micro_batch_size=spec.micro_batch_size,
            device=device,
        )  # fmt: skip
        return Done(job.step, self.version, groups, generator.seconds, time.perf_counter() - started, round=job.round)


def worker_main(conn: Any, make: Callable[[WorkerSpec], Any] = _Worker) -> None:
    """The worker process: its `WorkerSpec` (the first message), its own torch threads, then jobs
    until None or the learner is gone. ``make`` builds the worker (``run(job) -> Done``): here
    transformers'; ``python -m trainer.workers._worker_vllm`` passes vLLM's."""
    spec: WorkerSpec = conn.recv()
    torch.set_num_threads(spec.threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    worker = make(spec)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the learner is gone
            return
        if job is None:
            return
        try:
            done = worker.run(job)
            done.pid = os.getpid()
            conn.send(done)
        except Exception:
            conn.send(Failed(job.step, traceback.format_exc()))


if __name__ == "__main__":  # python -m trainer.workers._worker FD: FD is this worker's end of a socket pair
    from multiprocessing.connection import Connection

    from trainer.workers._worker import worker_main as main  # its classes pickled by their module's name

    main(Connection(int(sys.argv[1])))
