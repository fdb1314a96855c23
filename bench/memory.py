"""Benchmark: peak memory of one GRPO step vs one PPO step with a value model of the same size.

    python bench/memory.py [--device cpu|cuda] [--size tiny|small|0.5b] [--json]

GRPO is credited with "about 50% less memory" than PPO because it has no critic. This
measures it on one model config and one batch:

- ``baseline``: the process, torch + transformers imported, one policy loaded (the fixed cost).
- ``grpo-beta0``: the policy (trainable, AdamW); GRPO loss with no KL term, so no reference.
- ``grpo``: the same plus a frozen reference model (``beta=0.04``, one forward per batch).
- ``ppo``: policy + frozen reference + a value model (a copy of the policy's backbone with a
  scalar head, trainable, its own AdamW). Old log-probs, reference log-probs and values are
  computed without grad, per-token rewards are ``-kl_coef * (old - ref)`` plus a score on the
  last token, advantages and returns come from GAE (gamma 1, lambda 0.95), then the clipped
  policy loss and the clipped value loss are stepped one after the other (the policy's
  activations are freed before the value model's forward: the frugal order, which favours PPO).

Every variant runs ``--steps`` optimizer steps (default 2: AdamW allocates its states in the
first, so the second step's forward/backward runs with them resident) over the same batch,
split into the same micro-batches. The batch is random token ids of fixed length with no
padding (prompt + completion, every completion token in the loss): the memory of an update
depends on shapes, not values, so no generation is run. The policy's logits are taken for the
completion positions only (``logits_to_keep``), as our trainer does.

Peak memory: on CPU each variant runs in a fresh subprocess and reports its peak RSS
(``ru_maxrss``), weights in float32; on CUDA the variants run in one process, weights in
bfloat16 (as our trainer's ``bf16``), and each reports ``torch.cuda.max_memory_allocated`` after
a reset (allocator memory only: the CUDA context and the caching allocator's slack are not in
it). ``--isolate`` runs CUDA variants in subprocesses too; ``--in-process`` runs CPU variants in
one process (the CUDA code path, for bench/gpu_check.sh's dry run: RSS then only grows, so
those CPU numbers are not comparable). ``--append FILE`` adds the JSON result to a results file.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

# Qwen2-shaped configs; "0.5b" is Qwen2.5-0.5B's shape (494M parameters, tied embeddings).
SIZES: dict[str, dict[str, int]] = {
    "tiny": {
        "vocab_size": 256,
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
    },
    "small": {
        "vocab_size": 32000,
        "hidden_size": 768,
        "intermediate_size": 2048,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "num_key_value_heads": 4,
    },
    "0.5b": {
        "vocab_size": 151936,
        "hidden_size": 896,
        "intermediate_size": 4864,
        "num_hidden_layers": 24,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
    },
}
# (completions, prompt tokens, completion tokens, micro-batch) per size; G is 8 throughout.
BATCHES: dict[str, tuple[int, int, int, int]] = {
    "tiny": (8, 8, 8, 8),
    "small": (8, 32, 64, 8),
    "0.5b": (64, 128, 256, 16),
}
VARIANTS = ("baseline", "grpo-beta0", "grpo", "ppo")
MODELS = {
    "baseline": "policy (loaded only)",
    "grpo-beta0": "policy",
    "grpo": "policy + ref",
    "ppo": "policy + ref + value",
}
G = 8
BETA = 0.04


@dataclass(frozen=True)
class Shape:
    size: str
    batch: int
    prompt_len: int
    completion_len: int
    micro_batch: int
    steps: int


@dataclass
class Row:
    variant: str
    models: str
    peak_mb: float
    params: int
    trainable: int
    seconds: float


# -- the pure parts: GAE and the PPO losses ------------------------------------------------------
def gae(rewards: Any, values: Any, mask: Any, *, gamma: float = 1.0, lam: float = 0.95) -> tuple[Any, Any]:
    """Generalized advantage estimation over ``[B, T]`` per-token rewards and values.

    ``mask`` is 1 on completion tokens (a right-padded completion ends at its last 1); the value
    after the last token is 0. Returns ``(advantages, returns)`` with ``returns = adv + values``.

    Example:
        >>> import torch
        >>> r, v, m = torch.tensor([[0.0, 0.0, 1.0]]), torch.full((1, 3), 0.5), torch.ones(1, 3)
        >>> gae(r, v, m, gamma=1.0, lam=1.0)[0]
        tensor([[0.5000, 0.5000, 0.5000]])
        >>> gae(r, v, m, gamma=1.0, lam=0.0)[0]
        tensor([[0.0000, 0.0000, 0.5000]])
    """
    import torch

    rewards, values, mask = rewards.float(), values.float(), mask.float()
    steps = rewards.shape[1]
    advantages = torch.zeros_like(rewards)
    last = torch.zeros_like(rewards[:, 0])
    for t in reversed(range(steps)):
        keep_next = mask[:, t + 1] if t + 1 < steps else torch.zeros_like(last)
        next_value = values[:, t + 1] * keep_next if t + 1 < steps else torch.zeros_like(last)
        delta = rewards[:, t] + gamma * next_value - values[:, t]
        last = (delta + gamma * lam * keep_next * last) * mask[:, t]
        advantages[:, t] = last
    return advantages, advantages + values


def masked_mean(x: Any, mask: Any) -> Any:
    return (x * mask).sum() / mask.sum().clamp(min=1.0)


def ppo_policy_loss(logps: Any, old_logps: Any, advantages: Any, mask: Any, *, epsilon: float = 0.2) -> Any:
    """PPO's clipped surrogate over per-token advantages ``[B, T]`` (token mean)."""
    import torch

    ratio = torch.exp(logps.float() - old_logps.float())
    objective = torch.minimum(ratio * advantages, torch.clamp(ratio, 1 - epsilon, 1 + epsilon) * advantages)
    return -masked_mean(objective, mask)


