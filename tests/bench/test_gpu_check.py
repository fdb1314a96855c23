"""bench/gpu_check.sh: its `--cpu --tiny` dry run writes every phase's numbers.

The same script runs on the GPU machine (0.5B model, bf16); this dry run is what CI can check
of it: the install logic, every phase's code path, the results file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ("bench/gpu_check.sh", "bench/gpu_wheels.sh")
PHASES = ("install", "env", "generate", "ours", "trl", "memory", "eval", "async")


@pytest.mark.parametrize("script", SCRIPTS)
def test_scripts_parse(script: str) -> None:
    proc = subprocess.run(["bash", "-n", script], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr


def test_scripts_pass_shellcheck() -> None:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (apt-get install shellcheck)")
    proc = subprocess.run(["shellcheck", *SCRIPTS], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout


def test_unknown_arguments_are_refused(tmp_path: Path) -> None:
    env = {**os.environ, "OUT": str(tmp_path), "PYTHON": sys.executable}
    proc = subprocess.run(
        ["bash", "bench/gpu_check.sh", "--gpu"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2
    assert "unknown argument: --gpu" in proc.stderr
    assert not (tmp_path / "results.txt").exists()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_cpu_tiny_dry_run_writes_every_phase(tmp_path: Path) -> None:
    env = {**os.environ, "OUT": str(tmp_path), "PYTHON": sys.executable, "HF_HUB_OFFLINE": "1"}
    env["GPU_CHECK_SKIP"] = "memory"  # bench/memory.py's own smoke test (test_memory_smoke.py) runs it
    proc = subprocess.run(
        ["bash", "bench/gpu_check.sh", "--cpu", "--tiny"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=870,
    )
    log = (tmp_path / "log.txt").read_text() if (tmp_path / "log.txt").exists() else ""
    assert proc.returncode == 0, proc.stdout + proc.stderr + log[-6000:]
    rows = [json.loads(line) for line in (tmp_path / "results.txt").read_text().splitlines()]
    assert [r["phase"] for r in rows] == list(PHASES)
    assert not [r for r in rows if "error" in r], log[-6000:]
    by = {r["phase"]: r for r in rows}

    assert by["install"]["skipped"]  # the packages import here: nothing is installed
    assert by["env"]["trl"] and by["env"]["trainer_from"] == str(ROOT / "trainer")  # the checked-out tree
    generate = by["generate"]
    assert generate["completions"] == 16 and generate["generated_tokens"] == 16 * 8  # fixed length
    assert generate["tokens_per_s"] > 0 and generate["mfu_vs_measured"] > 0
    for side in ("ours", "trl"):
        row = by[side]
        assert row["params"] == generate["params"] and row["completions"] == 16, side
        assert row["step_s"] > 0 and row["peak_memory_mb"] > 0 and row["rollout_s"] > 0, side
        for part in ("step", "train", "generation"):
            assert row[part]["mfu_vs_datasheet"] > 0, (side, part)
    assert by["memory"] == {"phase": "memory", "skipped": "GPU_CHECK_SKIP"}
    evaluation = by["eval"]
    assert evaluation["backend"] == "transformers" and evaluation["samples"] == 4 and evaluation["rows_written"] == 4
    assert evaluation["samples_per_s"] > 0 and 0 <= evaluation["pass@1"] <= 1
    asynchronous = by["async"]
    assert asynchronous["k0"]["staleness"] == [0, 0, 0] and asynchronous["k1"]["staleness"] == [1, 1, 1]
    assert asynchronous["k1"]["steps_per_s"] > 0 and asynchronous["ratio_k1_k0"] > 0
