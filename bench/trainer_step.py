"""Benchmark: seconds per GRPO step, our `GRPOTrainer` vs TRL's `GRPOTrainer`, on CPU.

    python bench/trainer_step.py [--env arithmetic|digits] [--size tiny|default|large]
                                 [--steps 5] [--warmup 2] [--threads 1] [--rounds 1]
                                 [--betas 0.0 0.04] [--sides ours trl vllm] [--json]

Both sides train the same Qwen2-shaped model (built from a config, same seed, same weights)
with the same character tokenizer on the same environment, ``grpo_envs/Digits-v0`` (3-token
prompts) or ``grpo_envs/Arithmetic-v0`` (~110-token prompts); TRL gets it through our adapter
(`grpo_envs.adapters.trl.dataset` and `reward_function`). TRL's defaults differ from ours, so
everything that changes the work of a step is set on both sides to the same value:

- the batch: ``P`` prompts x ``G`` completions per optimizer step (TRL counts its batch in
  completions: ``per_device_train_batch_size`` = our ``micro_batch_size``,
  ``gradient_accumulation_steps`` = ``P * G / micro_batch_size``, one generation per step);
- fixed-length generation: ``min_new_tokens == max_new_tokens == N`` on both sides (TRL:
  ``max_completion_length=N, generation_kwargs={"min_new_tokens": N}``, which TRL merges into
  its ``GenerationConfig``; ours: the bench passes it to the trainer's `rollout`, since
  ``min_new_tokens`` is no config field), checked on both sides from the logged
  completion lengths; sampling at temperature 1, top-p 1, no top-k;
- the objective: ``beta`` (0.0 and 0.04 are run; 0.04 loads a reference model on both sides),
  ``loss_type="dapo"``, ``epsilon=0.2``, ``num_iterations=1``, group scaling;
- the optimizer: AdamW (TRL: ``optim="adamw_torch"``, not the fused one), lr 1e-6, no weight
  decay, constant schedule, clipping at 1.0;
- the machine: float32 (TRL: ``bf16=False``), no gradient checkpointing (TRL's default is
  on), CPU, ``torch.set_num_threads(--threads)``. The default is 1 thread: on a shared machine
  two OpenMP threads per process stall whenever another process takes a core (we measured
  steps 8x slower under a load of 4 on 2 cores); use ``--threads N`` on a quiet N-core machine.

Each (side, beta) runs in a fresh subprocess (our trainer turns on deterministic algorithms
process-wide; TRL must not inherit that); ``--rounds R`` runs each R times, interleaved, and
pools the steps. A step is timed around ``GRPOTrainer.step()`` for us and from
``on_step_begin`` to ``on_step_end`` (a `TrainerCallback`) for TRL: that leaves TRL's logging
and data loading out and our metrics logging in, which favours TRL. Reported: median, p10 and
p90 seconds per step over the timed steps, generated tokens per second of step time, the
median time in rollouts (our ``time_rollout_s``; TRL's ``_generate`` plus
``_calculate_rewards``) and the median process CPU time per step (less sensitive to other
load than wall time). Target: ours <= 0.7x TRL at every beta.

Side ``vllm`` is our trainer with ``generator="vllm"`` (a colocated ``vllm.LLM``, synced after
every step), run with the vLLM virtualenv's python (``scripts/ensure-vllm.sh``; or
``$GRPO_ENVS_VLLM_PYTHON``). For our two sides a second table splits the median step into
generate / score / sync / train (``perf.jsonl``). Fixed-length generation makes vLLM mask EOS
(``min_tokens``), so its log-probs are then of a distribution without EOS: the importance weights
differ from 1, which changes no timing.

The default environment is Arithmetic: GRPO prompts are a task statement (in practice inside a
chat template), tens to hundreds of tokens shared by the G completions, and our trainer runs
each prompt once per group in generation and in the loss. Digits (3-token prompts) is the floor
case: nothing to share, both sides do the same compute, and the ratio is about 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import string
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

# environment id, its kwargs, and the characters of the tokenizer (one token per character)
ENVS: dict[str, tuple[str, dict[str, Any], str]] = {
    "digits": ("grpo_envs/Digits-v0", {"ops": "cs"}, "0123456789csmp="),  # 3-token prompts
    "arithmetic": ("grpo_envs/Arithmetic-v0", {}, string.printable),  # ~110-token prompts
}
# model shape (Qwen2) and batch: P prompts x G completions of exactly N tokens, micro-batches of M
SIZES: dict[str, dict[str, int]] = {
    "tiny": {"hidden": 64, "layers": 2, "heads": 4, "kv_heads": 2, "P": 2, "G": 4, "N": 4, "M": 4},
    "default": {"hidden": 256, "layers": 4, "heads": 4, "kv_heads": 2, "P": 8, "G": 8, "N": 32, "M": 32},
    "large": {"hidden": 512, "layers": 8, "heads": 8, "kv_heads": 2, "P": 8, "G": 8, "N": 64, "M": 16},
}
LEARNING_RATE, EPSILON, LOSS_TYPE, NUM_ITERATIONS = 1e-6, 0.2, "dapo", 1
PARTS = ("generate", "score", "sync", "train")  # our step, split (perf.jsonl's time_*_s)


# -- shared set-up ---------------------------------------------------------------------------------
def build(size: dict[str, int], env: str) -> tuple[Any, Any]:
    """A character tokenizer for ``env`` and a Qwen2-shaped model from a config, seed 0."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    from trainer.policy._model import demo_tokenizer

    tokenizer = demo_tokenizer(ENVS[env][2])
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=size["hidden"],
        intermediate_size=4 * size["hidden"],
        num_hidden_layers=size["layers"],
        num_attention_heads=size["heads"],
        num_key_value_heads=size["kv_heads"],
        max_position_embeddings=512,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = AutoModelForCausalLM.from_config(config)
    return tokenizer, model


