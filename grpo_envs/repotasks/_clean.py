"""The clean project's suite, run three times in parallel sessions: which tests pass, which are
flaky, and (from the first run, under the coverage tracer) which tests run which entity.

A test that passes in some runs and fails, errors or goes missing in another is flaky: it is left
out of every task (neither fail-to-pass nor pass-to-pass) and reported. A test that fails in every
run is simply failing and left out too. The candidates' timeout is a few times the slowest clean
run's wall time (`CleanSuite.timeout_s`)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._coverage import Coverage
from ._runner import SuiteRun, bundle, run_tests
from ._validate import FAILED, PASSED, Outcome


@dataclass
class CleanSuite:
    """The clean runs' result: per test its outcome (a flaky test reads as failed), the flaky
    tests, the coverage (None when not traced), whether a run timed out, and the slowest run's
    seconds."""

    outcomes: dict[str, Outcome] = field(default_factory=dict)
    flaky: tuple[str, ...] = ()
    coverage: Coverage | None = None
    timed_out: bool = False
    seconds: float = 0.0

    @property
    def passing(self) -> int:
        """How many tests passed in every run."""
        return sum(outcome.status == PASSED for outcome in self.outcomes.values())

    def timeout_s(self, cap: float) -> float:
        """A candidate's timeout: 20 s plus three times the slowest clean run, at most ``cap``."""
        return min(cap, 20.0 + 3.0 * self.seconds)


def merge(runs: list[SuiteRun]) -> tuple[dict[str, Outcome], tuple[str, ...]]:
    """The outcomes of several runs of one suite, and its flaky tests (passed in one run, not in
    another: failed, errored, skipped or missing); a flaky test's outcome reads as failed."""
    keys = sorted({key for run in runs for key in run.outcomes})
    outcomes: dict[str, Outcome] = {}
    flaky = []
    for key in keys:
        seen = [run.outcomes.get(key, Outcome(FAILED, "the test did not run")) for run in runs]
        passed = [o.status == PASSED for o in seen]
        if all(passed) or not any(passed):
            outcomes[key] = seen[0]
            continue
        flaky.append(key)
        why = next(o for o in seen if o.status != PASSED)
        outcomes[key] = Outcome(FAILED, f"flaky: passed {sum(passed)} of {len(runs)} clean runs ({why.status})")
    return outcomes, tuple(flaky)


def clean_runs(
    root: Path, open_session: Callable[[], Any], *, budget_s: float, runs: int = 3, trace: bool = True
) -> CleanSuite:
    """Run the clean suite ``runs`` times at once, each in a fresh session; the first under the
    coverage tracer when ``trace``."""
    payload = bundle(root)

    def one(index: int) -> SuiteRun:
        with open_session() as session:
            return run_tests(session, payload, timeout_s=budget_s, trace=trace and index == 0)

    with ThreadPoolExecutor(max_workers=max(1, runs)) as pool:
        done = list(pool.map(one, range(max(1, runs))))
    outcomes, flaky = merge(done)
    return CleanSuite(
        outcomes=outcomes,
        flaky=flaky,
        coverage=done[0].coverage,
        timed_out=any(run.timed_out for run in done),
        seconds=max(run.seconds for run in done),
    )
