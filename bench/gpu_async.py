"""The async phase of the prepared GPU check (bench/gpu_check.sh): GRPO steps per second with
one rollout worker process (``async_level`` k = 1) against the synchronous loop (k = 0), on the
GPU check's model (Qwen2.5-0.5B's shape from a config, bf16, random weights; ``--tiny``: 2
layers, 64 wide, float32 on CPU) over ``grpo_envs/Arithmetic-v0``: 4 prompts x 8 completions of
up to 64 tokens (``--tiny``: 2 x 8 of 4). The worker shares the learner's GPU (its own CUDA
context) and gets half the CPU threads; weights go through ``/dev/shm`` after every update.

    python bench/gpu_async.py [--cpu] [--tiny] [--steps 3] [--results FILE]

Each k runs ``1 + --steps`` steps; the first (the worker's start-up, the pipeline filling) is not
timed. Prints one JSON line (steps/s of each k, the ratio, the learner's wait per step) and
appends it to ``--results`` (default ``$OUT/results.txt``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gpu_check  # noqa: E402  (bench/ is not a package)


def steps_per_s(s: Any, level: int, steps: int) -> dict[str, float]:
    """Train ``1 + steps`` steps at ``async_level = level``; time the last ``steps``."""
    from trainer import GRPOConfig, GRPOTrainer
    from trainer.config import AsyncConfig

    model, tok = gpu_check.policy_and_tokenizer(s)
    dev = gpu_check.device(s)
    prompts, tokens = (2, 4) if s.tiny else (4, 64)
    with tempfile.TemporaryDirectory(prefix="gpu-check-async-") as tmp:
        config = GRPOConfig(
            env=gpu_check.ENV_ID, output_dir=tmp, seed=0, steps=1 + steps, prompts_per_step=prompts,
            num_generations=gpu_check.G, max_new_tokens=tokens, beta=0.0, learning_rate=1e-6,
            micro_batch_size=s.micro_batch, device=dev.type, save_every=0, eval_every=0,
            asynchronous=AsyncConfig(level=level),
        )  # fmt: skip
        trainer = GRPOTrainer(config, model=model, tokenizer=tok, show_progress=False)
        try:
            trainer.step()
            gpu_check.sync(dev)
            started = time.perf_counter()
            metrics = [trainer.step() for _ in range(steps)]
            gpu_check.sync(dev)
            wall = time.perf_counter() - started
        finally:
            trainer.close()
        perf = [json.loads(line) for line in (Path(tmp) / "perf.jsonl").read_text().splitlines()][1:]
    return {
        "steps_per_s": round(steps / wall, 4),
        "wait_s": round(statistics.median(p["time_rollout_s"] for p in perf), 4),
        "train_s": round(statistics.median(p["time_train_s"] for p in perf), 4),
        "staleness": [m.get("staleness", 0) for m in metrics],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--cpu", action="store_true")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--results", default=None)
    args = p.parse_args(argv)
    s = gpu_check.Setup(cpu=args.cpu, tiny=args.tiny, prompts=2, max_new_tokens=4, micro_batch=8 if args.tiny else 32)
    sync, overlapped = steps_per_s(s, 0, args.steps), steps_per_s(s, 1, args.steps)
    row = {
        "phase": "async",
        "device": "cpu" if s.cpu else "cuda",
        "tiny": s.tiny,
        "k0": sync,
        "k1": overlapped,
        "ratio_k1_k0": round(overlapped["steps_per_s"] / sync["steps_per_s"], 3),
        "peak_memory_mb": gpu_check.peak_mb(gpu_check.device(s)),
    }
    line = json.dumps(row)
    print(line, flush=True)
    results = args.results or (str(Path(os.environ["OUT"]) / "results.txt") if os.environ.get("OUT") else None)
    if results:
        with open(results, "a") as fh:
            fh.write(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
