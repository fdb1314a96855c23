"""Benchmark: where the answer is, in every reasoning-model family's format: ours vs HF Math-Verify.

    python bench/thinking_zoo.py

Completions are built from the raw family shapes of ``tests/verifiers/thinking_shapes.py``
(written from each family's chat template and vLLM's reasoning parser) and four endings per
shape and gold: the right answer after the thinking (labelled right), the right answer only in
the thinking with a wrong final answer, with no final answer, and a thinking section cut off
(all three labelled wrong). Both judges score the same rows in one run; printed per judge and
per ending: accuracy, false positives (paid though wrong), false negatives. Math-Verify
(`pip install 'math-verify[antlr4_13_2]'`) is the peer, used here only.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bench/math_verify.py is named like the peer's package: keep this folder off the import path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT / "tests" / "verifiers"))
from thinking_shapes import SHAPES, render  # noqa: E402

from verifiers import math as vm  # noqa: E402

GOLDS = [("42", "43"), ("\\frac{3}{4}", "\\frac{4}{3}"), ("(2, -1)", "(-1, 2)"), ("x^2+1", "x^2-1")]


def rows() -> list[tuple[str, str, str, bool, str]]:
    """(family, ending, gold, completion, label) for every shape, gold and ending."""
    out = []
    for name, closed, cut in SHAPES:
        for gold, wrong in GOLDS:
            right = f"Let me work it out.\nSo the answer is $\\boxed{{{gold}}}$. Hmm"
            out.append(
                (
                    name,
                    "right after",
                    gold,
                    render(closed, "Let me work it out.", f"The answer is $\\boxed{{{gold}}}$."),
                    True,
                )
            )
            out.append(
                (
                    name,
                    "right inside, wrong after",
                    gold,
                    render(closed, right, f"The answer is $\\boxed{{{wrong}}}$."),
                    False,
                )
            )
            out.append(
                (name, "right inside, no answer after", gold, render(closed, right, "I could not finish."), False)
            )
            if cut is not None:
                out.append((name, "cut off inside", gold, render(cut, right + ", wait"), False))
    return out  # type: ignore[return-value]


def math_verify_judge() -> object | None:
    try:
        from math_verify import parse, verify
    except ImportError:
        return None

    def judge(gold: str, completion: str) -> bool:
        try:
            return bool(verify(parse(f"${gold}$"), parse(completion)))
        except Exception:
            return False

    return judge


def main() -> None:
    cases = rows()
    judges = {"ours (default config)": lambda g, c: vm.verify(g, c).correct is True}
    peer = math_verify_judge()
    if peer is not None:
        judges["Math-Verify"] = peer  # type: ignore[assignment]
    print(f"{len(cases)} completions over {len(SHAPES)} family shapes x {len(GOLDS)} golds\n")
    header = f"{'judge':<24}{'ending':<32}{'rows':>6}{'accuracy':>10}{'FP':>5}{'FN':>5}"
    print(header + f"{'ms/row':>8}")
    print("-" * (len(header) + 8))
    for name, judge in judges.items():
        per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        start = time.perf_counter()
        for _, ending, gold, completion, label in cases:
            paid = judge(gold, completion)
            stats = per[ending]
            stats[0] += 1
            stats[1] += paid == label
            stats[2] += paid and not label
            stats[3] += label and not paid
        took = (time.perf_counter() - start) / len(cases) * 1000
        total = [sum(s[k] for s in per.values()) for k in range(4)]
        for ending, (n, ok, fp, fn) in [*per.items(), ("all", total)]:
            print(f"{name:<24}{ending:<32}{n:>6}{ok / n:>10.3f}{fp:>5}{fn:>5}{took:>8.2f}")
        print()


if __name__ == "__main__":
    main()
