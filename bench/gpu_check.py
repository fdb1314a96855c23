"""The phases of the prepared GPU check (bench/gpu_check.sh runs each under its own timeout).

    python bench/gpu_check.py PHASE [--cpu] [--tiny] [--results FILE]

PHASE is one of:

- ``env``: versions, the device, where our packages were imported from.
- ``generate``: our generation (``TransformersGenerator``, or ``trainer.rollouts._rollout.generate`` in
  older trees) of ``prompts x G`` completions of exactly ``max_new_tokens`` tokens each, after
  a short warm-up: tokens/s and MFU.
- ``ours``: two steps of our ``GRPOTrainer`` (the first is the warm-up); the second's wall time,
  its rollout/train split (from the run's perf.jsonl), peak memory and MFU.
- ``trl``: two steps of ``trl.GRPOTrainer`` on the same model, tokenizer, env, G, lengths,
  micro-batches and objective; the second step's wall time, its rollout time (``model.generate``
  plus ``_calculate_rewards``, timed, as our rollout time holds generation and scoring), peak
  memory and MFU.

Both trainers get the same settings (those bench/trainer_step.py uses on CPU), in bf16 on the
GPU: ``P`` prompts x G=8 completions of exactly ``max_new_tokens`` tokens (``min_new_tokens``),
temperature 1, top-p 1, no top-k; ``beta=0.04`` (a reference model on both sides),
``loss_type="dapo"``, epsilon 0.2, one iteration; AdamW (TRL: ``adamw_torch``, not fused), lr
1e-6, constant, clipping at 1.0; no gradient checkpointing (TRL's default is on); TRL's
``per_device_train_batch_size`` is our ``micro_batch_size`` and its gradient accumulation
covers the ``P x G`` completions, one generation per optimizer step. Peak memory is the
allocator's, reset at the start of the measured step (on CPU: the process's peak RSS).

The model is Qwen2.5-0.5B's shape (494M parameters, tied embeddings) built from a config in
bf16 on the GPU (random weights: no hub); ``--tiny`` is a 2-layer, 64-wide one. The tokenizer is
character-level over printable ASCII, padded with filler tokens to the model's vocabulary
(151,936), so the prompts of ``grpo_envs/Arithmetic-v0`` (~115 characters) are ~115 tokens.
A random model almost never samples EOS among 151,936 tokens, so completions run to
``max_new_tokens`` in both trainers (the mean completion length is reported to show it).

FLOPs (stated, approximate: attention scores and the KV cache are left out):
``step = 6 N T_train + 2 N T_ref + 2 N T_gen`` with N the parameters, T_train the prompt +
completion tokens trained on, T_ref = T_train when beta > 0 (the reference forward), T_gen the
generated tokens. MFU = FLOPs / seconds / peak, against 989 TFLOP/s (H100/H200 dense bf16,
the data sheet) and 790 TFLOP/s (an 8192^3 bf16 matmul measured on the H200 we are lent).

Each phase prints one JSON line and appends it to ``--results`` (default ``$OUT/results.txt``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ENV_ID = "grpo_envs/Arithmetic-v0"
G = 8
BETA = 0.04
LOSS_TYPE = "dapo"  # as bench/trainer_step.py, and TRL's default
PEAK_TFLOPS = {"datasheet": 989.0, "measured": 790.0}  # dense bf16: H100/H200 data sheet; matmul measured on H200
SPECIAL = ("<pad>", "<eos>", "<bos>", "<unk>")
QWEN_05B = {
    "vocab_size": 151936,
    "hidden_size": 896,
    "intermediate_size": 4864,
    "num_hidden_layers": 24,
    "num_attention_heads": 14,
    "num_key_value_heads": 2,
}
TINY = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
}


@dataclass(frozen=True)
class Setup:
    cpu: bool
    tiny: bool
    prompts: int  # groups per step
    max_new_tokens: int
    micro_batch: int

    @property
    def completions(self) -> int:
        return self.prompts * G


def setup_from(args: argparse.Namespace) -> Setup:
    prompts = args.prompts or (2 if args.tiny else 16)
    tokens = args.max_new_tokens or (8 if args.tiny else 256)
    micro = args.micro_batch or (8 if args.tiny else 32)
    return Setup(cpu=args.cpu, tiny=args.tiny, prompts=prompts, max_new_tokens=tokens, micro_batch=micro)


# -- shared set-up -------------------------------------------------------------------------------
def device(s: Setup) -> Any:
    import torch

    if s.cpu:
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device: run with --cpu")
    return torch.device("cuda")


def tokenizer(vocab_size: int | None) -> Any:
    """Characters of printable ASCII (plus specials), padded with filler tokens to ``vocab_size``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {tok: i for i, tok in enumerate(SPECIAL)}
    for ch in string.printable:
        vocab.setdefault(ch, len(vocab))
    while vocab_size is not None and len(vocab) < vocab_size:
        vocab[f"<t{len(vocab)}>"] = len(vocab)
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    core.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token="<pad>",
        eos_token="<eos>",
        bos_token="<bos>",
        unk_token="<unk>",
        padding_side="left",
    )