def value_loss(values: Any, old_values: Any, returns: Any, mask: Any, *, clip: float = 0.2) -> Any:
    """The clipped value loss ``0.5 * max((v - R)^2, (v_clipped - R)^2)`` (token mean)."""
    import torch

    clipped = old_values + torch.clamp(values - old_values, -clip, clip)
    return 0.5 * masked_mean(torch.maximum((values - returns) ** 2, (clipped - returns) ** 2), mask)


# -- models and the batch ------------------------------------------------------------------------
def build_policy(size: str, device: Any, dtype: Any) -> Any:
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(**SIZES[size], tie_word_embeddings=True, max_position_embeddings=4096)
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    return model.train()


class ValueModel:
    """A copy of the policy's backbone with a scalar head: one value per position."""

    def __init__(self, policy: Any) -> None:
        import torch

        self.backbone = copy.deepcopy(policy.base_model).train()
        self.backbone.requires_grad_(True)
        first = next(policy.parameters())
        self.head = torch.nn.Linear(policy.config.hidden_size, 1, device=first.device, dtype=first.dtype)

    def parameters(self) -> Iterator[Any]:
        yield from self.backbone.parameters()
        yield from self.head.parameters()

    def __call__(self, ids: Any, completion_len: int) -> Any:
        hidden = self.backbone(input_ids=ids).last_hidden_state[:, -(completion_len + 1) : -1]
        return self.head(hidden).squeeze(-1).float()


def logps(model: Any, ids: Any, completion_len: int) -> Any:
    from trainer.losses._math import token_logprobs

    logits = model(input_ids=ids, logits_to_keep=completion_len + 1).logits[:, :-1]
    return token_logprobs(logits, ids[:, -completion_len:])


def make_batch(shape: Shape, vocab: int, device: Any) -> dict[str, Any]:
    import torch

    gen = torch.Generator().manual_seed(1)
    width = shape.prompt_len + shape.completion_len
    ids = torch.randint(4, vocab, (shape.batch, width), generator=gen)  # ids 0-3: special tokens
    scores = torch.randint(0, 2, (shape.batch,), generator=gen).float()
    mask = torch.ones(shape.batch, shape.completion_len)
    return {"ids": ids.to(device), "scores": scores.to(device), "mask": mask.to(device)}


def count(*models: Any) -> int:
    return sum(p.numel() for m in models for p in m.parameters())


# -- the steps -----------------------------------------------------------------------------------
def grpo_step(policy: Any, ref: Any, optimizer: Any, batch: dict[str, Any], shape: Shape, beta: float) -> None:
    import torch

    from trainer.losses._math import group_advantages, grpo_loss

    ids, mask, c = batch["ids"], batch["mask"], shape.completion_len
    chunks = [slice(s, min(s + shape.micro_batch, shape.batch)) for s in range(0, shape.batch, shape.micro_batch)]
    adv = group_advantages(batch["scores"].view(-1, G).cpu()).view(-1).to(ids.device)
    with torch.no_grad():
        ref_lp = torch.cat([logps(ref, ids[k], c) for k in chunks]) if ref is not None else None
    optimizer.zero_grad(set_to_none=True)
    for k in chunks:
        lp = logps(policy, ids[k], c)
        loss, _ = grpo_loss(lp, lp.detach(), ref_lp[k] if ref_lp is not None else None, adv[k], mask[k], beta=beta)
        (loss * (k.stop - k.start) / shape.batch).backward()
    torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
    optimizer.step()


