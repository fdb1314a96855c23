"""Benchmark: GRPO steps per second with asynchronous rollouts (``async_level`` k = 1, 2) against
the synchronous loop (k = 0), in one run, on CPU.

    python bench/async_rollouts.py [--sizes demo larger] [--runs 0 0:1t 1 2 2:latest] [--steps 6]
                                   [--warmup 2] [--workers 1] [--max-new-tokens 8] [--json]

Each (size, k) runs in a fresh subprocess: ``grpo_envs/Digits-v0``, 8 prompts x 8 completions,
``max_new_tokens`` tokens at most (``tokens``: the mean completion length), beta 0, lr 1e-6 (so
every k samples alike), one iteration. Sizes: ``demo`` (the demo's model: 2
layers, 64 wide) and ``larger`` (4 layers, 256 wide), both Qwen2-shaped, built from a config.
A run is ``K`` (k = K, the exact schedule), ``K:latest`` (``async_schedule = "latest"``) or
``0:1t`` (k = 0 with one torch thread: the cores each phase has at k = 1 with one worker).
k = 0 generates then trains in one process with torch's default threads (all cores); k > 0 runs
``--workers`` rollout worker processes, the cores split evenly between them and the learner
(`trainer.workers._async.thread_split`). The first ``--warmup`` steps (worker start-up, the pipeline
filling) are not timed; steps/s is the timed steps over their wall time. Also shown, medians
per step: the learner's wait for its batch (``time_rollout_s``; at k = 0 the whole rollout), its
training (``time_train_s``) and the worker's rollout (``time_generate_s + time_score_s``).
The ratios are steps/s against k = 0 (all cores) and ``0:1t`` of the same size, measured in the
same run; ``stale`` is the mean staleness of the timed steps.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = {"demo": (64, 2), "larger": (256, 4)}


def one(size: str, run: str, args: argparse.Namespace) -> dict[str, float]:
    """Train in this process (the child side): steps/s and the per-step medians."""
    import torch

    from trainer.config import AsyncConfig, GRPOConfig
    from trainer.grpo import GRPOTrainer
    from trainer.policy._model import demo_model, demo_tokenizer

    hidden, layers = SIZES[size]
    level, _, mode = run.partition(":")
    if mode == "1t":
        torch.set_num_threads(1)
    tok = demo_tokenizer("0123456789csmpe=")
    with tempfile.TemporaryDirectory() as out:
        cfg = GRPOConfig(
            env="grpo_envs/Digits-v0", steps=args.warmup + args.steps, prompts_per_step=8, num_generations=8,
            max_new_tokens=args.max_new_tokens, beta=0.0, learning_rate=1e-6, output_dir=out, save_every=0,
            device="cpu", asynchronous=AsyncConfig(
                level=int(level), workers=args.workers, schedule="latest" if mode == "latest" else "exact"
            ),
        )  # fmt: skip
        model = demo_model(len(tok), hidden=hidden, layers=layers)
        trainer = GRPOTrainer(cfg, model=model, tokenizer=tok, show_progress=False)
        for _ in range(args.warmup):
            trainer.step()
        started = time.perf_counter()
        for _ in range(args.steps):
            trainer.step()
        wall = time.perf_counter() - started
        trainer.close()
        perf = [json.loads(line) for line in (Path(out) / "perf.jsonl").read_text().splitlines()][args.warmup :]
        rows = [json.loads(line) for line in (Path(out) / "metrics.jsonl").read_text().splitlines()][args.warmup :]
    med = {k: statistics.median(p[k] for p in perf) for k in ("time_rollout_s", "time_train_s")}
    rollout = statistics.median(p["time_generate_s"] + p["time_score_s"] for p in perf)
    return {"steps_per_s": args.steps / wall, "wait_s": med["time_rollout_s"], "train_s": med["time_train_s"],
            "rollout_s": rollout, "len": statistics.mean(r["completion_len_mean"] for r in rows),
            "stale": statistics.mean(r.get("staleness", 0) for r in rows)}  # fmt: skip


def _table(results: list[dict]) -> None:
    """The table, then one ratio line per async run against each k = 0 baseline of its size."""

    def base(size: str, run: str) -> dict | None:
        return next((b for b in results if b["size"] == size and b["k"] == run), None)

    head = ("size", "run", "tokens", "steps/s", "wait s", "train s", "rollout s", "stale", "vs k=0", "vs 0:1t")
    print(f"{head[0]:<7} {head[1]:>8} " + " ".join(f"{h:>9}" for h in head[2:]))
    for r in results:
        ratios = [base(r["size"], b) for b in ("0", "0:1t")]
        cells = [f"{r[key]:>9.3f}" for key in ("len", "steps_per_s", "wait_s", "train_s", "rollout_s", "stale")]
        cells += [f"{r['steps_per_s'] / b['steps_per_s']:>8.2f}x" if b else f"{'-':>9}" for b in ratios]
        print(f"{r['size']:<7} {r['k']:>8} " + " ".join(cells))
    for r in results:
        for name in ("0", "0:1t"):
            b = base(r["size"], name)
            if b and not r["k"].startswith("0"):
                print(f"ratio k={r['k']}/k={name} on {r['size']}: {r['steps_per_s'] / b['steps_per_s']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--runs", nargs="+", default=["0", "0:1t", "1", "2", "2:latest"])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--max-new-tokens", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("SIZE", "RUN"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one(args.child[0], args.child[1], args)))
        return
    results = []
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    forwarded = ["--steps", str(args.steps), "--warmup", str(args.warmup), "--workers", str(args.workers)]
    forwarded += ["--max-new-tokens", str(args.max_new_tokens)]
    for size in args.sizes:
        for run in args.runs:
            cmd = [sys.executable, __file__, "--child", size, run, *forwarded]
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:
                raise SystemExit(f"{size} {run} failed:\n{done.stderr[-3000:]}")
            results.append({"size": size, "k": run, **json.loads(done.stdout.strip().splitlines()[-1])})
    print(f"cores: {len(os.sched_getaffinity(0))}, load average: {os.getloadavg()[0]:.1f}, workers: {args.workers}")
    _table(results)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
