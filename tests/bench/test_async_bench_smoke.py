"""bench/async_rollouts.py: a smoke run prints a row per (size, k) and the ratio against k = 0."""

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
    cmd = [sys.executable, str(ROOT / "bench" / "async_rollouts.py"), "--sizes", "demo", "--levels", "0", "1"]
    cmd += ["--steps", "1", "--warmup", "1", "--max-new-tokens", "2", "--sync-threads", "1"]
    done = subprocess.run(
        cmd, capture_output=True, text=True, cwd=ROOT, timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"}
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = re.findall(r"^demo\s+([01])\s+(\d+\.\d+)\s+(\d+\.\d+)", done.stdout, flags=re.M)
    assert [k for k, _, _ in rows] == ["0", "1"], done.stdout
    assert all(float(steps) > 0 for _, _, steps in rows)
    assert re.search(r"^ratio k=1/k=0 on demo: \d+\.\d+x$", done.stdout, flags=re.M), done.stdout