def ppo_step(
    policy: Any, ref: Any, value: ValueModel, optimizers: tuple[Any, Any], batch: dict[str, Any], shape: Shape
) -> None:
    import torch

    ids, mask, c = batch["ids"], batch["mask"], shape.completion_len
    chunks = [slice(s, min(s + shape.micro_batch, shape.batch)) for s in range(0, shape.batch, shape.micro_batch)]
    with torch.no_grad():
        old = torch.cat([logps(policy, ids[k], c) for k in chunks])
        ref_lp = torch.cat([logps(ref, ids[k], c) for k in chunks])
        old_values = torch.cat([value(ids[k], c) for k in chunks])
        rewards = -BETA * (old - ref_lp)
        rewards[:, -1] += batch["scores"]
        adv, returns = gae(rewards, old_values, mask)
        adv = (adv - masked_mean(adv, mask)) / (adv[mask.bool()].std() + 1e-8)
    policy_opt, value_opt = optimizers
    policy_opt.zero_grad(set_to_none=True)
    for k in chunks:
        loss = ppo_policy_loss(logps(policy, ids[k], c), old[k], adv[k], mask[k])
        (loss * (k.stop - k.start) / shape.batch).backward()
    torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
    policy_opt.step()
    value_opt.zero_grad(set_to_none=True)
    for k in chunks:
        loss = value_loss(value(ids[k], c), old_values[k], returns[k], mask[k])
        (loss * (k.stop - k.start) / shape.batch).backward()
    torch.nn.utils.clip_grad_norm_(list(value.parameters()), 1.0)
    value_opt.step()


def measure(variant: str, shape: Shape, device_name: str) -> Row:
    """Run one variant in this process and return its peak memory (see the module docstring)."""
    import torch

    device = torch.device(device_name)
    cuda = device.type == "cuda"
    dtype = torch.bfloat16 if cuda else torch.float32
    if cuda:
        gc.collect()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
    started = time.perf_counter()
    policy = build_policy(shape.size, device, dtype)
    batch = make_batch(shape, policy.config.vocab_size, device)
    resident: list[Any] = [policy]
    trainable: list[Any] = [policy]
    if variant != "baseline":
        ref = None
        if variant in ("grpo", "ppo"):
            ref = copy.deepcopy(policy).eval().requires_grad_(False)
            resident.append(ref)
        optimizer = torch.optim.AdamW(policy.parameters(), lr=1e-6)
        if variant == "ppo":
            value = ValueModel(policy)
            resident.append(value)
            trainable.append(value)
            value_opt = torch.optim.AdamW(value.parameters(), lr=1e-6)
            step: Callable[[], None] = lambda: ppo_step(policy, ref, value, (optimizer, value_opt), batch, shape)  # noqa: E731
        else:
            beta = BETA if variant == "grpo" else 0.0
            step = lambda: grpo_step(policy, ref, optimizer, batch, shape, beta)  # noqa: E731
        for _ in range(shape.steps):
            step()
    if cuda:
        torch.cuda.synchronize(device)
        peak = torch.cuda.max_memory_allocated(device) / 2**20
    else:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return Row(
        variant,
        MODELS[variant],
        round(peak, 1),
        count(*resident),
        count(*trainable),
        round(time.perf_counter() - started, 2),
    )


