"""Benchmark: `grpo-envs tasks from-repo` with coverage-selected tests against the whole suite per
candidate, on one project, in one run.

    python bench/repo_tasks.py [--budget-s 120] [--workers 2] [--seed 0] [--per-entity 3] [--pairs 16]
                               [--project PATH | --sdist NAME==VERSION]

Both modes make tasks from the same project with the same seed (so the same candidates, in the
same order) within the same time budget, the clock starting before the clean runs, side by side
(at the same time, each with ``--workers`` sessions), so that both see the same load on a shared
machine (run one after the other, a neighbour's build in one mode's slot decides the ratio):

    whole suite   every candidate runs every clean-passing test (``coverage=False``): the baseline
    coverage      one clean run under the tracer; a candidate runs only the tests that ran its
                  entity, and one that no test ran is rejected without a session

Both do three clean runs (flaky tests), the ``--maxfail`` early stop and the timeout from the clean
run's time; combinations are off (they would only add the same work to both). Printed per mode:
candidates tried, kept, the share kept, candidates no test covers, tasks written, validated tasks
per minute, seconds to the first task, and the ratio of tasks per minute. The soundness check: of
the whole-suite tasks, how many the coverage run also wrote with the same failing tests (both
runs see the same candidates first, so every one it tried should be there).

A second table is robust to a neighbour's load: the first ``--pairs`` candidates validated one at a
time, each in both modes back to back (which mode goes first alternates), so both modes of one
candidate see the same load: seconds per candidate (median and total) and the ratio of totals.

The default project is a small synthetic library written below (3 modules, 30 tests: a "small
suite"); ``--sdist`` downloads a real project's source distribution with pip on the host (PyPI).
Needs the Docker engine and the sandbox image.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grpo_envs.repotasks import RepoReport, from_repo  # noqa: E402
from grpo_envs.repotasks._clean import clean_runs  # noqa: E402
from grpo_envs.repotasks._from_repo import _candidates, _files  # noqa: E402
from grpo_envs.repotasks._runner import validate  # noqa: E402

SHOP = {
    "shop/__init__.py": '"""A tiny shop: prices, carts and codes."""\n',
    "shop/prices.py": """def with_tax(amount, rate):
    return round(amount * (1 + rate), 2)


def discount(amount, percent):
    if percent < 0 or percent > 100:
        raise ValueError("percent out of range")
    return amount - amount * percent / 100


def bulk_price(unit, count):
    if count >= 10:
        return unit * count * 0.9
    return unit * count


def cents(amount):
    return int(round(amount * 100))
""",
    "shop/cart.py": """from .prices import bulk_price, discount


class Cart:
    def __init__(self):
        self.items = {}

    def add(self, name, unit, count=1):
        if count <= 0:
            raise ValueError("count must be positive")
        old = self.items.get(name, (unit, 0))
        self.items[name] = (unit, old[1] + count)

    def remove(self, name):
        unit, count = self.items[name]
        if count > 1:
            self.items[name] = (unit, count - 1)
        else:
            del self.items[name]

    def total(self, percent=0):
        subtotal = 0
        for unit, count in self.items.values():
            subtotal += bulk_price(unit, count)
        return discount(subtotal, percent)

    def names(self):
        return sorted(self.items)[:10]
""",
    "shop/codes.py": """def normalise(code):
    return code.strip().upper().replace(" ", "")


def checksum(code):
    total = 0
    for i, ch in enumerate(normalise(code)):
        total += (i + 1) * ord(ch)
    return total % 97


def is_valid(code):
    body = normalise(code)
    if len(body) < 4:
        return False
    return checksum(body[:-2]) == int(body[-2:])


def make(prefix, number):
    body = f"{prefix}{number:04d}"
    return f"{body}{checksum(body):02d}"
""",
    "tests/test_prices.py": """import pytest

from shop.prices import bulk_price, cents, discount, with_tax


def test_with_tax():
    assert with_tax(100, 0.2) == 120.0


def test_with_tax_zero():
    assert with_tax(10, 0) == 10


def test_discount():
    assert discount(200, 25) == 150


def test_discount_none():
    assert discount(80, 0) == 80


