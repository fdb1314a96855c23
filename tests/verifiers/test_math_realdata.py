"""verifiers.math on real model outputs that no one here wrote (``../shared/realdata``), with the
default config: what users run. The bar: at most 1% of the right completions scored wrong
(false negatives starve GRPO of reward) and at most 0.5% of the wrong ones scored right."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from verifiers import math as vm

sys.path.insert(0, str(Path(__file__).parent))
import realdata  # noqa: E402


def test_real_gsm8k_completions_with_the_default_config() -> None:
    rows = realdata.rows("math/gsm8k_completions.jsonl")
    results = vm.verify_many([str(r["gold"]) for r in rows], [str(r["completion"]) for r in rows])
    fn = [r["id"] for r, v in zip(rows, results, strict=True) if r["label"] and v.correct is not True]
    fp = [r["id"] for r, v in zip(rows, results, strict=True) if not r["label"] and v.correct is True]
    positives = sum(bool(r["label"]) for r in rows)
    negatives = len(rows) - positives
    assert positives > 600 and negatives > 400, "the whole file, both classes"
    assert len(fn) <= 0.01 * positives, f"{len(fn)} false negatives of {positives}: {fn[:10]}"
    assert len(fp) <= 0.005 * negatives, f"{len(fp)} false positives of {negatives}: {fp[:10]}"
    # the wrong completions are judged, not dodged: each states a (wrong) answer we read
    statuses = Counter(v.status for r, v in zip(rows, results, strict=True) if not r["label"])
    assert statuses["incorrect"] >= 0.95 * negatives, statuses