def run_child(variant: str, shape: Shape, device: str) -> Row:
    """``measure`` in a fresh interpreter, so its peak RSS is its own."""
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        variant,
        "--device",
        device,
        "--size",
        shape.size,
        "--steps",
        str(shape.steps),
    ]
    for flag, value in (
        ("--batch", shape.batch),
        ("--prompt-len", shape.prompt_len),
        ("--completion-len", shape.completion_len),
        ("--micro-batch", shape.micro_batch),
    ):
        cmd += [flag, str(value)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"variant {variant} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return Row(**json.loads(proc.stdout.strip().splitlines()[-1]))


# -- the report ----------------------------------------------------------------------------------
def report(rows: list[Row], shape: Shape, device: str) -> dict[str, Any]:
    by = {r.variant: r for r in rows}
    base, ppo = by["baseline"].peak_mb, by["ppo"].peak_mb
    out: dict[str, Any] = {"device": device, "shape": asdict(shape), "rows": []}
    for r in rows:
        above = r.peak_mb - base
        out["rows"].append(
            {
                **asdict(r),
                "above_baseline_mb": round(above, 1),
                "vs_ppo": round(r.peak_mb / ppo, 3),
                "above_baseline_vs_ppo": round(above / (ppo - base), 3) if ppo > base else None,
            }
        )
    for name in ("grpo", "grpo-beta0"):
        row = next(x for x in out["rows"] if x["variant"] == name)
        out[f"{name}_vs_ppo"] = row["vs_ppo"]
        out[f"{name}_vs_ppo_above_baseline"] = row["above_baseline_vs_ppo"]
    return out


def table(result: dict[str, Any]) -> str:
    s = result["shape"]
    if result["device"] == "cuda":
        what = "allocator peak, bf16"
    elif result.get("isolation") == "in-process":
        what = "peak RSS, all variants in one process (cumulative: not comparable), float32"
    else:
        what = "peak RSS, fresh process per variant, float32"
    lines = [
        f"model {s['size']} ({result['rows'][0]['params'] / 1e6:.1f}M params), {s['batch']} completions (G={G}) x "
        f"({s['prompt_len']} prompt + {s['completion_len']} completion tokens), micro-batch {s['micro_batch']}, "
        f"{s['steps']} AdamW steps; {result['device']}: {what}",
        "",
        f"{'variant':<12} {'models':<22} {'params M':>9} {'trained M':>10} {'peak MB':>9} {'above base':>11} "
        f"{'vs PPO':>7} {'above base vs PPO':>18} {'time s':>7}",
        "-" * 113,
    ]
    for r in result["rows"]:
        rel = "" if r["above_baseline_vs_ppo"] is None else f"{r['above_baseline_vs_ppo']:.3f}"
        lines.append(
            f"{r['variant']:<12} {r['models']:<22} {r['params'] / 1e6:>9.1f} {r['trainable'] / 1e6:>10.1f} "
            f"{r['peak_mb']:>9.1f} {r['above_baseline_mb']:>11.1f} {r['vs_ppo']:>7.3f} {rel:>18} {r['seconds']:>7.1f}"
        )
    g, g0 = result["grpo_vs_ppo_above_baseline"], result["grpo-beta0_vs_ppo_above_baseline"]
    lines += [
        "",
        f"GRPO (beta={BETA}) / PPO peak: {result['grpo_vs_ppo']:.3f} ({1 - result['grpo_vs_ppo']:.0%} less); "
        f"above the baseline: {g:.3f} ({1 - g:.0%} less)",
        f"GRPO (beta=0) / PPO peak: {result['grpo-beta0_vs_ppo']:.3f} ({1 - result['grpo-beta0_vs_ppo']:.0%} less); "
        f"above the baseline: {g0:.3f} ({1 - g0:.0%} less)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--size", default="small", choices=sorted(SIZES))
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--append", metavar="FILE", help='also append the JSON object, with "phase": "memory", to FILE')
    parser.add_argument("--steps", type=int, default=2, help="optimizer steps per variant")
    parser.add_argument("--batch", type=int, help=f"completions (a multiple of G={G}); default per size")
    parser.add_argument("--prompt-len", type=int, help="prompt tokens; default per size")
    parser.add_argument("--completion-len", type=int, help="completion tokens; default per size")
    parser.add_argument("--micro-batch", type=int, help="completions per forward/backward; default per size")
    parser.add_argument("--isolate", action="store_true", help="CUDA too: one subprocess per variant")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="CPU too: all variants in this process (the "
        "CUDA code path; peak RSS then only grows, so CPU numbers are not comparable)",
    )
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help="comma-separated subset (baseline and ppo are needed for the ratios)",
    )
    parser.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    b, p, c, m = BATCHES[args.size]
    shape = Shape(
        args.size, args.batch or b, args.prompt_len or p, args.completion_len or c, args.micro_batch or m, args.steps
    )
    if shape.batch % G:
        parser.error(f"--batch must be a multiple of G={G}, got {shape.batch}")
    if args.child:
        print(json.dumps(asdict(measure(args.child, shape, args.device))))
        return 0
    variants = [v for v in args.variants.split(",") if v]
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown or not {"baseline", "ppo"} <= set(variants):
        parser.error(f"--variants: known {VARIANTS}, baseline and ppo required; got {variants}")
    if args.isolate and args.in_process:
        parser.error("--isolate and --in-process exclude each other")
    in_process = args.in_process or (args.device == "cuda" and not args.isolate)
    rows = []
    for variant in variants:
        rows.append(measure(variant, shape, args.device) if in_process else run_child(variant, shape, args.device))
        print(f"[{variant}] {rows[-1].peak_mb:.1f} MB in {rows[-1].seconds:.1f} s", file=sys.stderr, flush=True)
    result = report(rows, shape, args.device)
    result["isolation"] = "in-process" if in_process else "subprocess per variant"
    print(json.dumps(result) if args.json else table(result), flush=True)
    if args.append:
        with open(args.append, "a") as fh:
            fh.write(json.dumps({"phase": "memory", **result}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
