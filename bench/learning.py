"""Learning per sample: our GRPOTrainer vs TRL's GRPOTrainer, same model, env, hyperparameters.

Both sides start from the same tiny Qwen2-shaped model (built from a config, seeded) with the
same character tokenizer, train on grpo_envs/Digits-v0 (copy a digit or add one, mod 10; a
one-token answer) for the same number of steps with the same prompts x completions per step,
learning rate, beta, loss ("grpo": per-sequence mean), epsilon, temperature and schedule
(constant), and TRL scores completions with our adapter's reward. Each trained model is then
evaluated by the same code on the same unseen eval-split tasks (G samples each).

    python bench/learning.py                 # 3 seeds per side, 150 steps (a few minutes on 2 cores)
    python bench/learning.py --seeds 1 --steps 5 --eval 16   # a smoke run
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ENV = "grpo_envs/Digits-v0"
ENV_KWARGS = {"ops": "cs"}


def hyper(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "steps": args.steps,
        "prompts": args.prompts,
        "G": args.generations,
        "max_new_tokens": 1,
        "lr": args.lr,
        "beta": args.beta,
        "epsilon": 0.2,
        "loss": "grpo",
        "temperature": 1.0,
        "scheduler": "constant",
    }


def fresh(seed: int) -> tuple[Any, Any]:
    import gymnasium

    import grpo_envs  # noqa: F401  (registers the envs)
    from trainer.policy._model import demo_model, demo_tokenizer

    tokenizer = demo_tokenizer(gymnasium.make(ENV, **ENV_KWARGS).unwrapped.alphabet)
    return demo_model(len(tokenizer), seed=seed), tokenizer


def ours(seed: int, h: dict[str, Any], run_dir: Path) -> tuple[Any, Any, list[float], float]:
    from trainer.config import GRPOConfig
    from trainer.grpo import GRPOTrainer

    model, tokenizer = fresh(seed)
    cfg = GRPOConfig(
        env=ENV,
        env_kwargs=ENV_KWARGS,
        output_dir=str(run_dir),
        seed=seed,
        steps=h["steps"],
        prompts_per_step=h["prompts"],
        num_generations=h["G"],
        max_new_tokens=h["max_new_tokens"],
        learning_rate=h["lr"],
        beta=h["beta"],
        epsilon=h["epsilon"],
        loss_type=h["loss"],
        temperature=h["temperature"],
        lr_scheduler=h["scheduler"],
        save_every=0,
        device="cpu",
    )
    trainer = GRPOTrainer(cfg, model=model, tokenizer=tokenizer, show_progress=False)
    started = time.perf_counter()
    curve = [float(trainer.step()["reward_mean"]) for _ in range(h["steps"])]
    return trainer.model, tokenizer, curve, time.perf_counter() - started


def theirs(seed: int, h: dict[str, Any], run_dir: Path) -> tuple[Any, Any, list[float], float]:
    import trl
    from transformers import PrinterCallback

    from grpo_envs.adapters import trl as adapter

    model, tokenizer = fresh(seed)
    reward = adapter.reward_function(ENV, **ENV_KWARGS)
    args = trl.GRPOConfig(
        output_dir=str(run_dir),
        seed=seed,
        max_steps=h["steps"],
        per_device_train_batch_size=h["prompts"] * h["G"],
        gradient_accumulation_steps=1,
        num_generations=h["G"],
        max_completion_length=h["max_new_tokens"],
        learning_rate=h["lr"],
        beta=h["beta"],
        epsilon=h["epsilon"],
        loss_type=h["loss"],
        temperature=h["temperature"],
        top_p=1.0,
        top_k=0,
        lr_scheduler_type=h["scheduler"],
        warmup_steps=0,
        weight_decay=0.0,
        max_grad_norm=1.0,
        num_iterations=1,
        scale_rewards="group",
        logging_steps=1,
        report_to="none",
        use_cpu=True,
        bf16=False,
        save_strategy="no",
        disable_tqdm=True,
    )
    trainer = trl.GRPOTrainer(
        model=model,
        reward_funcs=reward,
        args=args,
        processing_class=tokenizer,
        train_dataset=adapter.dataset(ENV, n=h["steps"] * h["prompts"], seed=seed, **ENV_KWARGS),
    )
    trainer.remove_callback(PrinterCallback)
    started = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - started
    curve = [float(e["reward"]) for e in trainer.state.log_history if "reward" in e]
    return trainer.model, tokenizer, curve, seconds


def correct_rate(model: Any, tokenizer: Any, h: dict[str, Any], n_tasks: int) -> float:
    """Mean correct rate of G samples on each of ``n_tasks`` fixed eval-split tasks."""
    import gymnasium
    import torch

    from trainer.generation._transformers import TransformersGenerator
    from trainer.rollouts._rollout import rollout

    seeds = list(range(900_000, 900_000 + n_tasks))
    envs = [gymnasium.make(ENV, split="eval", **ENV_KWARGS) for _ in seeds]
    with torch.random.fork_rng():
        torch.manual_seed(12345)
        groups = rollout(
            TransformersGenerator(model, tokenizer, torch.device("cpu")),
            tokenizer,
            envs,
            seeds,
            h["G"],
            max_new_tokens=h["max_new_tokens"],
            temperature=1.0,
            make_env=lambda: gymnasium.make(ENV, split="eval", **ENV_KWARGS),
        )
    flat = [r.correct is True for g in groups for r in g]
    return sum(flat) / len(flat)


def buckets(curves: list[list[float]], n: int) -> list[float]:
    """The seeds' mean curve, averaged over ``n`` equal spans of steps."""
    steps = min(len(c) for c in curves)
    mean = [statistics.fmean(c[k] for c in curves) for k in range(steps)]
    edges = [round(k * steps / n) for k in range(n + 1)]
    return [statistics.fmean(mean[a:b]) for a, b in zip(edges, edges[1:], strict=False) if b > a]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--prompts", type=int, default=16, help="prompts (groups) per step")
    p.add_argument("--generations", type=int, default=8, help="completions per prompt (G)")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--beta", type=float, default=0.0)
    p.add_argument("--eval", type=int, default=128, help="eval tasks (G samples each)")
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads on both sides")
    p.add_argument("--out", default="runs/bench-learning")
    p.add_argument("--json", action="store_true", help="also print one JSON line with everything")
    args = p.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    h = hyper(args)
    results: dict[str, dict[str, list[Any]]] = {"ours": {}, "trl": {}}
    for side, run in (("ours", ours), ("trl", theirs)):
        r = results[side] = {"curves": [], "final": [], "seconds": []}
        for seed in range(args.seeds):
            model, tokenizer, curve, seconds = run(seed, h, Path(args.out) / f"{side}-{seed}")
            r["seconds"].append(seconds)
            r["curves"].append(curve)
            r["final"].append(correct_rate(model, tokenizer, h, args.eval))
            print(
                f"{side:4} seed {seed}: {r['seconds'][-1]:6.1f} s training, "
                f"final eval correct rate {r['final'][-1]:.3f}",
                flush=True,
            )
    samples = args.steps * args.prompts * args.generations
    print(
        f"\n{ENV} {ENV_KWARGS}, {args.seeds} seeds per side, {args.steps} steps x {args.prompts} prompts x "
        f"{args.generations} completions = {samples} samples per run; {json.dumps(h)}"
    )
    n = min(10, args.steps)
    span = args.steps / n
    print("\ntrain reward (mean over seeds), by span of steps")
    print(f"{'steps':>11}  {'ours':>6}  {'trl':>6}")
    for k, (a, b) in enumerate(
        zip(buckets(results["ours"]["curves"], n), buckets(results["trl"]["curves"], n), strict=True)
    ):
        print(f"{int(k * span) + 1:>5}-{int((k + 1) * span):<5}  {a:6.3f}  {b:6.3f}")
    print(f"\n{'side':5} {'final eval correct (mean ± sd)':>31} {'per seed':>22} {'train s':>8}")
    for side in ("ours", "trl"):
        f = results[side]["final"]
        sd = statistics.stdev(f) if len(f) > 1 else 0.0
        print(
            f"{side:5} {statistics.fmean(f):>23.3f} ± {sd:.3f} {' '.join(f'{x:.3f}' for x in f):>22} "
            f"{statistics.fmean(results[side]['seconds']):8.1f}"
        )
    o, t = statistics.fmean(results["ours"]["final"]), statistics.fmean(results["trl"]["final"])
    speed = statistics.fmean(results["ours"]["seconds"]) / statistics.fmean(results["trl"]["seconds"])
    print(
        f"\nratio ours/trl: final eval correct rate {o / max(t, 1e-9):.2f}x (target >= 1.0 within noise), "
        f"training time per run {speed:.2f}x"
    )
    if args.json:
        print(json.dumps({"hyper": h, "results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
