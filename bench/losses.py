"""The policy losses side by side: final correct rate of grpo, dapo, gspo and cispo (issue #41).

Each loss runs with its preset (`trainer.config.PRESETS`: dapo's clip-higher and dynamic sampling,
gspo's 3e-4/4e-4 sequence clip, cispo's weight cap of 5) on the same tiny model from scratch (a
2-layer, 64-wide Qwen2 from a config, seeded per seed), the same character tokenizer, tasks,
steps, prompts x completions, learning rate and ``num_iterations``; then the trained model is
evaluated by the same code on the same unseen eval-split tasks (G samples each).

What is held equal on purpose, and why:
- ``beta = 0`` for every loss (the demo's setting: a reference model is the random start);
- ``mask_truncated_completions = False``: the answers are one or two tokens without an EOS, so
  dapo's truncation masking would drop every completion;
- ``num_iterations = 2`` by default: with one iteration the update is on-policy, where GSPO's
  gradient is GRPO's and CISPO's is DAPO's exactly (tests/trainer/test_losses.py), and the
  losses' clips never act; the second pass is where they differ.

The tasks:
- ``digits``: grpo_envs/Digits-v0, ``ops="cs"`` (copy a digit, or add one mod 10), one-token answers;
- ``arithmetic``: grpo_envs/Arithmetic-v0 with ``n_ops=1, max_value=2, fractions=False`` (``1 - 2``,
  ``2 * 2``: 12 tasks, answers -1..4, one or two tokens) and a bare answer format (no
  instruction, the whole completion is judged), 2 new tokens; the tokenizer knows digits,
  ``-+*`` and space, the prompt's words are ``<unk>``. (With ``max_value=3`` GRPO reached 0.11
  in 150 steps: too slow to tell losses apart on 2 cores.)

Steps per task: 60 on digits, 100 on arithmetic (``--steps`` sets both).

    python bench/losses.py                          # 3 seeds x 4 losses x 2 tasks (~40 min on 2 busy cores)
    python bench/losses.py --seeds 1 --steps 5 --eval 8 --tasks digits   # a smoke run
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LOSSES = ("grpo", "dapo", "gspo", "cispo")
TASKS: dict[str, dict[str, Any]] = {
    "digits": {"id": "grpo_envs/Digits-v0", "kwargs": {"ops": "cs"}, "alphabet": None, "new_tokens": 1, "steps": 60},
    "arithmetic": {
        "id": "grpo_envs/Arithmetic-v0",
        "kwargs": {"n_ops": 1, "max_value": 2, "fractions": False},
        "alphabet": "0123456789-+* ",
        "new_tokens": 2,
        "steps": 100,
    },
}


def make_env(task: str, **extra: Any) -> Any:
    import gymnasium

    import grpo_envs  # noqa: F401  (registers the envs)
    from grpo_envs._formats import AnswerFormat

    spec = TASKS[task]
    kwargs = dict(spec["kwargs"])
    if task == "arithmetic":  # the whole completion is the answer: no instruction to read
        kwargs["answer_format"] = AnswerFormat("bare", "", lambda text: text, lambda text: True)
    return gymnasium.make(spec["id"], **kwargs, **extra)


def fresh(task: str, seed: int) -> tuple[Any, Any]:
    from trainer.policy._model import demo_model, demo_tokenizer

    alphabet = TASKS[task]["alphabet"] or make_env(task).unwrapped.alphabet
    tokenizer = demo_tokenizer(alphabet)
    return demo_model(len(tokenizer), seed=seed), tokenizer


def train(task: str, loss: str, seed: int, args: argparse.Namespace) -> tuple[Any, Any, list[float], float]:
    from trainer.config import load_config
    from trainer.grpo import GRPOTrainer

    steps = args.steps or TASKS[task]["steps"]
    overrides = {
        "env": TASKS[task]["id"],
        "output_dir": str(Path(args.out) / f"{task}-{loss}-{seed}"),
        "seed": seed,
        "steps": steps,
        "prompts_per_step": args.prompts,
        "num_generations": args.generations,
        "max_new_tokens": TASKS[task]["new_tokens"],
        "learning_rate": args.lr,
        "beta": 0.0,
        "num_iterations": args.iterations,
        "mask_truncated_completions": False,
        "save_every": 0,
        "device": "cpu",
    }
    cfg = load_config(preset=loss, overrides=overrides)
    model, tokenizer = fresh(task, seed)
    env = lambda: make_env(task)  # noqa: E731
    trainer = GRPOTrainer(cfg, model=model, tokenizer=tokenizer, env=env, overwrite=True, show_progress=False)
    started = time.perf_counter()
    curve = [float(trainer.step()["correct_rate"]) for _ in range(steps)]
    return trainer.model, tokenizer, curve, time.perf_counter() - started


def correct_rate(task: str, model: Any, tokenizer: Any, args: argparse.Namespace) -> float:
    """Mean correct rate of G samples on each of ``args.eval`` fixed eval-split tasks."""
    import torch

    from trainer.generation._transformers import TransformersGenerator
    from trainer.rollouts._rollout import rollout

    seeds = list(range(900_000, 900_000 + args.eval))
    envs = [make_env(task, split="eval") for _ in seeds]
    with torch.random.fork_rng():
        torch.manual_seed(12345)
        groups = rollout(
            TransformersGenerator(model, tokenizer, torch.device("cpu")),
            tokenizer,
            envs,
            seeds,
            args.generations,
            max_new_tokens=TASKS[task]["new_tokens"],
            temperature=1.0,
            make_env=lambda: make_env(task, split="eval"),
        )
    flat = [r.correct is True for g in groups for r in g]
    return sum(flat) / len(flat)


def report(results: dict[str, dict[str, dict[str, list[float]]]], args: argparse.Namespace) -> None:
    print(
        f"\n{args.steps or 'digits 60, arithmetic 100'} steps x {args.prompts} prompts x {args.generations} "
        f"completions, lr {args.lr}, beta 0, "
        f"num_iterations {args.iterations}; final eval: {args.eval} eval-split tasks x {args.generations} samples"
    )
    print(f"\n{'task':11} {'loss':6} {'final correct (mean ± sd)':>26} {'per seed':>20} {'x grpo':>7} "
          f"{'train last 10':>14} {'train s':>8}")  # fmt: skip
    for task, by_loss in results.items():
        base = statistics.fmean(by_loss["grpo"]["final"]) if "grpo" in by_loss else None
        for loss, r in by_loss.items():
            f = r["final"]
            mean, sd = statistics.fmean(f), statistics.stdev(f) if len(f) > 1 else 0.0
            ratio = f"{mean / base:6.2f}x" if base else "      -"
            last = statistics.fmean(statistics.fmean(c[-10:]) for c in r["curves"])
            print(
                f"{task:11} {loss:6} {mean:>18.3f} ± {sd:.3f} {' '.join(f'{x:.3f}' for x in f):>20} {ratio:>7} "
                f"{last:>14.3f} {statistics.fmean(r['seconds']):>8.1f}"
            )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default="digits,arithmetic", help="comma-separated: digits, arithmetic")
    p.add_argument("--losses", default=",".join(LOSSES))
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--steps", type=int, help="steps per run (default: 60 on digits, 100 on arithmetic)")
    p.add_argument("--prompts", type=int, default=16, help="prompts (groups) per step")
    p.add_argument("--generations", type=int, default=8, help="completions per prompt (G)")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--iterations", type=int, default=2, help="num_iterations (policy updates per batch)")
    p.add_argument("--eval", type=int, default=64, help="eval tasks (G samples each)")
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    p.add_argument("--out", help="keep the run directories here (default: a temporary directory, removed)")
    p.add_argument("--json", action="store_true", help="also print one JSON line with everything")
    args = p.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        args.out = args.out or tmp
        results = run_all(args)
    report(results, args)
    if args.json:
        print(json.dumps({"args": vars(args), "results": results}))
    return 0


def run_all(args: argparse.Namespace) -> dict[str, dict[str, dict[str, list[Any]]]]:
    results: dict[str, dict[str, dict[str, list[Any]]]] = {}
    for task in args.tasks.split(","):
        for loss in args.losses.split(","):
            r = results.setdefault(task, {}).setdefault(loss, {"curves": [], "final": [], "seconds": []})
            for seed in range(args.seeds):
                model, tokenizer, curve, seconds = train(task, loss, seed, args)
                r["curves"].append(curve)
                r["seconds"].append(seconds)
                r["final"].append(correct_rate(task, model, tokenizer, args))
                print(f"{task} {loss:5} seed {seed}: {seconds:6.1f} s, final correct {r['final'][-1]:.3f}", flush=True)
    return results


if __name__ == "__main__":
    sys.exit(main())