def policy_and_tokenizer(s: Setup) -> tuple[Any, Any]:
    """The model built from a config directly on the device (bf16 on GPU, float32 on CPU)."""
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    tok = tokenizer(None if s.tiny else QWEN_05B["vocab_size"])
    shape = {**TINY, "vocab_size": len(tok)} if s.tiny else QWEN_05B
    config = Qwen2Config(**shape, tie_word_embeddings=True, max_position_embeddings=4096)
    torch.manual_seed(0)
    dtype = torch.float32 if s.cpu else torch.bfloat16
    with torch.device(device(s)):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    return model, tok


def n_params(model: Any) -> int:
    return sum(p.numel() for p in model.parameters())


def prompt_tokens(tok: Any, n: int, seed: int = 0) -> list[list[int]]:
    """Token ids of ``n`` prompts of the env (task seeds ``seed .. seed + n - 1``)."""
    import gymnasium

    import grpo_envs  # noqa: F401  (registers the envs)

    env = gymnasium.make(ENV_ID)
    out = []
    for k in range(n):
        observation, _ = env.reset(seed=seed + k)
        out.append(list(tok(str(observation), add_special_tokens=False)["input_ids"]))
    return out


def sync(dev: Any) -> None:
    import torch

    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def reset_peak(dev: Any) -> None:
    import torch

    if dev.type == "cuda":
        torch.cuda.reset_peak_memory_stats(dev)