def run_ours(
    size: dict[str, int], env: str, beta: float, steps: int, warmup: int, out: Path, generator: str = "hf"
) -> dict[str, Any]:
    import trainer.grpo as grpo_module
    from trainer.config import GRPOConfig
    from trainer.grpo import GRPOTrainer

    tokenizer, model = build(size, env)
    env_id, env_kwargs, _ = ENVS[env]
    n = size["N"]
    kwargs: dict[str, Any] = dict(
        model="demo",
        env=env_id,
        env_kwargs=dict(env_kwargs),
        output_dir=str(out),
        seed=0,
        steps=warmup + steps,
        prompts_per_step=size["P"],
        num_generations=size["G"],
        max_new_tokens=n,
        temperature=1.0,
        micro_batch_size=size["M"],
        beta=beta,
        epsilon=EPSILON,
        loss_type=LOSS_TYPE,
        scale="group",
        num_iterations=NUM_ITERATIONS,
        learning_rate=LEARNING_RATE,
        warmup_steps=0,
        lr_scheduler="constant",
        max_grad_norm=1.0,
        device="cpu",
        save_every=0,
        eval_every=0,
        generator=generator,
    )
    real_rollout = getattr(grpo_module, "rollout")  # noqa: B009

    def fixed_length(*args: Any, **kw: Any) -> Any:  # min_new_tokens is a benchmark knob, not a config field
        kw["min_new_tokens"] = kw["max_new_tokens"]
        return real_rollout(*args, **kw)

    setattr(grpo_module, "rollout", fixed_length)  # noqa: B010
    trainer = GRPOTrainer(GRPOConfig(**kwargs), model=model, tokenizer=tokenizer, show_progress=False)
    times, cpu, lengths = [], [], []
    for k in range(warmup + steps):
        started, started_cpu = time.perf_counter(), time.process_time()
        metrics = trainer.step()
        elapsed, elapsed_cpu = time.perf_counter() - started, time.process_time() - started_cpu
        lengths.append(metrics["completion_len_mean"])
        if k >= warmup:
            times.append(elapsed)
            cpu.append(elapsed_cpu)
    log = getattr(trainer, "log", None)
    if log is not None:
        log.close()  # flushes TensorBoard's writer thread
    perf = [json.loads(line) for line in (out / "perf.jsonl").read_text().splitlines() if line.strip()]
    rollouts = [row["time_rollout_s"] for row in perf[warmup:]]
    split = {part: [row[f"time_{part}_s"] for row in perf[warmup:]] for part in PARTS}
    return {"times": times, "cpu": cpu, "rollout": rollouts, "completion_len": lengths, "split": split}


