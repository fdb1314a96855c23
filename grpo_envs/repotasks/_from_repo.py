"""`from_repo`: a Python project with tests in, validated repair task folders out.

Three clean runs of the suite (in parallel; the first under the coverage tracer) find the passing
tests, the flaky ones (left out, reported) and which tests run which entity; candidate bugs from
every source file (tests left alone) are validated in parallel sessions, in batches, each running
only the tests that cover it, until ``max_tasks`` are kept or ``budget_s`` is spent; then up to
``combined`` pairs of kept bugs of one file are validated as harder tasks. Two kept bugs with the
same failing tests and the same normalised messages are one task; a folder is written only once
its bug is validated."""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from grpo_envs.errors import GrpoEnvsError

from ._clean import CleanSuite, clean_runs
from ._combine import pairs
from ._deps import diagnose, download_wheels, project_image, project_requirements
from ._mutate import Mutation, mutations
from ._runner import validate
from ._validate import Validation
from ._write import write_repair_task

log = logging.getLogger(__name__)


class RepoTaskError(GrpoEnvsError):
    """A project cannot give tasks (its suite fails, finds too few tests or does not finish)."""


@dataclass
class RepoReport:
    """What one run did: tasks written (their folders), candidates tried and kept, seconds spent."""

    tasks: list[Path] = field(default_factory=list)
    tried: int = 0
    kept: int = 0
    duplicates: int = 0
    passing_tests: int = 0
    seconds: float = 0.0
    flaky: tuple[str, ...] = ()
    """Tests that passed in some clean runs and not in others: left out of every task."""
    uncovered: int = 0
    """Candidates no test covers: rejected without a run."""
    combined: int = 0
    """Tasks that combine two validated bugs of one file."""
    first_task_s: float | None = None
    """Seconds from the start until the first task folder was written."""


def is_test_file(rel: Path) -> bool:
    """Whether a project file is test code (never mutated; restored before judging)."""
    return (
        rel.name.startswith("test_") or rel.stem.endswith("_test") or rel.name == "conftest.py"
        or any(part in ("tests", "test", "testing") for part in rel.parts[:-1])
    )  # fmt: skip


def _files(project: Path) -> tuple[list[Path], list[Path]]:
    """The project's source files and test files (relative paths)."""
    found = sorted(
        p.relative_to(project)
        for p in project.rglob("*.py")
        if not any(
            part.startswith(".") or part in ("build", "dist", "docs", "__pycache__")
            for part in p.relative_to(project).parts
        )
    )
    tests = [p for p in found if is_test_file(p)]
    return [p for p in found if p not in tests and p.name not in ("setup.py", "noxfile.py", "conftest.py")], tests


def _candidates(project: Path, sources: list[Path], seed: int, per_entity: int) -> Iterator[Mutation]:
    """Candidates from every source file in turn (one from each file, round robin), so the first
    tasks come from many files rather than the first file's first entities."""
    files = [
        mutations((project / rel).read_text(), rel.as_posix(), seed=seed, per_entity=per_entity) for rel in sources
    ]
    while files:
        for each in list(files):
            bug = next(each, None)
            if bug is None:
                files.remove(each)
            else:
                yield bug


def _signature(validation: Validation) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The deduplication key: failing tests and their messages without numbers or addresses."""
    return validation.fail_to_pass, tuple(re.sub(r"0x[0-9a-f]+|\d+", "#", m) for m in validation.messages)


def _clean_run(root: Path, open_session: Callable[[], Any], budget_s: float, runs: int, trace: bool) -> CleanSuite:
    """The clean project's runs; `RepoTaskError` when fewer than 2 tests pass or a run timed out."""
    clean = clean_runs(root, open_session, budget_s=budget_s, runs=runs, trace=trace)
    if clean.timed_out or clean.passing < 2:
        why = "did not finish in the budget" if clean.timed_out else f"has {clean.passing} passing test(s)"
        raise RepoTaskError(
            f"{root}: the test suite {why}{diagnose(clean.outcomes)}; a task needs at least 2 passing tests"
            " (raise --budget-s or fix the suite)"
        )
    if clean.flaky:
        log.warning("%d flaky test(s) left out: %s", len(clean.flaky), ", ".join(clean.flaky[:5]))
    return clean


def _wheels(root: Path, folder: str | Path | None) -> list[Path]:
    """The project's test dependencies as wheels: those in ``folder``, else downloaded (once, into
    a cache folder named by the requirements) when the project names any."""
    if folder is not None:
        return download_wheels([], folder)
    requirements = project_requirements(root)
    if not requirements:
        return []
    key = hashlib.sha256("\n".join(requirements).encode()).hexdigest()[:16]
    cache = Path.home() / ".cache" / "grpo-envs" / "wheels" / key
    log.info("downloading the test dependencies %s", ", ".join(requirements))
    return download_wheels(requirements, cache)


