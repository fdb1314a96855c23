"""bench/trainer_step.py: a smoke run of the tiny size prints a ratio ours/TRL for both betas and
our step's split; bench/eval.py prints a row per backend."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_trainer_step_bench_tiny_prints_a_ratio_for_both_betas() -> None:
    cmd = [sys.executable, str(ROOT / "bench" / "trainer_step.py"), "--size", "tiny", "--steps", "1", "--warmup", "0"]
    done = subprocess.run(
        cmd, capture_output=True, text=True, cwd=ROOT, timeout=840, env={**os.environ, "HF_HUB_OFFLINE": "1"}
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = re.findall(r"^(ours|trl)\s+(0\.00|0\.04)\s+(\d+\.\d+)", done.stdout, flags=re.M)
    assert sorted((side, beta) for side, beta, _ in rows) == [
        ("ours", "0.00"),
        ("ours", "0.04"),
        ("trl", "0.00"),
        ("trl", "0.04"),
    ], done.stdout
    split = re.findall(r"^split ours\s+b=(0\.00|0\.04)\s+((?:\d+\.\d+\s*){4})$", done.stdout, flags=re.M)
    assert [beta for beta, _ in split] == ["0.00", "0.04"], done.stdout  # generate / score / sync / train
    assert all(float(x) >= 0 for _, parts in split for x in parts.split())
    ratios = re.findall(r"^ratio ours/TRL at beta=(0\.00|0\.04): (\d+\.\d+)x", done.stdout, flags=re.M)
    assert [beta for beta, _ in ratios] == ["0.00", "0.04"], done.stdout
    assert all(float(r) > 0 for _, r in ratios)


@pytest.mark.slow
def test_eval_bench_prints_a_row_and_a_ratio_per_backend() -> None:
    """bench/eval.py on the transformers backend twice (the vLLM rows need the vLLM venv and a
    minute of start-up; the backends themselves are tested in tests/trainer/test_eval_vllm.py)."""
    cmd = [sys.executable, str(ROOT / "bench" / "eval.py"), "--n", "8", "--samples", "2", "--max-new-tokens", "4"]
    cmd += ["--backends", "transformers,transformers", "--json"]
    done = subprocess.run(
        cmd, capture_output=True, text=True, cwd=ROOT, timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"}
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert [r["backend"] for r in results] == ["transformers", "transformers"]
    assert all(r["samples"] == 16 and r["tokens"] >= 16 and r["run_s"] > 0 for r in results)


@pytest.mark.slow
def test_losses_bench_prints_a_row_per_task_and_loss() -> None:
    """bench/losses.py: one seed, 2 steps of each loss on both tasks, a row each with its ratio to grpo."""
    cmd = [sys.executable, str(ROOT / "bench" / "losses.py"), "--seeds", "1", "--steps", "2", "--prompts", "4"]
    cmd += ["--generations", "4", "--eval", "4", "--json"]
    done = subprocess.run(
        cmd, capture_output=True, text=True, cwd=ROOT, timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"}
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = re.findall(
        r"^(digits|arithmetic)\s+(grpo|dapo|gspo|cispo)\s+\d\.\d{3} ± \d\.\d{3}.*? (\d+\.\d\dx|-) ",
        done.stdout,
        flags=re.M,
    )
    assert [(task, loss) for task, loss, _ in rows] == [
        (task, loss) for task in ("digits", "arithmetic") for loss in ("grpo", "dapo", "gspo", "cispo")
    ], done.stdout
    assert all(ratio in ("1.00x", "-") for _, loss, ratio in rows if loss == "grpo")  # "-": grpo's rate was 0
    results = json.loads(done.stdout.strip().splitlines()[-1])["results"]
    assert all(len(r["curves"][0]) == 2 and 0 <= r["final"][0] <= 1 for t in results.values() for r in t.values())
