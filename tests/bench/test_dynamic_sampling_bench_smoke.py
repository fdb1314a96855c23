"""bench/dynamic_sampling.py: a smoke run prints a row per arm and the wall-time ratio; --overlong a row per arm."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--seeds", "1", "--steps", "3", "--prompts", "4", "--generations", "4", "--eval", "4"]


def _run(*extra: str) -> str:
    cmd = [sys.executable, str(ROOT / "bench" / "dynamic_sampling.py"), *SMALL, *extra]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow
def test_dynamic_sampling_bench_prints_both_arms_and_a_ratio() -> None:
    out = _run()
    assert re.search(r"^filter\s+\S", out, flags=re.M) and re.search(r"^refill\s+\S", out, flags=re.M), out
    assert re.search(r"^refill / filter wall time: \d+\.\d\dx$", out, flags=re.M), out
    out = _run("--overlong")
    assert re.search(r"^plain\s+\d", out, flags=re.M) and re.search(r"^overlong\s+\d", out, flags=re.M), out
