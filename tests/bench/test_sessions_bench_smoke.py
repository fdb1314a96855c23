"""bench/sessions.py: a smoke run prints its rows (start to first command, round trips) and the ratio."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.docker
@pytest.mark.slow
def test_sessions_bench_prints_every_row() -> None:
    args = ["--rounds", "2", "--pool", "2", "--rates", "4,max", "--per-rate", "3", "--parallel-starts", "1"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "sessions.py"), *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for name in (
        "docker run per episode",
        "cold Session",
        "warm, 4/s, 1 refill",
        "warm, max, 1 refill",
        "Session.exec",
        "docker exec",
        "job pool",
    ):
        assert re.search(rf"^{re.escape(name)}.*\s\d+\.\d\s+\d+\.\d\s+\d+", done.stdout, flags=re.M), (
            name,
            done.stdout,
        )
    assert re.search(r"vs docker run per episode, p50: \d+\.\dx faster", done.stdout), done.stdout
