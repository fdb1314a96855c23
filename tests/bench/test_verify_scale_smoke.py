"""bench/verify_scale.py: a smoke run (math, one small batch) prints a row per executor and a
ratio Ray/local measured in the same run. The script puts Ray in a loopback-only network
namespace itself; where none can be made the test skips, visibly (it fails in CI)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "verifiers"))

from ray_netns import need_namespace  # noqa: E402


@pytest.mark.slow
def test_verify_scale_prints_both_executors_and_a_ratio() -> None:
    need_namespace()
    cmd = [sys.executable, str(ROOT / "bench" / "verify_scale.py"), "--sizes", "32", "--no-code", "--repeats", "1"]
    done = subprocess.run([*cmd, "--json"], capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout.strip().splitlines()[-1])["rows"]
    assert [(r["kind"], r["n"], r["executor"]) for r in rows] == [("math", 32, "local"), ("math", 32, "ray")]
    assert all(r["judged"] == 32 and r["per_s"] > 0 for r in rows)
    assert rows[1]["ratio"] > 0
    assert "ray/local" in done.stdout and "ms/verdict" in done.stdout