def run_trl(
    size: dict[str, int], env: str, beta: float, steps: int, warmup: int, out: Path, threads: int
) -> dict[str, Any]:
    import torch
    import trl
    from transformers import AutoModelForCausalLM, TrainerCallback

    from grpo_envs.adapters import trl as adapter

    tokenizer, model = build(size, env)
    env_id, env_kwargs, _ = ENVS[env]
    # TRL builds its reference model (beta > 0) from the policy's name_or_path: give it one.
    model.save_pretrained(out / "model")
    model = AutoModelForCausalLM.from_pretrained(out / "model", dtype=torch.float32)
    n, batch = size["N"], size["P"] * size["G"]
    args = trl.GRPOConfig(
        output_dir=str(out / "trl"),
        per_device_train_batch_size=size["M"],
        gradient_accumulation_steps=batch // size["M"],
        num_generations=size["G"],
        max_completion_length=n,
        generation_kwargs={"min_new_tokens": n},
        temperature=1.0,
        top_p=1.0,
        top_k=0,
        beta=beta,
        epsilon=EPSILON,
        loss_type=LOSS_TYPE,
        scale_rewards="group",
        num_iterations=NUM_ITERATIONS,
        learning_rate=LEARNING_RATE,
        weight_decay=0.0,
        lr_scheduler_type="constant",
        warmup_steps=0,
        max_grad_norm=1.0,
        optim="adamw_torch",
        bf16=False,
        gradient_checkpointing=False,
        use_cpu=True,
        max_steps=warmup + steps,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        seed=0,
        dataloader_num_workers=0,
    )
    times: list[float] = []
    cpu: list[float] = []
    rollout: list[float] = [0.0]
    threads_seen: list[int] = []

    class Timer(TrainerCallback):
        started = started_cpu = 0.0

        def on_train_begin(self, *a: Any, **kw: Any) -> None:
            torch.set_num_threads(threads)

        def on_step_begin(self, *a: Any, **kw: Any) -> None:
            threads_seen.append(torch.get_num_threads())
            rollout.append(0.0)
            self.started, self.started_cpu = time.perf_counter(), time.process_time()

        def on_step_end(self, *a: Any, **kw: Any) -> None:
            times.append(time.perf_counter() - self.started)
            cpu.append(time.process_time() - self.started_cpu)

    trainer = trl.GRPOTrainer(
        model=model,
        reward_funcs=adapter.reward_function(env_id, **env_kwargs),
        args=args,
        processing_class=tokenizer,
        callbacks=[Timer()],
        train_dataset=adapter.dataset(env_id, n=max(64, size["P"] * (warmup + steps + 1)), seed=0, **env_kwargs),
    )
    for name in ("_generate", "_calculate_rewards"):
        real = getattr(trainer, name)

        def timed(*a: Any, _real: Any = real, **kw: Any) -> Any:
            started = time.perf_counter()
            try:
                return _real(*a, **kw)
            finally:
                rollout[-1] += time.perf_counter() - started

        setattr(trainer, name, timed)
    trainer.train()
    lengths = [h["completions/mean_length"] for h in trainer.state.log_history if "completions/mean_length" in h]
    return {
        "times": times[warmup:],
        "cpu": cpu[warmup:],
        "rollout": rollout[1:][warmup:],
        "completion_len": lengths,
        "threads": sorted(set(threads_seen)),
    }


