"""A rollout worker whose generator is a vLLM engine: ``generator = "vllm"`` with ``async_level > 0``.

The same rollout loop as the transformers worker (`trainer.workers._worker`), behind the same generator
seam, over an offline ``vllm.LLM`` in the worker's own process (``VLLM_ENABLE_V1_MULTIPROCESSING=0``,
as the trainer's `ColocatedVLLM`): random weights from the model's config, built at the first job
in the dtype of the weights that job names. A new version comes through the learner's
`FileWeights` file: its tensors go to ``collective_rpc("reload_weights", weights_iterator=...)``,
then ``reset_prefix_cache()`` (without it, a prompt of one KV block or more is served from the
old weights' cache). vLLM 0.32's ``reload_weights`` also takes ``weights_path``, a model folder
read by its safetensors loader, but that needs an engine not started with ``load_format="dummy"``
and it cannot read our files: ``safetensors.save_model`` keeps a tied embedding once, under
``lm_head.weight``, which vLLM skips for a model with tied embeddings, so the embeddings would
never load. Here the tied names come back (`tied_aliases`) before the tensors are passed.

The behaviour log-probs are vLLM's own (``logprobs_mode="processed_logprobs"``: after
temperature, as the learner computes them): no extra forward. Requests are seeded per (task,
sample, turn) from the step, as the trainer seeds its colocated engine's, so a batch is the
same whichever worker makes it and however often.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grpo_envs import stable_seed
from grpo_envs.tools import stop_ids
from trainer.errors import TrainerError
from trainer.generation._generator import Continuation, SamplingParams
from trainer.weights._channel import FileWeights
from trainer.workers._worker import Done, Job, WorkerSpec, at_level

__all__ = ["VLLMWorker", "tied_aliases"]

log = logging.getLogger("trainer")


def tied_aliases(config: Any) -> dict[str, list[str]]:
    """For each weight of a model of ``config`` that has several names (a tied embedding: one
    tensor, ``model.embed_tokens.weight`` and ``lm_head.weight``), its other names. Read from
    the model built on the meta device (no memory, no weights)."""
    import torch
    from transformers import AutoModelForCausalLM

    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    groups: dict[int, list[str]] = {}
    for name, param in model.named_parameters(remove_duplicate=False):
        groups.setdefault(id(param), []).append(name)
    return {n: [m for m in names if m != n] for names in groups.values() if len(names) > 1 for n in names}


class VLLMWorker:
    """The vLLM kind of rollout worker (``python -m trainer.workers._worker_vllm FD`` runs one): ``run(job)``
    makes the job's batch, with the version's weights loaded first when the engine holds another."""

    def __init__(self, spec: WorkerSpec) -> None:
        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")  # the engine in this process
        from transformers import AutoConfig, AutoTokenizer

        from trainer.generation._vllm import import_vllm
        from trainer.rollouts._envs import env_factory, told_opened_thought

        import_vllm()
        self.spec = spec
        self.tokenizer = AutoTokenizer.from_pretrained(spec.model_dir, padding_side="left")
        if self.tokenizer.eos_token_id is None:
            raise TrainerError("generator='vllm' needs a tokenizer with an eos_token_id")
        self.eos = frozenset(stop_ids(self.tokenizer))  # the EOS and the family's end-of-call tokens
        self.aliases = tied_aliases(AutoConfig.from_pretrained(spec.model_dir))
        self.weights = FileWeights(Path(spec.weights_dir))
        self.llm: Any = None  # built at the first job: the dtype is its weights file's
        self.loaded: int | None = None
        self.version = -1
        self.make_env = told_opened_thought(
            env_factory(spec.env, spec.env_kwargs, spec.judge), self.tokenizer, say=False
        )
        self.envs: list[Any] = []

    def load(self, version: int) -> float:
        """Load weights ``version`` into the engine (built first, if not yet) and drop its prefix
        cache; returns the seconds it took."""
        from safetensors import safe_open

        from trainer.generation._vllm import dummy_engine

        started = time.perf_counter()
        path = self.weights.path(version)
        if not path.is_file():
            raise TrainerError(
                f"weights version {version} is not in {self.weights.folder} (pruned, or never published)"
            )
        with safe_open(str(path), framework="pt") as f:
            found = int((f.metadata() or {}).get("version", -1))
            tensors = [(name, f.get_tensor(name)) for name in f.keys()]  # noqa: SIM118 (a safe_open has no __iter__)
        saved = {name for name, _ in tensors}
        tensors += [(alias, t) for name, t in tensors for alias in self.aliases.get(name, ()) if alias not in saved]
        if self.llm is None:
            dtype = str(tensors[0][1].dtype).removeprefix("torch.")
            seed = stable_seed(self.spec.seed, "vllm-worker") % (2**31)
            self.llm = dummy_engine(self.spec.model_dir, dtype=dtype, seed=seed)
            log.info(
                "rollout worker %d: vLLM engine ready in %.1f s (%s)", os.getpid(), time.perf_counter() - started, dtype
            )
        self.llm.collective_rpc("reload_weights", kwargs={"weights_iterator": tensors})
        self.llm.reset_prefix_cache()
        self.version, self.loaded = found, version
        return time.perf_counter() - started

    def generate(self, contexts: Sequence[list[int]], params: SamplingParams) -> list[Continuation]:
        """The generator seam: one continuation per context, with its tokens' log-probs."""
        from trainer.generation._vllm import generate_with_logps

        return generate_with_logps(self.llm, self.eos, contexts, params)

    def run(self, job: Job) -> Done:
        from trainer.generation._generator import timed
        from trainer.rollouts._rollout import envs_needed, rollout

        spec = self.spec
        started = time.perf_counter()
        if self.loaded != job.version:
            self.load(job.version)
        if not self.envs:
            self.envs.append(self.make_env())
        n_envs = envs_needed(self.envs[0], len(job.seeds), spec.num_generations)
        while len(self.envs) < n_envs:
            self.envs.append(self.make_env())
        generator = timed(self)
        groups = rollout(
            generator,
            self.tokenizer,
            at_level(self.envs[:n_envs], job.level),
            job.seeds,
            spec.num_generations,
            max_new_tokens=spec.max_new_tokens,
            temperature=spec.temperature,
            make_env=self.make_env,
            sample_seed=stable_seed(spec.seed, "vllm-train", job.step + 1, *job.again),  # the trainer's stream
        )
        return Done(job.step, self.version, groups, generator.seconds, time.perf_counter() - started, round=job.round)

    def close(self) -> None:
        """Stop the engine (the worker's process ends after this anyway)."""
        from trainer.generation._vllm import shutdown_engine

        if self.llm is not None:
            shutdown_engine(self.llm)
            self.llm = None


if __name__ == "__main__":  # python -m trainer.workers._worker_vllm FD: as trainer.workers._worker, with a vLLM engine
    from multiprocessing.connection import Connection

    from trainer.workers._worker import worker_main
    from trainer.workers._worker_vllm import VLLMWorker as Worker  # by its module's name, not __main__'s

    worker_main(Connection(int(sys.argv[1])), make=Worker)
