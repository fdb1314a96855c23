"""bench/terminal_rollout.py: a smoke run (one task, a group of 2, one round) prints both rows,
every replayed reference solved and judged, and the ratio."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.docker
@pytest.mark.slow
def test_terminal_rollout_bench_prints_both_rows_and_a_ratio() -> None:
    args = ["--tasks", "1", "--group", "2", "--rounds", "1", "--json"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "terminal_rollout.py"), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout.strip().splitlines()[-1])["rows"]
    assert [r["warm_sessions"] for r in rows] == [0, 2]
    assert all(r["solved"] == 1.0 and r["judged"] == 1.0 and r["per_s"] > 0 for r in rows), rows
    assert "a container per episode" in done.stdout and "warm pool vs a container per episode" in done.stdout
