"""Benchmark: our math verifier vs plain string match vs HF Math-Verify, on our labeled tables
and on real model outputs that no one here wrote.

    python bench/math_verify.py [--cases tests/verifiers/math_table.py] [--real FILE.jsonl ...] [--workers N]

All judges score the same (gold, completion) rows in the same run. For the tables, printed per
judge: accuracy (verdict == label), false-positive rate (judged correct, labeled not),
false-negative rate, p50/p99 latency of one sequential call, cases/s sequentially and in
parallel, and the ratios against Math-Verify. For each real set (default:
``../shared/realdata/math/gsm8k_completions.jsonl``; any JSONL with ``gold``, ``completion`` and
a boolean ``label``): ours with the default config, ours with the GSM8K config
(``last_number_fallback``), string match and Math-Verify, with accuracy, FP, FN and cases/s, one
run. Math-Verify is the peer (`pip install 'math-verify[antlr4_13_2]'`); it is used here only,
never by the library.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing as mp
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# This file is named like the peer's package: keep its folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]


def load_cases(paths: Sequence[Path]) -> list[tuple[str, str, str, bool]]:
    rows = []
    for path in paths:
        sys.path.insert(0, str(path.parent))  # the tables import each other's Case
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        rows += [(c.category, c.gold, c.completion, c.status == "correct") for c in module.CASES]
    return rows


# -- judges ----------------------------------------------------------------------------------
def ours(gold: str, completion: str) -> bool:
    from verifiers import math as vm

    return vm.verify(gold, completion).correct is True


def _clean(s: str) -> str:
    return re.sub(r"\s+|\$|\\[,!;]", "", s).rstrip(".")


def string_match(gold: str, completion: str) -> bool:
    from verifiers.math import extract_answer

    answer = extract_answer(completion)
    return answer is not None and _clean(answer) == _clean(gold)


def math_verify(gold: str, completion: str) -> bool:
    from math_verify import parse, verify

    try:
        return bool(verify(parse(f"${gold}$"), parse(completion)))
    except Exception:
        return False


def ours_gsm8k(gold: str, completion: str) -> bool:
    from verifiers import math as vm

    return vm.verify(gold, completion, config=vm.MathConfig(last_number_fallback=True)).correct is True


def load_real(path: Path) -> list[tuple[str, str, bool]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [(r["gold"], r["completion"], r["label"]) for r in rows if isinstance(r.get("label"), bool)]


def real_table(path: Path) -> None:
    """One run of four judges over a real labeled set: accuracy, FP, FN, cases/s."""
    cases = load_real(path)
    labels = [lab for *_, lab in cases]
    pos = sum(labels)
    print(f"\nreal outputs: {path} ({len(cases)} rows, {pos} right, {len(cases) - pos} wrong)")
    header = f"{'judge':<22}{'accuracy':>9}{'FP':>5}{'FP rate':>9}{'FN':>5}{'FN rate':>9}{'cases/s':>9}"
    print(header)
    print("-" * len(header))
    accuracy = {}
    for name, judge in (
        ("grpo-envs default", ours),
        ("grpo-envs gsm8k cfg", ours_gsm8k),
        ("string match", string_match),
        ("math-verify", math_verify),
    ):
        verdicts, times = sequential(judge, [(g, c) for g, c, _ in cases])
        acc, fpr, fnr, fp, fn = scores(verdicts, labels)
        accuracy[name] = acc
        print(f"{name:<22}{acc:>9.3f}{fp:>5}{fpr:>9.3f}{fn:>5}{fnr:>9.3f}{len(cases) / sum(times):>9.0f}")
    ratio = accuracy["grpo-envs default"] / accuracy["math-verify"]
    print(f"ratio vs math-verify (default config): accuracy {ratio:.3f}x")


def _mv_row(row: tuple[str, str]) -> bool:
    return math_verify(*row)


# -- measurement -----------------------------------------------------------------------------
def sequential(judge: Callable[[str, str], bool], rows: Sequence[tuple[str, str]]) -> tuple[list[bool], list[float]]:
    verdicts, times = [], []
    for gold, completion in rows:
        start = time.perf_counter()
        verdicts.append(judge(gold, completion))
        times.append(time.perf_counter() - start)
    return verdicts, times


def scores(verdicts: Sequence[bool], labels: Sequence[bool]) -> tuple[float, float, float, int, int]:
    pos = sum(labels)
    neg = len(labels) - pos
    fp = sum(v and not lab for v, lab in zip(verdicts, labels, strict=True))
    fn = sum(lab and not v for v, lab in zip(verdicts, labels, strict=True))
    acc = 1 - (fp + fn) / len(labels)
    return acc, fp / max(neg, 1), fn / max(pos, 1), fp, fn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cases",
        type=Path,
        nargs="+",
        default=sorted((ROOT / "tests/verifiers").glob("math_table*.py")),
        help="labeled tables (default: every tests/verifiers/math_table*.py)",
    )
    parser.add_argument(
        "--real",
        type=Path,
        nargs="*",
        default=[p for p in [ROOT.parent / "shared/realdata/math/gsm8k_completions.jsonl"] if p.exists()],
        help="real labeled model outputs, JSONL with gold/completion/label (default: shared/realdata's GSM8K set)",
    )
    parser.add_argument("--workers", type=int, default=None, help="parallel workers (default: CPUs)")
    parser.add_argument("--show-errors", action="store_true", help="list the rows each judge gets wrong")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from verifiers import math as vm
    from verifiers._pool import cpu_count

    cases = load_cases(args.cases)
    rows = [(g, c) for _, g, c, _ in cases]
    labels = [lab for *_, lab in cases]
    workers = args.workers or cpu_count()
    print(f"{len(cases)} labeled cases ({sum(labels)} correct), {workers} workers\n")
    plain = [k for k, (_, g, _, _) in enumerate(cases) if re.fullmatch(r"-?[\d,]*\.?\d+", g)]

    vm.verify("1", r"\boxed{x}")  # start the worker pool outside the timings
    results: dict[str, dict[str, float]] = {}
    wrong: dict[str, list[int]] = {}
    plain_p50: dict[str, float] = {}
    for name, judge in (
        ("grpo-envs", ours),
        ("string match", string_match),
        ("math-verify", math_verify),
    ):
        verdicts, times = sequential(judge, rows)
        plain_p50[name] = statistics.median(times[k] for k in plain) * 1e3 if plain else float("nan")
        acc, fpr, fnr, fp, fn = scores(verdicts, labels)
        wrong[name] = [k for k, (v, lab) in enumerate(zip(verdicts, labels, strict=True)) if v != lab]
        results[name] = {
            "acc": acc,
            "fpr": fpr,
            "fnr": fnr,
            "fp": fp,
            "fn": fn,
            "p50": statistics.median(times) * 1e3,
            "p99": statistics.quantiles(times, n=100)[98] * 1e3,
            "seq": len(rows) / sum(times),
        }

    start = time.perf_counter()
    vm.verify_many([g for g, _ in rows], [c for _, c in rows], workers=workers)
    results["grpo-envs"]["par"] = len(rows) / (time.perf_counter() - start)
    with mp.get_context("spawn").Pool(workers) as pool:
        pool.map(_mv_row, rows[:workers])  # warm the workers' imports
        start = time.perf_counter()
        pool.map(_mv_row, rows, chunksize=8)
        results["math-verify"]["par"] = len(rows) / (time.perf_counter() - start)
    results["string match"]["par"] = results["string match"]["seq"]

    header = (
        f"{'judge':<14}{'accuracy':>9}{'FP rate':>9}{'FN rate':>9}{'FP':>5}{'FN':>5}"
        f"{'p50 ms':>9}{'p99 ms':>9}{'seq/s':>9}{'par/s':>9}"
    )
    print(header)
    print("-" * len(header))
    for name, r in results.items():
        print(
            f"{name:<14}{r['acc']:>9.3f}{r['fpr']:>9.3f}{r['fnr']:>9.3f}{r['fp']:>5.0f}{r['fn']:>5.0f}"
            f"{r['p50']:>9.2f}{r['p99']:>9.2f}{r['seq']:>9.0f}{r['par']:>9.0f}"
        )
    o, m = results["grpo-envs"], results["math-verify"]
    print(
        f"\nratios vs math-verify: accuracy {o['acc'] / m['acc']:.3f}x, "
        f"p50 latency {o['p50'] / m['p50']:.2f}x, "
        f"sequential throughput {o['seq'] / m['seq']:.1f}x, "
        f"verify_many vs parallel math-verify {o['par'] / m['par']:.1f}x, "
        f"verify_many vs sequential math-verify {o['par'] / m['seq']:.1f}x"
    )
    print(
        f"plain numeric golds ({len(plain)} rows), p50 latency: grpo-envs "
        f"{plain_p50['grpo-envs']:.2f} ms, math-verify {plain_p50['math-verify']:.2f} ms"
    )
    by_category: dict[str, list[int]] = {}
    for k, (cat, *_rest) in enumerate(cases):
        by_category.setdefault(cat, []).append(k)
    print(f"\n{'category':<16}{'rows':>6}" + "".join(f"{n:>14}" for n in results))
    for cat, ks in by_category.items():
        cells = "".join(f"{1 - len(set(ks) & set(wrong[n])) / len(ks):>14.3f}" for n in results)
        print(f"{cat:<16}{len(ks):>6}{cells}")
    if args.show_errors:
        for name, ks in wrong.items():
            print(f"\n{name} is wrong on:")
            for k in ks:
                cat, gold, completion, label = cases[k]
                print(f"  [{cat}] gold={gold!r} label={label} completion={completion[-100:]!r}")
    for path in args.real:
        real_table(path)


if __name__ == "__main__":
    main()
