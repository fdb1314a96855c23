"""Run by test_async_vllm.py with the vLLM virtualenv's python (the checkout on PYTHONPATH): a
k = 1 run whose rollout worker holds a vLLM engine, and, in that worker's process with its engine
(one engine start for both), the weights-reload control. Prints one ``RESULT {json}`` line.

    python _async_vllm_worker.py learner MODEL_DIR OUT    # the run (the learner's side)
    python _async_vllm_worker.py worker FD CONTROL_JSON   # the worker, started by the run in place of
                                                          # `python -m trainer.workers._worker_vllm FD`
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import types
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import torch

import verifiers._supervisor
from trainer._batch import make_batch, sequence_logps
from trainer.config import AsyncConfig, GRPOConfig
from trainer.generation._generator import SamplingParams
from trainer.grpo import GRPOTrainer
from trainer.rollouts._rollout import Rollout
from trainer.weights._channel import FileWeights
from trainer.workers._async import version_for

K, STEPS = 1, 4


def logp_gap(model: Any, rollouts: list[Rollout], pad: int) -> float:
    """The largest gap between ``model``'s log-probs of the rollouts' completion tokens and their
    ``sampler_logps`` (the worker's)."""
    batch = make_batch(rollouts, pad)
    with torch.no_grad():
        ours = sequence_logps(model, batch, slice(0, len(rollouts)), device=torch.device("cpu"), temperature=1.0)
    assert batch.sampler_logps is not None
    return float(((ours - batch.sampler_logps) * batch.mask).abs().max())


def learner(model: str, out: Path) -> dict[str, Any]:
    control = out / "control.json"
    real = subprocess.Popen

    def popen(command: list[str], **kwargs: Any) -> Any:  # the worker, by this file (same protocol)
        if command[1:3] == ["-m", "trainer.workers._worker_vllm"]:
            command = [command[0], str(Path(__file__).resolve()), "worker", command[3], str(control)]
        return real(command, **kwargs)

    verifiers._supervisor.subprocess = types.SimpleNamespace(**{**vars(subprocess), "Popen": popen})  # type: ignore[assignment]
    cfg = GRPOConfig(
        model=model, env="grpo_envs/Digits-v0", env_kwargs={"ops": "cs"}, output_dir=str(out / "run"),
        generator="vllm", asynchronous=AsyncConfig(level=K), steps=STEPS, prompts_per_step=4, num_generations=4, max_new_tokens=4,
        learning_rate=1e-2, beta=0.0, save_every=0, eval_prompts=2, device="cpu",
    )  # fmt: skip
    run = GRPOTrainer(cfg, show_progress=False)
    assert run.workers is not None
    take, batches = run.workers.take, []
    run.workers.take = lambda step: batches.append(take(step)) or batches[-1]  # type: ignore[method-assign]
    versions = [{k: v.clone() for k, v in run.model.state_dict().items()}]
    metrics = []
    for _ in range(STEPS):
        metrics.append(run.step())
        versions.append({k: v.clone() for k, v in run.model.state_dict().items()})
    slot = run.workers.slots[0]
    slot.worker.conn.send(None)  # the worker stops serving and runs the control on its engine
    slot.process.wait(timeout=300)
    run.close()

    def gap(step: int, version: int) -> float:
        run.model.load_state_dict(versions[version])
        rollouts = [r for g in batches[step].groups for r in g]
        return logp_gap(run.model, rollouts, run.tokenizer.pad_token_id)

    return {
        "learner_engine": run.engine is not None,
        "worker_pids": sorted({b.pid for b in batches}),
        "learner_pid": os.getpid(),
        "exit_code": slot.process.returncode,
        "metrics": [{k: m[k] for k in ("weight_version", "staleness", "sampler_kl", "grad_norm")} for m in metrics],
        "generate_s": [b.generate_s for b in batches],
        "gap_sampled": [gap(t, version_for(t, K)) for t in range(STEPS)],  # the version that sampled it
        "gap_newer": [gap(t, t) for t in range(STEPS)],  # the learner's weights at step t
        "tokens": sum(len(r.ids) for b in batches for g in b.groups for r in g),
        "control": json.loads(control.read_text()),
    }


def reload_control(worker: Any) -> dict[str, Any]:
    """On the worker's engine: weights A (version 100), then B (101), then A again; vLLM's log-probs
    of 8 tokens sampled after a 150-token prompt (more than one 128-token KV block) against each
    one's forward. Then B with ``reset_prefix_cache`` disabled: the prompt's cached blocks are A's."""
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(worker.spec.model_dir)
    torch.manual_seed(0)
    a = AutoModelForCausalLM.from_config(config).eval()
    b = AutoModelForCausalLM.from_config(config).eval()
    channel = FileWeights()
    worker.weights = channel
    channel.publish(a, 100)
    channel.publish(b, 101)
    vocab = [i for i in range(len(worker.tokenizer)) if i not in worker.eos and i != 0]
    prompt = random.Random(0).choices(vocab, k=150)

    def gap(model: Any) -> float:
        [c] = worker.generate([prompt], SamplingParams(8, 1.0, 1.0, seeds=(1,)))
        rollout = Rollout(prompt_ids=prompt, ids=list(c.ids), mask=[1] * len(c.ids), sampler_logps=list(c.logps))
        return logp_gap(model, [rollout], worker.tokenizer.pad_token_id)

    gaps, seconds = [], []
    for version, model in ((100, a), (101, b), (100, a)):
        seconds.append(worker.load(version))
        gaps.append(gap(model))
    worker.llm.reset_prefix_cache = lambda: None
    worker.load(101)
    stale = gap(b)
    channel.close()
    return {"gaps": gaps, "stale": stale, "load_s": seconds, "version": worker.version}


def worker(fd: int, control: Path) -> None:
    from trainer.workers._worker import worker_main
    from trainer.workers._worker_vllm import VLLMWorker

    made: list[VLLMWorker] = []
    worker_main(Connection(fd), make=lambda spec: made.append(VLLMWorker(spec)) or made[-1])
    control.write_text(json.dumps(reload_control(made[0])))
    made[0].close()


def main() -> None:
    if sys.argv[1] == "worker":
        worker(int(sys.argv[2]), Path(sys.argv[3]))
        return
    print("RESULT " + json.dumps(learner(sys.argv[2], Path(sys.argv[3]))))


if __name__ == "__main__":  # vLLM's engine core starts with spawn
    main()
