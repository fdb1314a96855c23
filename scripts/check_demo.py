"""The demo's learning bar: the correct rate of the last 10 steps is >= 0.5 above the first 10."""

from __future__ import annotations

import json
import sys
from pathlib import Path

run = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/demo")
rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines() if line.strip()]
first = sum(r["correct_rate"] for r in rows[:10]) / 10
last = sum(r["correct_rate"] for r in rows[-10:]) / 10
evals = [json.loads(line) for line in (run / "eval.jsonl").read_text().splitlines() if line.strip()]
print(f"correct rate: first 10 steps {first:.3f}, last 10 steps {last:.3f} (bar: +0.500, got {last - first:+.3f})")
print(f"eval accuracy on unseen eval seeds at step {evals[-1]['step']}: {evals[-1]['accuracy']:.3f}")
for name in ("metrics.jsonl", "curves.png", "final/config.json"):
    print(f"  {run / name}: {'ok' if (run / name).exists() else 'missing'}")
sys.exit(0 if last - first >= 0.5 else 1)