def worker(args: argparse.Namespace) -> None:
    import torch

    warnings.filterwarnings("ignore")
    torch.set_num_threads(args.threads)
    size = SIZES[args.size]
    with tempfile.TemporaryDirectory(prefix="bench-step-", ignore_cleanup_errors=True) as tmp:
        if args.worker in ("ours", "vllm"):
            generator = "vllm" if args.worker == "vllm" else "hf"
            result = run_ours(size, args.env, args.beta, args.steps, args.warmup, Path(tmp), generator)
        else:
            result = run_trl(size, args.env, args.beta, args.steps, args.warmup, Path(tmp), args.threads)
    result.setdefault("threads", [torch.get_num_threads()])
    bad = [x for x in result["completion_len"] if abs(x - size["N"]) > 1e-6]
    if bad:
        raise SystemExit(f"{args.worker}: completions were not all {size['N']} tokens long: {bad}")
    print("RESULT " + json.dumps(result), flush=True)


# -- the parent: run the workers, print the table ------------------------------------------------
def quantile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[round(q * 100) - 1]


def vllm_python() -> str:
    """The vLLM virtualenv's python: ``$GRPO_ENVS_VLLM_PYTHON``, or what scripts/ensure-vllm.sh builds."""
    if os.environ.get("GRPO_ENVS_VLLM_PYTHON"):
        return os.environ["GRPO_ENVS_VLLM_PYTHON"]
    done = subprocess.run(["bash", str(ROOT / "scripts" / "ensure-vllm.sh")], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"side vllm needs the vLLM virtualenv: scripts/ensure-vllm.sh failed:\n{done.stderr[-2000:]}")
    return done.stdout.strip().splitlines()[-1]


