"""`from_repo`: a Python project with tests in, validated repair task folders out.

One clean run of the suite finds the passing tests; candidate bugs from every source file (tests
left alone) are validated in parallel sessions, in batches, until ``max_tasks`` are kept or
``budget_s`` is spent; two kept bugs with the same failing tests and the same normalised messages
are one task; a folder is written only once its bug is validated."""

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

from ._deps import diagnose, download_wheels, project_image, project_requirements
from ._mutate import Mutation, mutations
from ._runner import bundle, run_suite, validate
from ._validate import PASSED, Outcome, Verdict
from ._write import write_task

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


def _signature(verdict: Verdict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The deduplication key: failing tests and their messages without numbers or addresses."""
    return verdict.fail_to_pass, tuple(re.sub(r"0x[0-9a-f]+|\d+", "#", m) for m in verdict.messages)


def _clean_run(root: Path, open_session: Callable[[], Any], budget_s: float) -> dict[str, Outcome]:
    """The clean project's test outcomes; `RepoTaskError` when fewer than 2 pass or it timed out."""
    with open_session() as session:
        clean, timed_out = run_suite(session, bundle(root), timeout_s=budget_s)
    passing = sum(o.status == PASSED for o in clean.values())
    if timed_out or passing < 2:
        why = "did not finish in the budget" if timed_out else f"has {passing} passing test(s)"
        raise RepoTaskError(
            f"{root}: the test suite {why}{diagnose(clean)}; a task needs at least 2 passing tests"
            " (raise --budget-s or fix the suite)"
        )
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
) -> RepoReport:
    """Write up to ``max_tasks`` validated repair tasks from ``project`` into ``out`` within about
    ``budget_s`` seconds (see the module docstring); raises `RepoTaskError` with one line when
    the clean suite has no passing test. The project's test dependencies are wheels from the folder
    ``wheels``, or downloaded on the host (`project_requirements`), installed offline into the
    image candidates run in and into each task's."""
    start, root, out = time.monotonic(), Path(project).resolve(), Path(out)
    if not root.is_dir():
        raise RepoTaskError(f"{root}: no such folder; give the root of a Python project with tests")
    deps = _wheels(root, wheels)
    open_session = _image(deps, image, open_session, budget_s)
    sources, tests = _files(root)
    clean = _clean_run(root, open_session, budget_s)
    report = RepoReport(passing_tests=sum(o.status == PASSED for o in clean.values()))
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    candidates = _candidates(root, sources, seed, per_entity)
    while len(report.tasks) < max_tasks and time.monotonic() - start < budget_s:
        batch = list(islice(candidates, max(1, workers)))
        if not batch:
            break
        for mutation, verdict in validate(root, batch, clean, open_session, workers=workers, max_broken=max_broken):
            report.tried += 1
            if not verdict.kept:
                continue
            report.kept += 1
            if _signature(verdict) in seen or len(report.tasks) >= max_tasks:
                report.duplicates += _signature(verdict) in seen
                continue
            seen.add(_signature(verdict))
            name = f"{mutation.path.replace('/', '.').removesuffix('.py')}.{mutation.entity}.{len(report.tasks):03d}"
            files = [t.as_posix() for t in tests]
            report.tasks.append(write_task(out / name, root, mutation, verdict, test_files=files, wheels=deps))
    report.seconds = time.monotonic() - start
    log.info(
        "%d tasks from %d candidates (%d kept) in %.0f s", len(report.tasks), report.tried, report.kept, report.seconds
    )
    return report
