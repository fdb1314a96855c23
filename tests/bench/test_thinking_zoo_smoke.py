"""bench/thinking_zoo.py runs and prints, for our verifier, every family shape and ending judged
right with no false positive (the peer's rows are printed when it is installed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_thinking_zoo_bench_prints_our_rows() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "thinking_zoo.py")], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    ours = re.findall(r"^ours \(default config\)\s+(.+?)\s+(\d+)\s+(\d\.\d{3})\s+(\d+)\s+(\d+)", done.stdout, re.M)
    assert {ending for ending, *_ in ours} >= {"right after", "cut off inside", "all"}, done.stdout
    assert all(acc == "1.000" and fp == "0" for _, _, acc, fp, _ in ours), done.stdout
