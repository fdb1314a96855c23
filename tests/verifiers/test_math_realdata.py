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


def test_real_long_chain_of_thought_outputs_are_read_after_their_thinking() -> None:
    """Sky-T1 outputs (``<|begin_of_thought|> ... <|end_of_thought|> <|begin_of_solution|> ...``):
    the labels are noisy (a cut-off output graded true by a last-number fallback), so the bar is
    on what a right answer looks like: every labelled-true output whose solution section holds a
    box is correct, and no labelled-false output is paid."""
    from verifiers.structure import read_completion

    rows = [r for r in realdata.rows("math/longcot_skyt1_aime_amc.jsonl") if r["label"] is not None]
    results = vm.verify_many([str(r["gold"]) for r in rows], [str(r["completion"]) for r in rows])
    agree = sum((v.correct is True) == bool(r["label"]) for r, v in zip(rows, results, strict=True))
    fp = [r["id"] for r, v in zip(rows, results, strict=True) if not r["label"] and v.correct is True]
    boxed_right = [
        (r, v)
        for r, v in zip(rows, results, strict=True)
        if r["label"] and "\\boxed{" in (read_completion(r["completion"]).final or "")
    ]
    assert len(rows) >= 150 and len(boxed_right) >= 30, "the whole file"
    assert [r["id"] for r, v in boxed_right if v.correct is not True] == []
    assert fp == [], fp
    assert agree >= 0.98 * len(rows), f"{agree} of {len(rows)} agree with the labels"
    # an output cut off inside its thinking commits to nothing, with the reason
    cut = [
        v
        for r, v in zip(rows, results, strict=True)
        if "<|begin_of_thought|>" in r["completion"] and "<|end_of_thought|>" not in r["completion"]
    ]
    assert cut and all(v.status == "no_answer" and "never closed" in v.reason for v in cut)