def test_discount_range():
    with pytest.raises(ValueError):
        discount(10, 101)


def test_bulk_small():
    assert bulk_price(2, 3) == 6


def test_bulk_large():
    assert bulk_price(1, 10) == 9


def test_cents():
    assert cents(1.23) == 123


def test_cents_round():
    assert cents(0.015) in (1, 2)


def test_cents_zero():
    assert cents(0) == 0
""",
    "tests/test_cart.py": """import pytest

from shop.cart import Cart


def test_empty_total():
    assert Cart().total() == 0


def test_add_and_total():
    cart = Cart()
    cart.add("pen", 2, 3)
    assert cart.total() == 6


def test_add_twice():
    cart = Cart()
    cart.add("pen", 2)
    cart.add("pen", 2)
    assert cart.items["pen"] == (2, 2)


def test_add_bad_count():
    with pytest.raises(ValueError):
        Cart().add("pen", 2, 0)


def test_remove_one():
    cart = Cart()
    cart.add("pen", 2, 2)
    cart.remove("pen")
    assert cart.items["pen"] == (2, 1)


def test_remove_last():
    cart = Cart()
    cart.add("pen", 2)
    cart.remove("pen")
    assert cart.names() == []


def test_total_with_discount():
    cart = Cart()
    cart.add("ink", 10, 2)
    assert cart.total(50) == 10


def test_total_bulk():
    cart = Cart()
    cart.add("clip", 1, 10)
    assert cart.total() == 9


def test_names_sorted():
    cart = Cart()
    for name in "cab":
        cart.add(name, 1)
    assert cart.names() == ["a", "b", "c"]


def test_names_capped():
    cart = Cart()
    for i in range(12):
        cart.add(f"item{i:02d}", 1)
    assert len(cart.names()) == 10
""",
    "tests/test_codes.py": """from shop.codes import checksum, is_valid, make, normalise


def test_normalise():
    assert normalise(" ab c ") == "ABC"


def test_checksum_stable():
    assert checksum("AB") == checksum(" ab ")


def test_checksum_range():
    assert 0 <= checksum("ZZZZZZ") < 97


def test_make_valid():
    assert is_valid(make("AB", 12))


def test_make_shape():
    assert make("AB", 7).startswith("AB0007")


def test_short_invalid():
    assert not is_valid("AB1")


def test_tampered_invalid():
    code = make("AB", 12)
    assert not is_valid(code[:-2] + f"{(int(code[-2:]) + 1) % 97:02d}")


def test_make_lower_prefix():
    assert is_valid(make("ab", 3).lower())


def test_checksum_order():
    assert checksum("AB") != checksum("BA")


def test_normalise_inner_spaces():
    assert normalise("a b") == "AB"