def run_worker(side: str, beta: float, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [
        vllm_python() if side == "vllm" else sys.executable,
        __file__,
        "--worker",
        side,
        "--beta",
        str(beta),
        "--size",
        args.size,
        "--env",
        args.env,
        "--steps",
        str(args.steps),
        "--warmup",
        str(args.warmup),
        "--threads",
        str(args.threads),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
    env.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=args.timeout, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{side} beta={beta} failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
    raw: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    return raw


def summarize(side: str, beta: float, raws: list[dict[str, Any]], size: dict[str, int]) -> dict[str, Any]:
    times = [t for raw in raws for t in raw["times"]]
    median = statistics.median(times)
    return {
        "side": side,
        "beta": beta,
        "median_s": median,
        "p10_s": quantile(times, 0.1),
        "p90_s": quantile(times, 0.9),
        "tokens_per_s": size["P"] * size["G"] * size["N"] / median,
        "rollout_s": statistics.median(x for raw in raws for x in raw["rollout"]),
        "cpu_s": statistics.median(x for raw in raws for x in raw["cpu"]),
        "times": times,
        "threads": sorted({t for raw in raws for t in raw["threads"]}),
        "split": {p: statistics.median(x for raw in raws for x in raw["split"][p]) for p in PARTS}
        if all("split" in raw for raw in raws)
        else None,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="default")
    parser.add_argument(
        "--env", choices=sorted(ENVS), default="arithmetic", help="arithmetic: ~110-token prompts; digits: 3"
    )
    parser.add_argument("--steps", type=int, default=5, help="timed steps per run (median over all of them)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps first, in every run")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads on both sides")
    parser.add_argument("--rounds", type=int, default=1, help="runs per (side, beta), interleaved against load drift")
    parser.add_argument("--betas", type=float, nargs="+", default=[0.0, 0.04])
    parser.add_argument("--sides", nargs="+", choices=["ours", "trl", "vllm"], default=["ours", "trl"])
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per run (one subprocess)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--worker", choices=["ours", "trl", "vllm"], help=argparse.SUPPRESS)
    parser.add_argument("--beta", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.steps < 1 or args.warmup < 0 or args.rounds < 1 or args.threads < 1:
        parser.error("--steps, --rounds and --threads must be >= 1, --warmup >= 0")
    if args.worker:
        worker(args)
        return
    size = SIZES[args.size]
    load_before = os.getloadavg()
    raws: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for _ in range(args.rounds):
        for beta in args.betas:
            for side in args.sides:
                raws.setdefault((side, beta), []).append(run_worker(side, beta, args))
    load_after = os.getloadavg()
    rows = [summarize(side, beta, runs, size) for (side, beta), runs in raws.items()]
    ratios: dict[str, dict[str, float]] = {}
    for beta in args.betas:
        by = {r["side"]: r for r in rows if r["beta"] == beta}
        if {"ours", "trl"} <= set(by):
            ratios[str(beta)] = {
                "wall": by["ours"]["median_s"] / by["trl"]["median_s"],
                "cpu": by["ours"]["cpu_s"] / by["trl"]["cpu_s"],
            }
    if args.json:
        report = {
            "env": ENVS[args.env][0],
            "size": args.size,
            "shape": size,
            "steps": args.steps,
            "warmup": args.warmup,
            "rounds": args.rounds,
            "threads": args.threads,
            "loadavg_before": load_before,
            "loadavg_after": load_after,
            "rows": rows,
            "ratio_ours_over_trl": ratios,
        }
        print(json.dumps(report, indent=2))
        return
    print(
        f"env={ENVS[args.env][0]}, size={args.size}: Qwen2 hidden {size['hidden']}, {size['layers']} layers; "
        f"{size['P']} prompts x {size['G']} completions x {size['N']} tokens per step, micro-batch {size['M']}; "
        f"{args.rounds} x ({args.warmup} warm-up + {args.steps} timed) steps per row; threads={args.threads}; "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after"
    )
    head = f"{'side':<6} {'beta':>5} {'median s/step':>14} {'p10':>8} {'p90':>8} {'tokens/s':>9} {'rollout s':>10}"
    print(f"\n{head} {'cpu s':>8}\n" + "-" * (len(head) + 9))
    for r in rows:
        print(
            f"{r['side']:<6} {r['beta']:>5.2f} {r['median_s']:>14.3f} {r['p10_s']:>8.3f} {r['p90_s']:>8.3f} "
            f"{r['tokens_per_s']:>9.0f} {r['rollout_s']:>10.3f} {r['cpu_s']:>8.3f}"
        )
    split_table(rows)
    print()
    for beta, ratio in ratios.items():
        verdict = "meets" if ratio["wall"] <= 0.7 else "misses"
        print(
            f"ratio ours/TRL at beta={float(beta):.2f}: {ratio['wall']:.2f}x ({verdict} the <= 0.7x target; "
            f"CPU time {ratio['cpu']:.2f}x)"
        )


def split_table(rows: list[dict[str, Any]]) -> None:
    """Our sides' median step split into generate / score / sync / train, and vLLM's ratio to HF."""
    ours = [r for r in rows if r["split"]]
    if not ours:
        return
    print(f"\n{'step split (median s)':<22} " + " ".join(f"{p:>9}" for p in PARTS))
    for r in ours:
        print(f"split {r['side']:<6} b={r['beta']:<6.2f} " + " ".join(f"{r['split'][p]:>9.3f}" for p in PARTS))
    for beta in sorted({r["beta"] for r in ours}):
        by = {r["side"]: r for r in ours if r["beta"] == beta}
        if {"ours", "vllm"} <= set(by):
            gen = by["vllm"]["split"]["generate"] / by["ours"]["split"]["generate"]
            step = by["vllm"]["median_s"] / by["ours"]["median_s"]
            print(f"vllm/hf at beta={beta:.2f}: generate {gen:.2f}x, whole step {step:.2f}x")


if __name__ == "__main__":
    main()
