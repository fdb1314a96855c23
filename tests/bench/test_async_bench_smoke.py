"""bench/async_rollouts.py: a smoke run prints a row per (size, run) and the ratio against the k = 0 baseline run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_async_bench_prints_a_row_per_level_and_a_ratio() -> None:
    cmd = [sys.executable, str(ROOT / "bench" / "async_rollouts.py"), "--sizes", "demo", "--runs", "0:1t", "1:latest"]
    cmd += ["--steps", "1", "--warmup", "1", "--max-new-tokens", "2"]
    done = subprocess.run(
        cmd, capture_output=True, text=True, cwd=ROOT, timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"}
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = re.findall(r"^demo\s+(0:1t|1:latest)\s+(\d+\.\d+)\s+(\d+\.\d+)", done.stdout, flags=re.M)
    assert [k for k, _, _ in rows] == ["0:1t", "1:latest"], done.stdout
    assert all(float(steps) > 0 for _, _, steps in rows)
    assert re.search(r"^ratio k=1:latest/k=0:1t on demo: \d+\.\d+x$", done.stdout, flags=re.M), done.stdout
    assert "k=1:latest/k=0 on" not in done.stdout  # no k = 0 (all cores) run, no ratio against it
