"""bench/audit_page.py: a short run prints a row per page size with its first-render time and the
ratio to the smallest page's (1.00 on the first row)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.trainer.test_audit_page import chromium

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_audit_page_bench_prints_a_row_per_size() -> None:
    chromium()  # skipped without it, failed under CI
    cmd = [
        sys.executable,
        str(ROOT / "bench" / "audit_page.py"),
        "--sizes",
        "30,60",
        "--chars",
        "300",
        "--repeats",
        "1",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = re.findall(r"^\s+(\d+)\s+(\d+\.\d)\s+(\d+\.\d\d)\s+(\d+)\s+(\d+\.\d\d)$", done.stdout, flags=re.M)
    assert [int(r[0]) for r in rows] == [30, 60] and rows[0][4] == "1.00", done.stdout