def peak_mb(dev: Any) -> float:
    """The allocator's peak on CUDA; the process's peak RSS on CPU (since it started)."""
    import torch

    if dev.type == "cuda":
        return round(torch.cuda.max_memory_allocated(dev) / 2**20, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def mfu(flops: float, seconds: float) -> dict[str, float]:
    if seconds <= 0:
        return {}
    achieved = flops / seconds / 1e12
    return {"tflops": sig(achieved), **{f"mfu_vs_{name}": sig(achieved / peak) for name, peak in PEAK_TFLOPS.items()}}


def sig(x: float, digits: int = 4) -> float:
    return float(f"{x:.{digits}g}")


def step_flops(n: int, train_tokens: float, gen_tokens: float, beta: float) -> dict[str, float]:
    """``6 N T_train + 2 N T_ref + 2 N T_gen`` (see the module docstring), split in its parts."""
    train = 6 * n * train_tokens + (2 * n * train_tokens if beta > 0 else 0.0)
    return {"train": train, "gen": 2 * n * gen_tokens, "step": train + 2 * n * gen_tokens}


def our_generator(model: Any, tok: Any, dev: Any) -> tuple[str, Callable[..., list[tuple[list[int], bool]]]]:
    """Our generation entry point, as this tree has it (this script also runs on older trees)."""
    try:
        from trainer.generation._generator import SamplingParams
        from trainer.generation._transformers import TransformersGenerator
    except ImportError:  # before the trainer's rooms (issue #51), or before the generator seam
        return _older_generator(model, tok, dev)
    gen = TransformersGenerator(model, tok, dev)

    def new(contexts: list[list[int]], *, max_new_tokens: int) -> list[tuple[list[int], bool]]:
        params = SamplingParams(max_new_tokens, min_new_tokens=max_new_tokens)
        return [(list(c.ids), c.truncated) for c in gen.generate(contexts, params)]

    return "trainer.generation._transformers.TransformersGenerator", new


def _older_generator(model: Any, tok: Any, dev: Any) -> tuple[str, Callable[..., list[tuple[list[int], bool]]]]:
    """The generation entry point of a tree from before the trainer's rooms."""
    import importlib

    try:
        transformers_module = importlib.import_module("trainer._generation")
    except ImportError:
        generate = importlib.import_module("trainer._rollout").generate

        def old(contexts: list[list[int]], *, max_new_tokens: int) -> list[tuple[list[int], bool]]:
            return generate(model, tok, contexts, max_new_tokens=max_new_tokens, temperature=1.0, top_p=1.0, device=dev)

        return "trainer._rollout.generate", old
    gen = transformers_module.TransformersGenerator(model, tok, dev)

    def new(contexts: list[list[int]], *, max_new_tokens: int) -> list[tuple[list[int], bool]]:
        n = max_new_tokens
        try:
            params = importlib.import_module("trainer._sampling").SamplingParams(n, min_new_tokens=n)
        except ImportError:  # before the SamplingParams seam
            out = gen.generate(contexts, max_new_tokens=n, temperature=1.0, top_p=1.0, min_new_tokens=n)
            return [(list(ids), truncated) for ids, truncated in out]
        return [(list(c.ids), c.truncated) for c in gen.generate(contexts, params)]

    return "trainer._generation.TransformersGenerator", new


# -- the phases ----------------------------------------------------------------------------------
def phase_env(s: Setup) -> dict[str, Any]:
    import importlib.metadata as md

    import torch

    out: dict[str, Any] = {"python": platform.python_version(), "executable": sys.executable}
    for name in (
        "torch",
        "transformers",
        "accelerate",
        "trl",
        "datasets",
        "gymnasium",
        "pyarrow",
        "pandas",
        "numpy",
        "tokenizers",
        "grpo-envs",
    ):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    import grpo_envs
    import trainer

    out["trainer_from"] = str(Path(trainer.__file__).parent)
    out["grpo_envs_from"] = str(Path(grpo_envs.__file__).parent)
    out["cuda"] = torch.cuda.is_available()
    if shutil.which("nvidia-smi"):
        query = "name,driver_version,memory.total,clocks.max.sm,power.limit"
        proc = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        out["nvidia_smi"] = proc.stdout.strip() or proc.stderr.strip()
    if out["cuda"] and not s.cpu:
        props = torch.cuda.get_device_properties(0)
        out |= {
            "gpu": props.name,
            "gpu_memory_gb": round(props.total_memory / 2**30, 1),
            "cuda_runtime": torch.version.cuda,
        }
    return out


def phase_generate(s: Setup) -> dict[str, Any]:
    model, tok = policy_and_tokenizer(s)
    dev = device(s)
    name, generate = our_generator(model, tok, dev)
    contexts = [c for c in prompt_tokens(tok, s.prompts) for _ in range(G)]
    generate(contexts, max_new_tokens=4)  # warm-up: kernels, cuBLAS handles, caches
    sync(dev)
    reset_peak(dev)
    started = time.perf_counter()
    samples = generate(contexts, max_new_tokens=s.max_new_tokens)
    sync(dev)
    seconds = time.perf_counter() - started
    tokens = sum(len(ids) for ids, _ in samples)
    n = n_params(model)
    return {
        "generator": name,
        "params": n,
        "completions": len(samples),
        "prompt_tokens_mean": round(sum(map(len, contexts)) / len(contexts), 1),
        "generated_tokens": tokens,
        "seconds": round(seconds, 3),
        "tokens_per_s": round(tokens / seconds, 1),
        "peak_memory_mb": peak_mb(dev),
        **mfu(2 * n * tokens, seconds),
    }


def generator_choice(s: Setup) -> tuple[str, str]:
    """("vllm", its version) where ``import vllm`` works on a GPU, else ("hf", why not)."""
    if s.cpu:
        return "hf", "--cpu: generating with transformers (vLLM's CPU build is tested in CI)"
    try:
        import vllm
    except Exception as exc:  # noqa: BLE001 - any failure to import means: not here
        return "hf", f"import vllm failed here ({type(exc).__name__}: {exc}): generating with transformers"
    return "vllm", f"vllm {getattr(vllm, '__version__', '?')}: the trainer generates with it"


def phase_ours(s: Setup) -> dict[str, Any]:
    import trainer

    generator, why = generator_choice(s)
    print(f"generator: {why}", flush=True)
    model, tok = policy_and_tokenizer(s)
    dev = device(s)
    n = n_params(model)
    with tempfile.TemporaryDirectory(prefix="gpu-check-ours-") as tmp:
        # bf16 on the GPU, float32 on CPU: the trainer derives the dtype from the device
        fields: dict[str, Any] = dict(
            env=ENV_ID,
            output_dir=tmp,
            seed=0,
            steps=10,
            prompts_per_step=s.prompts,
            num_generations=G,
            max_new_tokens=s.max_new_tokens,
            temperature=1.0,
            micro_batch_size=s.micro_batch,
            beta=BETA,
            epsilon=0.2,
            loss_type=LOSS_TYPE,
            scale="group",
            num_iterations=1,
            learning_rate=1e-6,
            lr_scheduler="constant",
            max_grad_norm=1.0,
            device=dev.type,
            gradient_checkpointing=False,
            save_every=0,
            eval_every=0,
            generator=generator,
        )
        import trainer.grpo as grpo_module

        real_rollout = grpo_module.rollout

        def fixed_length(*args: Any, **kw: Any) -> Any:  # fixed-length completions, as TRL's below
            return real_rollout(*args, **{**kw, "min_new_tokens": kw["max_new_tokens"]})

        grpo_module.rollout = fixed_length  # type: ignore[assignment]
        grpo = trainer.GRPOTrainer(trainer.GRPOConfig(**fields), model=model, tokenizer=tok, show_progress=False)
        try:
            grpo.step()  # warm-up
            sync(dev)
            reset_peak(dev)
            started = time.perf_counter()
            metrics = grpo.step()
            sync(dev)
            seconds = time.perf_counter() - started
        finally:
            if getattr(grpo, "log", None) is not None:
                grpo.log.close()  # its TensorBoard writer holds a file in tmp
        perf_path = Path(tmp) / "perf.jsonl"
        lines = perf_path.read_text().splitlines() if perf_path.exists() else []
        perf = json.loads(lines[-1]) if lines else {}
    completion = float(metrics.get("completion_len_mean", s.max_new_tokens))
    prompt = sum(map(len, prompt_tokens(tok, 64))) / 64
    gen_tokens = completion * s.completions
    train_tokens = (prompt + completion) * s.completions
    flops = step_flops(n, train_tokens, gen_tokens, BETA)
    rollout_s, train_s, tps = (perf.get(k) for k in ("time_rollout_s", "time_train_s", "tokens_per_s"))
    out: dict[str, Any] = {
        "generator": generator,
        "vllm": why,
        "split_s": {
            k: sig(perf[f"time_{k}_s"]) for k in ("generate", "score", "train", "sync") if f"time_{k}_s" in perf
        },
        "params": n,
        "completions": s.completions,
        "completion_len_mean": round(completion, 1),
        "prompt_tokens_mean": round(prompt, 1),
        "step_s": round(seconds, 3),
        "peak_memory_mb": peak_mb(dev),
        "rollout_s": sig(rollout_s) if rollout_s else None,
        "train_s": sig(train_s) if train_s else None,
        "tokens_per_s": sig(tps) if tps else None,
        "step": mfu(flops["step"], seconds),
    }
    if train_s:
        out["train"] = mfu(flops["train"], float(train_s))
    if rollout_s:
        out["generation"] = mfu(flops["gen"], float(rollout_s))
    return out


class _StepTimer:
    """A `transformers.TrainerCallback` (built lazily) timing each optimizer step and its peak memory."""

    def __init__(self, dev: Any) -> None:
        self.dev = dev
        self.steps: list[dict[str, float]] = []
        self.gen_s = 0.0
        self.gen_tokens = 0
        self.rewards_s = 0.0
        self._t0 = 0.0

    def callback(self) -> Any:
        from transformers import TrainerCallback

        timer = self

        class Callback(TrainerCallback):
            def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
                sync(timer.dev)
                reset_peak(timer.dev)
                timer.gen_s, timer.gen_tokens, timer.rewards_s = 0.0, 0, 0.0
                timer._t0 = time.perf_counter()

            def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
                sync(timer.dev)
                timer.steps.append(
                    {
                        "step_s": time.perf_counter() - timer._t0,
                        "peak_memory_mb": peak_mb(timer.dev),
                        "gen_s": timer.gen_s,
                        "gen_tokens": timer.gen_tokens,
                        "rewards_s": timer.rewards_s,
                    }
                )

        return Callback()

    def wrap_generate(self, model: Any) -> None:
        inner = model.generate

        def generate(*args: Any, **kwargs: Any) -> Any:
            sync(self.dev)
            started = time.perf_counter()
            out = inner(*args, **kwargs)
            sync(self.dev)
            self.gen_s += time.perf_counter() - started
            width = kwargs["input_ids"].shape[1] if "input_ids" in kwargs else args[0].shape[1]
            self.gen_tokens += int(out.shape[0] * (out.shape[1] - width))
            return out

        model.generate = generate

    def wrap_rewards(self, grpo: Any) -> None:
        """Time TRL's reward scoring too: our rollout time includes the environment's scoring."""
        inner = getattr(grpo, "_calculate_rewards", None)
        if inner is None:
            return

        def calculate(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.rewards_s += time.perf_counter() - started

        grpo._calculate_rewards = calculate


def phase_trl(s: Setup) -> dict[str, Any]:
    import trl

    from grpo_envs.adapters import trl as adapter

    model, tok = policy_and_tokenizer(s)
    dev = device(s)
    n = n_params(model)
    timer = _StepTimer(dev)
    with tempfile.TemporaryDirectory(prefix="gpu-check-trl-") as tmp:
        # TRL builds its reference model (beta > 0) from the policy's path: save it there first.
        model.save_pretrained(Path(tmp) / "policy")
        model.config._name_or_path = str(Path(tmp) / "policy")
        per_device = min(s.micro_batch, s.completions)
        args = trl.GRPOConfig(
            output_dir=str(Path(tmp) / "out"),
            per_device_train_batch_size=per_device,
            gradient_accumulation_steps=s.completions // per_device,
            num_generations=G,
            max_completion_length=s.max_new_tokens,
            generation_kwargs={"min_new_tokens": s.max_new_tokens},
            temperature=1.0,
            top_p=1.0,
            top_k=0,
            beta=BETA,
            epsilon=0.2,
            loss_type=LOSS_TYPE,
            scale_rewards="group",
            num_iterations=1,
            learning_rate=1e-6,
            weight_decay=0.0,
            lr_scheduler_type="constant",
            warmup_steps=0,
            max_grad_norm=1.0,
            optim="adamw_torch",
            bf16=not s.cpu,
            gradient_checkpointing=False,
            use_cpu=s.cpu,
            max_steps=2,
            logging_steps=1,
            report_to="none",
            save_strategy="no",
            seed=0,
            dataloader_num_workers=0,
            disable_dropout=True,
            log_completions=False,
        )
        grpo = trl.GRPOTrainer(
            model=model,
            reward_funcs=adapter.reward_function(ENV_ID),
            args=args,
            processing_class=tok,
            train_dataset=adapter.dataset(ENV_ID, n=4 * s.prompts, seed=0),
            callbacks=[timer.callback()],
        )
        timer.wrap_generate(grpo.model)
        timer.wrap_rewards(grpo)
        grpo.train()
        logged = [h for h in grpo.state.log_history if "completions/mean_length" in h]
    if len(timer.steps) < 2:
        raise SystemExit(f"TRL ran {len(timer.steps)} step(s), expected 2")
    last = timer.steps[-1]
    completion = float(logged[-1]["completions/mean_length"]) if logged else last["gen_tokens"] / s.completions
    prompt = sum(map(len, prompt_tokens(tok, 64))) / 64
    train_tokens = (prompt + completion) * s.completions
    flops = step_flops(n, train_tokens, last["gen_tokens"], BETA)
    rollout_s = last["gen_s"] + last["rewards_s"]  # as ours: generation and scoring
    train_s = last["step_s"] - rollout_s
    return {
        "trl": trl.__version__,
        "params": n,
        "completions": s.completions,
        "completion_len_mean": round(completion, 1),
        "prompt_tokens_mean": round(prompt, 1),
        "step_s": round(last["step_s"], 3),
        "peak_memory_mb": last["peak_memory_mb"],
        "rollout_s": sig(rollout_s),
        "generate_s": sig(last["gen_s"]),
        "rewards_s": sig(last["rewards_s"]),
        "train_s": sig(train_s),
        "tokens_per_s": sig(last["gen_tokens"] / rollout_s) if rollout_s else None,
        "step": mfu(flops["step"], last["step_s"]),
        "train": mfu(flops["train"], train_s),
        "generation": mfu(flops["gen"], rollout_s),
    }


def summary(results: Path) -> str:
    """Ours vs TRL and the memory ratios, from a results file (for a reader of the log's tail)."""
    rows = {}
    for line in results.read_text().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        rows[row.get("phase")] = row
    out = []
    for name in ("env", "generate", "ours", "trl", "memory", "eval", "async"):
        if "error" in rows.get(name, {}):
            out.append(f"{name}: {rows[name]['error']}")
    if "generate" in rows and "error" not in rows["generate"]:
        g = rows["generate"]
        out.append(
            f"generate (ours): {g['tokens_per_s']} tokens/s ({g['generated_tokens']} in {g['seconds']} s), "
            f"MFU {g.get('mfu_vs_measured', 0):.2%} of 790"
        )
    sides = [rows[k] for k in ("ours", "trl") if k in rows and "error" not in rows[k]]
    if sides:
        out.append(
            f"{'':<6}{'step s':>9}{'rollout s':>11}{'train s':>9}{'peak MB':>10}{'tok/s':>9}{'MFU step':>10}"
            f"{'MFU train':>11}  (MFU vs 790 TFLOP/s)"
        )
        for row in sides:
            out.append(
                f"{row['phase']:<6}{row['step_s']:>9}{row['rollout_s'] or 0:>11}{row['train_s'] or 0:>9}"
                f"{row['peak_memory_mb']:>10}{row['tokens_per_s'] or 0:>9}"
                f"{row.get('step', {}).get('mfu_vs_measured', 0):>10.2%}"
                f"{row.get('train', {}).get('mfu_vs_measured', 0):>11.2%}"
            )
        if len(sides) == 2:
            out.append(
                f"ours / TRL: step time {sides[0]['step_s'] / sides[1]['step_s']:.2f}x, "
                f"peak memory {sides[0]['peak_memory_mb'] / sides[1]['peak_memory_mb']:.2f}x"
            )
    if "vllm" in rows.get("ours", {}):
        out.append(f"generator (ours): {rows['ours']['vllm']}; step split {rows['ours'].get('split_s')}")
    if "rows" in rows.get("memory", {}):  # (not when skipped or failed)
        m = rows["memory"]
        peaks = ", ".join(f"{r['variant']} {r['peak_mb']} MB" for r in m["rows"])
        out.append(f"memory: {peaks}; GRPO/PPO {m['grpo_vs_ppo']} (beta=0: {m['grpo-beta0_vs_ppo']})")
    if "samples" in rows.get("eval", {}):
        e = rows["eval"]
        out.append(
            f"eval ({e['backend']}): {e['samples']} samples in {e['seconds']} s, {e['samples_per_s']} samples/s, "
            f"{e['tokens_per_s']} tokens/s (bench/gpu_eval.py)"
        )
    if "ratio_k1_k0" in rows.get("async", {}):
        a = rows["async"]
        out.append(
            f"async: k=1 {a['k1']['steps_per_s']} steps/s vs k=0 {a['k0']['steps_per_s']}: {a['ratio_k1_k0']}x "
            "(bench/gpu_async.py)"
        )
    return "\n".join(out)


PHASES: dict[str, Callable[[Setup], dict[str, Any]]] = {
    "env": phase_env,
    "generate": phase_generate,
    "ours": phase_ours,
    "trl": phase_trl,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("phase", choices=[*sorted(PHASES), "summary"], help="a phase, or summary (of --results)")
    parser.add_argument("--cpu", action="store_true", help="run on the CPU (float32) instead of CUDA (bf16)")
    parser.add_argument("--tiny", action="store_true", help="a 2-layer, 64-wide model and few tokens")
    parser.add_argument("--prompts", type=int, help=f"groups per step (x G={G}); default 16, --tiny 2")
    parser.add_argument("--max-new-tokens", type=int, help="completion length; default 256, --tiny 8")
    parser.add_argument("--micro-batch", type=int, help="completions per forward/backward; default 32, --tiny 8")
    parser.add_argument("--results", default=None, help="file to append the JSON line to (default $OUT/results.txt)")
    args = parser.parse_args(argv)
    results = args.results or (str(Path(os.environ["OUT"]) / "results.txt") if os.environ.get("OUT") else None)
    if args.phase == "summary":
        if not results or not Path(results).exists():
            parser.error("summary needs --results FILE (or $OUT/results.txt)")
        print(summary(Path(results)))
        return 0
    s = setup_from(args)
    started = time.perf_counter()
    row = {"phase": args.phase, "device": "cpu" if s.cpu else "cuda", "tiny": s.tiny, **PHASES[args.phase](s)}
    row["phase_s"] = round(time.perf_counter() - started, 2)
    line = json.dumps(row)
    print(line, flush=True)
    if results:
        with open(results, "a") as fh:
            fh.write(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
