"""Dynamic sampling with refill against the filter alone, on Digits with all four operations.

Both arms run the `dapo` preset on the demo's from-scratch setup (configs/demo.toml: a tiny model,
one-token answers, lr 3e-3, no KL) with ``env_kwargs = {"ops": "csmp"}`` (copy, successor, a sum and
a product mod 10: groups saturate early on copy and successor, and stay all-wrong longer on the
others). Truncation masking and the overlong penalty are off (a one-token answer never ends with EOS
and the penalty would be a constant). The arms differ only in ``sampling.dynamic``:

- ``filter``: today's dapo before refill: groups whose rewards are all equal leave the loss, the
  step trains on whatever is left (``skip_zero_variance_groups``);
- ``refill``: the same filter, and more groups are sampled until the step has ``prompts_per_step``
  informative ones (``sampling.max_rounds``);
- ``edge``: refill, and the pass-rate filter: a task (Digits has 400, they recur) last seen always
  or never solved is not drawn again for 20 steps (``sampling.pass_rate_filter``);
- ``curriculum``: refill, and Digits' levels (ops c, cs, csm, csmp) from the first, moved by the
  5-step mean correct rate (up at 0.8, down under 0.2); evaluation stays on csmp.

Per arm and seed: the first step at which the 10-step mean of the train correct rate (every sampled
group) reaches ``--target``, the wall time to it, the final eval accuracy, and the generation cost
per informative group (completions generated / informative groups trained).

    python bench/dynamic_sampling.py                        # 3 seeds per arm, 80 steps
    python bench/dynamic_sampling.py --seeds 1 --steps 4    # a smoke run
    python bench/dynamic_sampling.py --overlong --steps 60  # the overlong penalty, on and off
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


def run(arm: str, seed: int, args: argparse.Namespace, where: Path) -> dict[str, Any]:
    from trainer.config import load_config
    from trainer.grpo import GRPOTrainer

    out = where / f"{arm}-{seed}"
    cfg = load_config(
        ROOT / "configs" / "demo.toml",
        preset="dapo",
        overrides={
            "env_kwargs": {"ops": "csmp"},
            "steps": args.steps,
            "prompts_per_step": args.prompts,
            "num_generations": args.generations,
            "seed": seed,
            "output_dir": str(out),
            "save_every": 0,
            "eval_every": 0,
            "eval_prompts": args.eval,
            "mask_truncated_completions": False,
            "sampling": {
                "dynamic": arm != "filter",
                "overlong": False,
                "max_rounds": args.rounds,
                "pass_rate_filter": arm == "edge",
                "curriculum": arm == "curriculum",
            },
        },
    )
    started = time.perf_counter()
    result = GRPOTrainer(cfg, show_progress=False).train()
    wall = time.perf_counter() - started
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines() if line.strip()]
    perf = [json.loads(line) for line in (out / "perf.jsonl").read_text().splitlines() if line.strip()]
    rates = [r["correct_rate"] for r in rows]
    smooth = [statistics.fmean(rates[max(0, k - 9) : k + 1]) for k in range(len(rates))]
    reached = next((k + 1 for k, v in enumerate(smooth) if k >= 9 and v >= args.target), None)
    elapsed = [0.0]
    for p in perf:
        elapsed.append(elapsed[-1] + sum(p[k] for k in ("time_rollout_s", "time_train_s", "time_sync_s")))
    groups = [r.get("sampling/groups_sampled", args.prompts) for r in rows]
    kept = [r.get("sampling/groups_kept", round(args.prompts * (1 - r["zero_variance_frac"]))) for r in rows]
    return {
        "steps_to_target": reached,
        "seconds_to_target": elapsed[reached] if reached else None,
        "wall_s": wall,
        "eval_accuracy": result["eval"]["accuracy"],
        "last10_correct": statistics.fmean(rates[-10:]),
        "completions_per_informative_group": sum(groups) * args.generations / max(1, sum(kept)),
        "informative_per_step": statistics.fmean(kept),
        "short_steps": sum(r.get("sampling/short", 0) for r in rows),
    }


def overlong_run(arm: str, seed: int, args: argparse.Namespace, where: Path) -> dict[str, Any]:
    """``--overlong``: the grpo preset on Digits csmp with room to babble (``max_new_tokens`` 8; the
    answer is the first digit, so a longer completion is not wrong, only long), with and without the
    soft overlong penalty (L_max 8, L_cache 4: free up to 4 tokens)."""
    from trainer.config import load_config
    from trainer.grpo import GRPOTrainer

    out = where / f"{arm}-{seed}"
    sampling = {"overlong": arm == "overlong", "overlong_max": 8, "overlong_buffer": 4}
    overrides = {"env_kwargs": {"ops": "csmp"}, "steps": args.steps, "prompts_per_step": args.prompts, "seed": seed}
    overrides.update(num_generations=args.generations, output_dir=str(out), save_every=0, eval_every=0)
    overrides.update(eval_prompts=args.eval, max_new_tokens=8, sampling=sampling)
    cfg = load_config(ROOT / "configs" / "demo.toml", overrides=overrides)
    started = time.perf_counter()
    result = GRPOTrainer(cfg, show_progress=False).train()
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines() if line.strip()]
    last = rows[-10:]
    return {
        "wall_s": time.perf_counter() - started,
        "eval_accuracy": result["eval"]["accuracy"],
        "last10_correct": statistics.fmean(r["correct_rate"] for r in last),
        "last10_length": statistics.fmean(r["completion_len_mean"] for r in last),
        "last10_truncated": statistics.fmean(r["truncated_frac"] for r in last),
        "first10_length": statistics.fmean(r["completion_len_mean"] for r in rows[:10]),
    }


def overlong_main(args: argparse.Namespace) -> None:
    results: dict[str, list[dict[str, Any]]] = {"plain": [], "overlong": []}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            for arm in results:
                results[arm].append(overlong_run(arm, seed, args, Path(tmp)))
                print(arm, seed, json.dumps(results[arm][-1]), flush=True)
    print(f"\nDigits ops=csmp, grpo, max_new_tokens 8, {args.steps} steps, {args.seeds} seeds (last 10 steps)")
    head = ("arm", "length first 10", "length", "truncated", "train correct", "eval acc", "wall s")
    print("".join(f"{h:<18}" for h in head))
    for arm, runs in results.items():
        keys = ("first10_length", "last10_length", "last10_truncated", "last10_correct", "eval_accuracy", "wall_s")
        cols = ["{:.2f} ± {:.2f}".format(*_mean_sd([r[k] for r in runs])) for k in keys]
        print("".join(f"{c:<18}" for c in [arm, *cols]))


def spread(values: list[float | None]) -> str:
    got = [v for v in values if v is not None]
    if not got:
        return "never"
    text = f"{statistics.fmean(got):.1f} ± {statistics.pstdev(got):.1f}"
    return text + (f" ({len(values) - len(got)} never)" if len(got) < len(values) else "")


def _mean_sd(values: list[float]) -> tuple[float, float]:
    return statistics.fmean(values), statistics.pstdev(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=80)
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--generations", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=4, help="sampling.max_rounds of the refill arm")
    parser.add_argument("--target", type=float, default=0.4, help="10-step mean train correct rate to reach")
    parser.add_argument("--eval", type=int, default=64)
    parser.add_argument(
        "--arms",
        default="filter,refill,edge",
        help="filter, refill, edge (+ pass-rate filter), curriculum (refill + levels)",
    )
    parser.add_argument("--overlong", action="store_true", help="the overlong penalty's run instead (see overlong_run)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    import torch

    torch.set_num_threads(1)
    if args.overlong:
        overlong_main(args)
        return
    results: dict[str, list[dict[str, Any]]] = {arm: [] for arm in args.arms.split(",")}
    with tempfile.TemporaryDirectory() as tmp:
        run("refill", 99, argparse.Namespace(**{**vars(args), "steps": 2, "eval": 2}), Path(tmp))  # warm-up, untimed
        for seed in range(args.seeds):
            for arm in results:  # alternated, so load on the machine hits both arms alike
                results[arm].append(run(arm, seed, args, Path(tmp)))
                print(arm, seed, json.dumps(results[arm][-1]), flush=True)
    print(f"\nDigits ops=csmp, dapo, {args.steps} steps x {args.prompts} prompts x {args.generations}, "
          f"{args.seeds} seeds; target: 10-step mean train correct rate >= {args.target}")  # fmt: skip
    head = (
        "arm",
        "steps to target",
        "s to target",
        "wall s",
        "eval acc",
        "last-10 correct",
        "compl./inf. group",
        "inf./step",
    )
    print("".join(f"{h:<20}" for h in head))
    for arm, runs in results.items():
        cols = [
            spread([r["steps_to_target"] for r in runs]),
            spread([r["seconds_to_target"] for r in runs]),
            spread([r["wall_s"] for r in runs]),
            "{:.3f} ± {:.3f}".format(*_mean_sd([r["eval_accuracy"] for r in runs])),
            f"{statistics.fmean(r['last10_correct'] for r in runs):.3f}",
            f"{statistics.fmean(r['completions_per_informative_group'] for r in runs):.1f}",
            f"{statistics.fmean(r['informative_per_step'] for r in runs):.1f}",
        ]
        print("".join(f"{c:<20}" for c in [arm, *cols]))
    base = statistics.fmean(r["wall_s"] for r in results["filter"])
    for arm in [a for a in results if a != "filter"]:
        print(f"{arm} / filter wall time: {statistics.fmean(r['wall_s'] for r in results[arm]) / base:.2f}x")


if __name__ == "__main__":
    main()
