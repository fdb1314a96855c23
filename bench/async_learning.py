"""Benchmark: does training with asynchronous rollouts (``async_level`` k = 1, 2) learn as the
synchronous loop (k = 0) does? The demo's task, several seeds, in one run, on CPU.

    python bench/async_learning.py [--levels 0 1 2] [--seeds 0 1 2] [--steps 60] [--task digits|arithmetic]

Each (k, seed) trains ``configs/demo.toml`` (the demo's model from scratch, lr 3e-3) for
``--steps`` steps in a fresh process, on its task (``digits``: the demo's own, one-token answers)
or on ``arithmetic``: ``grpo_envs/Arithmetic-v0`` with one operation over 1..4 and no fractions
(``4 + 4``, ``2 * 3``: answers of one or two characters, up to 3 new tokens), the prompt the env's
own (its boxed instruction; a bare number is judged as well). Shown per run: the correct rate of the first and the
last ten steps, and the mean ``is_clip_frac`` (the share of tokens whose importance weight met a
bound: how much the staleness correction had to cut). Then, per k, the mean of the last ten
steps' correct rate over the seeds, its spread (min-max) and the ratio to k = 0's mean.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


TASKS = {
    "digits": {},
    "arithmetic": {
        "env": "grpo_envs/Arithmetic-v0",
        "env_kwargs": {"n_ops": 1, "max_value": 4, "fractions": False},
        "max_new_tokens": 3,
    },
}


def one(level: int, seed: int, steps: int, task: str = "digits") -> dict[str, float]:
    """Train in this process (the child side)."""
    from trainer.config import load_config
    from trainer.grpo import GRPOTrainer

    with tempfile.TemporaryDirectory() as out:
        overrides = {"steps": steps, "output_dir": out, "save_every": 0, "eval_every": 0, "eval_prompts": 8}
        overrides.update(TASKS[task])
        cfg = load_config(ROOT / "configs" / "demo.toml", overrides={**overrides, "async_level": level, "seed": seed})
        GRPOTrainer(cfg, show_progress=False).train()
        rows = [json.loads(line) for line in (Path(out) / "metrics.jsonl").read_text().splitlines()]
    return {
        "first": statistics.mean(r["correct_rate"] for r in rows[:10]),
        "last": statistics.mean(r["correct_rate"] for r in rows[-10:]),
        "is_clip_frac": statistics.mean(r.get("is_clip_frac", 0.0) for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--task", choices=list(TASKS), default="digits")
    parser.add_argument("--child", nargs=2, type=int, metavar=("K", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one(args.child[0], args.child[1], args.steps, args.task)))
        return
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    results = []
    for seed in args.seeds:
        for level in args.levels:
            cmd = [sys.executable, __file__, "--child", str(level), str(seed), "--steps", str(args.steps)]
            cmd += ["--task", args.task]
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:
                raise SystemExit(f"k={level} seed={seed} failed:\n{done.stderr[-3000:]}")
            results.append({"k": level, "seed": seed, **json.loads(done.stdout.strip().splitlines()[-1])})
    print(f"{'k':>2} {'seed':>4} {'first 10':>9} {'last 10':>8} {'is_clip_frac':>13}")
    for r in results:
        print(f"{r['k']:>2} {r['seed']:>4} {r['first']:>9.3f} {r['last']:>8.3f} {r['is_clip_frac']:>13.4f}")
    base = statistics.mean(r["last"] for r in results if r["k"] == 0) if 0 in args.levels else None
    for level in args.levels:
        last = [r["last"] for r in results if r["k"] == level]
        ratio = f", {statistics.mean(last) / base:.2f}x of k=0" if base else ""
        spread = f"min {min(last):.3f}, max {max(last):.3f}"
        print(f"k={level}: last-10 correct rate {statistics.mean(last):.3f} ({spread}){ratio}")


if __name__ == "__main__":
    main()
