"""Benchmark: GRPO steps per second with asynchronous rollouts (``async_level`` k = 1, 2) against
the synchronous loop (k = 0), in one run, on CPU.

    python bench/async_rollouts.py [--sizes demo larger] [--levels 0 1 2] [--steps 6] [--warmup 2]
                                   [--workers 1] [--max-new-tokens 8] [--sync-threads 0] [--json]

Each (size, k) runs in a fresh subprocess: ``grpo_envs/Digits-v0``, 8 prompts x 8 completions,
``max_new_tokens`` tokens at most (``tokens``: the mean completion length), beta 0, lr 1e-6 (so
every k samples alike), one iteration. Sizes: ``demo`` (the demo's model: 2
layers, 64 wide) and ``larger`` (4 layers, 256 wide), both Qwen2-shaped, built from a config.
k = 0 generates then trains in one process with torch's default threads (all cores; or
``--sync-threads``); k > 0 runs
``--workers`` rollout worker processes, the cores split evenly between them and the learner
(`trainer._async.thread_split`). The first ``--warmup`` steps (worker start-up, the pipeline
filling) are not timed; steps/s is the timed steps over their wall time. Also shown, medians
per step: the learner's wait for its batch (``time_rollout_s``; at k = 0 the whole rollout), its
training (``time_train_s``) and the worker's rollout (``time_generate_s + time_score_s``).
The ratio is steps/s against k = 0 of the same size, measured in the same run.
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


def one(size: str, level: int, args: argparse.Namespace) -> dict[str, float]:
    """Train in this process (the child side): steps/s and the per-step medians."""
    import torch

    from trainer._model import demo_model, demo_tokenizer
    from trainer.config import GRPOConfig
    from trainer.grpo import GRPOTrainer

    hidden, layers = SIZES[size]
    if level == 0 and args.sync_threads:
        torch.set_num_threads(args.sync_threads)
    tok = demo_tokenizer("0123456789csmpe=")
    with tempfile.TemporaryDirectory() as out:
        cfg = GRPOConfig(
            env="grpo_envs/Digits-v0", steps=args.warmup + args.steps, prompts_per_step=8, num_generations=8,
            max_new_tokens=args.max_new_tokens, beta=0.0, learning_rate=1e-6, output_dir=out, save_every=0,
            device="cpu", async_level=level, async_workers=args.workers,
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
            "rollout_s": rollout, "len": statistics.mean(r["completion_len_mean"] for r in rows)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--levels", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--max-new-tokens", type=int, default=8)
    parser.add_argument("--sync-threads", type=int, default=0, help="torch threads at k = 0 (0: torch's default)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("SIZE", "K"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one(args.child[0], int(args.child[1]), args)))
        return
    results = []
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    forwarded = ["--steps", str(args.steps), "--warmup", str(args.warmup), "--workers", str(args.workers)]
    forwarded += ["--max-new-tokens", str(args.max_new_tokens), "--sync-threads", str(args.sync_threads)]
    for size in args.sizes:
        for level in args.levels:
            cmd = [sys.executable, __file__, "--child", size, str(level), *forwarded]
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:
                raise SystemExit(f"{size} k={level} failed:\n{done.stderr[-3000:]}")
            results.append({"size": size, "k": level, **json.loads(done.stdout.strip().splitlines()[-1])})
    print(f"cores: {len(os.sched_getaffinity(0))}, load average: {os.getloadavg()[0]:.1f}, workers: {args.workers}")
    head = ("size", "k", "tokens", "steps/s", "wait s", "train s", "rollout s", "vs k=0")
    print(f"{head[0]:<7} {head[1]:>2} " + " ".join(f"{h:>9}" for h in head[2:]))
    for r in results:
        base = next((b for b in results if b["size"] == r["size"] and b["k"] == 0), None)
        ratio = f"{r['steps_per_s'] / base['steps_per_s']:.2f}x" if base else "-"
        cells = [f"{r[key]:>9.3f}" for key in ("len", "steps_per_s", "wait_s", "train_s", "rollout_s")]
        print(f"{r['size']:<7} {r['k']:>2} " + " ".join(cells) + f" {ratio:>9}")
    for r in results:
        base = next((b for b in results if b["size"] == r["size"] and b["k"] == 0), None)
        if base and r["k"]:
            print(f"ratio k={r['k']}/k=0 on {r['size']}: {r['steps_per_s'] / base['steps_per_s']:.2f}x")
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
