"""The eval phase of the prepared GPU check (bench/gpu_check.sh): ``grpo-envs eval``'s
transformers backend on the GPU check's model (Qwen2.5-0.5B's shape from a config, bf16, random
weights; ``--tiny``: 2 layers, 64 wide) over ``grpo_envs/Arithmetic-v0``: 16 tasks x 8 samples of
up to 64 tokens (``--tiny``: 2 x 2 of 4), timed around `trainer.eval.evaluate` (generation,
judging, samples.jsonl, summary). The GPU machine has no vLLM, so only this backend runs there.

    python bench/gpu_eval.py [--cpu] [--tiny] [--results FILE]

Prints one JSON line and appends it to ``--results`` (default ``$OUT/results.txt``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gpu_check  # noqa: E402  (bench/ is not a package)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--cpu", action="store_true")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--results", default=None)
    args = p.parse_args(argv)
    s = gpu_check.Setup(cpu=args.cpu, tiny=args.tiny, prompts=2, max_new_tokens=4, micro_batch=8)
    n, samples, tokens = (2, 2, 4) if args.tiny else (16, 8, 64)
    from trainer.eval import evaluate

    started = time.perf_counter()
    model, tok = gpu_check.policy_and_tokenizer(s)
    load_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        summary = evaluate(
            "grpo_envs/Arithmetic-v0",
            model,
            tokenizer=tok,
            n=n,
            samples=samples,
            max_new_tokens=tokens,
            temperature=1.0,
            device=str(gpu_check.device(s)),
            out=out,
        )
        seconds = time.perf_counter() - started
        written = len((Path(out) / "samples.jsonl").read_text().splitlines())
    row = {
        "phase": "eval",
        "device": "cpu" if s.cpu else "cuda",
        "tiny": s.tiny,
        "backend": summary["backend"],
        "params": gpu_check.n_params(model),
        "tasks": summary["tasks"],
        "samples": summary["samples"],
        "rows_written": written,
        "tokens_mean": summary["tokens_mean"],
        "load_s": round(load_s, 2),
        "seconds": round(seconds, 3),
        "samples_per_s": round(summary["samples"] / seconds, 2),
        "tokens_per_s": round(summary["samples"] * summary["tokens_mean"] / seconds, 1),
        "pass@1": summary["pass@1"]["value"],
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
