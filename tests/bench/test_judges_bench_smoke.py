"""bench/judges.py: a short run prints a row per concurrency with its ratio to the ideal rate, and
a cache line whose second pass makes no call."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_judges_bench_prints_rates_and_a_cache_pass_without_calls() -> None:
    cmd = [
        sys.executable,
        str(ROOT / "bench" / "judges.py"),
        "--latency",
        "0.02",
        "--concurrency",
        "1,4",
        "--calls",
        "2",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = re.findall(r"^\s+(\d+)\s+(\d+)\s+(\d+\.\d)\s+(\d+\.\d)\s+(\d+\.\d\d)\s+(\d+\.\d+)$", done.stdout, flags=re.M)
    assert [int(c) for c, *_ in rows] == [1, 4] and all(0 < float(r[4]) <= 1.05 and float(r[5]) > 0 for r in rows), (
        done.stdout
    )
    assert re.search(r"cache: first pass [\d.]+/s \(512 calls\), second pass [\d.]+/s \(0 calls\)", done.stdout)