def _image(
    deps: list[Path], image: str | None, open_session: Callable[[], Any] | None, budget_s: float
) -> Callable[[], Any]:
    """The session factory candidates run in: ``open_session``, else sessions of ``image``
    (default: the project's image when it has test dependencies, else the sandbox image)."""
    if open_session is not None:
        return open_session
    if deps and image is None:
        image = project_image(deps)
    from verifiers.sandbox import Session

    return lambda: Session(image=image, timeout_s=budget_s)


@dataclass
class _Job:
    """One `from_repo` run's state: validates batches, deduplicates, writes folders."""

    root: Path
    out: Path
    clean: CleanSuite
    open_session: Callable[[], Any]
    tests: list[str]
    deps: list[Path]
    workers: int
    max_broken: int
    budget_s: float
    start: float
    report: RepoReport
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=set)

    def time_left(self) -> bool:
        return time.monotonic() - self.start < self.budget_s

    def run(self, batch: list[Mutation]) -> Iterator[tuple[Mutation, Validation]]:
        """The batch's kept, new (not duplicate) bugs with their validations; counts the rest."""
        timeout_s = self.clean.timeout_s(cap=max(30.0, self.budget_s - (time.monotonic() - self.start)))
        for mutation, validation in validate(
            self.root, batch, self.clean.outcomes, self.open_session, workers=self.workers,
            timeout_s=timeout_s, max_broken=self.max_broken, coverage=self.clean.coverage,
        ):  # fmt: skip
            self.report.tried += 1
            self.report.uncovered += validation.selected == 0
            if not validation.kept:
                continue
            self.report.kept += 1
            if _signature(validation) in self.seen:
                self.report.duplicates += 1
                continue
            self.seen.add(_signature(validation))
            yield mutation, validation

    def combine(self, kept: list[Mutation], limit: int) -> None:
        """Validate pairs of ``kept`` bugs of one file; write up to ``limit`` of them as tasks."""
        combos = pairs({m.path: (self.root / m.path).read_text() for m in kept}, kept)
        while self.report.combined < limit and self.time_left():
            batch = list(islice(combos, max(1, self.workers)))
            if not batch:
                break
            for mutation, validation in self.run(batch):
                if self.report.combined < limit:
                    self.report.combined += 1
                    self.write(mutation, validation)

    def write(self, mutation: Mutation, validation: Validation) -> None:
        name = f"{mutation.path.replace('/', '.').removesuffix('.py')}.{mutation.entity}.{len(self.report.tasks):03d}"
        self.report.tasks.append(
            write_repair_task(self.out / name, self.root, mutation, validation, test_files=self.tests, wheels=self.deps)
        )
        if self.report.first_task_s is None:
            self.report.first_task_s = time.monotonic() - self.start


def from_repo(
    project: str | Path,
    out: str | Path,
    *,
    max_tasks: int = 10,
    budget_s: float = 300.0,
    seed: int = 0,
    workers: int = 2,
    max_broken: int = 5,
    per_entity: int = 3,
    image: str | None = None,
    open_session: Callable[[], Any] | None = None,
    wheels: str | Path | None = None,
    coverage: bool = True,
    clean_runs: int = 3,
    combined: int = 2,
) -> RepoReport:
    """Write up to ``max_tasks`` validated repair tasks from ``project`` into ``out``, and up to
    ``combined`` more that combine two of them, within about ``budget_s`` seconds (see the module
    docstring); ``coverage=False`` runs the whole suite per candidate, ``clean_runs`` is how many
    clean runs find flaky tests. The project's test dependencies are wheels from the folder
    ``wheels``, or downloaded on the host (`project_requirements`), installed offline into the
    image candidates run in and into each task's. Raises `RepoTaskError` with one line when the
    clean suite has fewer than 2 passing tests or does not finish."""
    start, root = time.monotonic(), Path(project).resolve()
    if not root.is_dir():
        raise RepoTaskError(f"{root}: no such folder; give the root of a Python project with tests")
    deps = _wheels(root, wheels)
    open_session = _image(deps, image, open_session, budget_s)
    sources, tests = _files(root)
    clean = _clean_run(root, open_session, budget_s, clean_runs, coverage)
    report = RepoReport(passing_tests=clean.passing, flaky=clean.flaky)
    job = _Job(
        root, Path(out), clean, open_session, [t.as_posix() for t in tests], deps,
        workers, max_broken, budget_s, start, report,
    )  # fmt: skip
    kept: list[Mutation] = []
    candidates = _candidates(root, sources, seed, per_entity)
    while len(report.tasks) < max_tasks and job.time_left():
        batch = list(islice(candidates, max(1, workers)))
        if not batch:
            break
        for mutation, validation in job.run(batch):
            if len(report.tasks) < max_tasks:
                kept.append(mutation)
                job.write(mutation, validation)
    job.combine(kept, combined)
    report.seconds = time.monotonic() - start
    log.info(
        "%d tasks (%d combined) from %d candidates (%d kept, %d uncovered) in %.0f s",
        len(report.tasks), report.combined, report.tried, report.kept, report.uncovered, report.seconds,
    )  # fmt: skip
    return report