""",
}


def shop(root: Path) -> Path:
    """The synthetic project under ``root``."""
    for rel, text in SHOP.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def sdist(spec: str, root: Path) -> Path:
    """A real project's source distribution, downloaded with pip and unpacked under ``root``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", spec, "-d", str(root)],
        check=True,
    )
    archive = next(root.glob("*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(root, filter="data")
    return next(p for p in root.iterdir() if p.is_dir())


def signatures(report: RepoReport) -> set[tuple[str, str]]:
    """Each task as (its fix, its expected tests' names): what both modes should agree on."""
    return {
        ((t / "solution" / "fix.patch").read_text(), (t / "tests" / "expected.json").read_text()) for t in report.tasks
    }


def row(name: str, report: RepoReport) -> str:
    per_min = 60 * len(report.tasks) / report.seconds
    first = f"{report.first_task_s:.0f}" if report.first_task_s is not None else "-"
    share = report.kept / report.tried if report.tried else 0.0
    return (
        f"| {name} | {report.tried} | {report.kept} | {share:.0%} | {report.uncovered} | {len(report.tasks)} "
        f"| {per_min:.1f} | {first} | {report.seconds:.0f} |"
    )


def pairs(project: Path, count: int, seed: int, per_entity: int) -> None:
    """The paired table: each of the first ``count`` candidates in both modes, back to back."""
    from verifiers.sandbox import Session

    def open_session() -> Session:
        return Session(timeout_s=300)

    clean = clean_runs(project, open_session, budget_s=300, runs=1, trace=True)
    sources, _ = _files(project)
    seconds: dict[str, list[float]] = {"whole suite": [], "coverage": []}
    kept = dict.fromkeys(seconds, 0)
    for i, mutation in enumerate(islice(_candidates(project, sources, seed, per_entity), count)):
        verdicts = {}
        for name in sorted(seconds, reverse=bool(i % 2)):
            start = time.monotonic()
            ((_, verdict),) = validate(
                project, [mutation], clean.outcomes, open_session, workers=1, timeout_s=clean.timeout_s(120),
                coverage=clean.coverage if name == "coverage" else None,
            )  # fmt: skip
            seconds[name].append(time.monotonic() - start)
            kept[name] += verdict.kept
            verdicts[name] = (verdict.kept, verdict.fail_to_pass if verdict.kept else (), verdict.timed_out)
        if len(set(verdicts.values())) > 1:
            print(f"verdicts differ on {mutation.path}:{mutation.line} {mutation.technique}: {verdicts}")
    print("\n| mode (paired, one candidate at a time) | candidates | kept | median s | total s |")
    print("|---|---|---|---|---|")
    for name, xs in seconds.items():
        print(f"| {name} | {len(xs)} | {kept[name]} | {statistics.median(xs):.2f} | {sum(xs):.0f} |")
    ratio = sum(seconds["whole suite"]) / max(sum(seconds["coverage"]), 1e-9)
    print(f"\nseconds per candidate, whole suite / coverage (paired): {ratio:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget-s", type=float, default=120.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-entity", type=int, default=3, help="candidate sites per function or class")
    parser.add_argument("--pairs", type=int, default=16, help="candidates in the paired table (0: none)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--project", type=Path, help="a project folder (default: the synthetic shop)")
    where.add_argument("--sdist", help="NAME==VERSION of a pure-Python project on PyPI whose sdist has its tests")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-repo-tasks-") as tmp:
        base = Path(tmp)
        project = args.project or (sdist(args.sdist, base / "sdist") if args.sdist else shop(base / "shop"))

        def run(mode: tuple[str, bool]) -> RepoReport:
            return from_repo(
                project, base / mode[0].replace(" ", "-"), max_tasks=1000, budget_s=args.budget_s,
                workers=args.workers, seed=args.seed, per_entity=args.per_entity, combined=0, coverage=mode[1],
            )  # fmt: skip

        modes = [("whole suite", False), ("coverage", True)]
        with ThreadPoolExecutor(max_workers=2) as pool:
            reports = dict(zip([m[0] for m in modes], pool.map(run, modes), strict=True))
        whole, cover = reports["whole suite"], reports["coverage"]
        label = args.project or args.sdist or "synthetic shop (3 modules, 30 tests)"
        print(f"project: {label}; {whole.passing_tests} passing tests, flaky left out: {len(whole.flaky)}")
        print(
            f"budget {args.budget_s:.0f} s per mode, {args.workers} workers, seed {args.seed},"
            f" {args.per_entity} sites per entity\n"
        )
        print("| mode | tried | kept | kept share | uncovered | tasks | tasks/min | first task (s) | seconds |")
        print("|---|---|---|---|---|---|---|---|---|")
        for name, report in reports.items():
            print(row(name, report))
        ratio = (len(cover.tasks) / cover.seconds) / max(len(whole.tasks) / whole.seconds, 1e-9)
        agreed = len(signatures(whole) & signatures(cover))
        print(f"\ntasks per minute, coverage / whole suite: {ratio:.2f}x")
        print(
            f"whole-suite tasks the coverage run also wrote (same fix, same tests): {agreed}/{len(whole.tasks)}"
            f" (candidates tried: whole suite {whole.tried}, coverage {cover.tried})"
        )
        print(json.dumps({"ratio": round(ratio, 2), "agreed": agreed, "whole_tasks": len(whole.tasks)}))
        if args.pairs:
            pairs(project, args.pairs, args.seed, args.per_entity)


if __name__ == "__main__":
    main()
