"""Run a project's test suite in a sandbox session and validate candidate bugs in parallel sessions.

The sandbox image has no pytest and containers have no network, so pytest and its pure-Python
dependencies are copied from the host's own installation into the session (``/work/site`` on
``PYTHONPATH``) together with the project (``/work/proj``), as one tar stream. pytest runs unittest
suites too. The bundled plugin `_cover_plugin` (``-p _grpo_cover``) records which tests run which
entity in the clean run and runs only the selected tests of a candidate (`_coverage`).

A candidate stops at its first evidence: ``--maxfail`` one past the break cap (a candidate that
reaches it is rejected anyway, and the tests it did not reach count as failed), and a timeout of
a few times the clean suite's own time (a bug that makes a loop spin is rejected as soon as it
has clearly outrun the clean run). Stopping at the first failure (``-x``) would be wrong: the keep
rule needs to know that no more than ``max_broken`` tests break, and that some still pass, so
every selected test runs unless the cap is already broken."""

from __future__ import annotations

import functools
import io
import tarfile
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from verifiers.errors import SandboxError

from ._coverage import PLUGIN, Coverage, plugin_source
from ._mutate import Mutation
from ._validate import FAILED, PASSED, Outcome, Validation, parse_junit, validate_candidate

_LIBS = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py")
_SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".venv", "node_modules"}
REPORT = "/work/report.xml"
COVER, COLLECTED, SELECT = "/work/cover.json", "/work/collected.txt", "/work/select.txt"


def _add_tree(tar: tarfile.TarFile, root: Path, arcname: str, replaced: dict[str, str]) -> None:
    """Add ``root`` under ``arcname``, without caches and bytecode; ``replaced`` maps a relative
    path to the text that replaces it (the broken file)."""
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part in _SKIP_DIRS for part in rel.parts) or path.suffix in (".pyc", ".pyo") or not path.is_file():
            continue
        data = replaced[rel.as_posix()].encode() if rel.as_posix() in replaced else path.read_bytes()
        info = tarfile.TarInfo(f"{arcname}/{rel.as_posix()}")
        info.size, info.mode = len(data), 0o644
        tar.addfile(info, io.BytesIO(data))


@functools.cache
def _site(site: Path) -> bytes:
    """The host's pytest, its pure-Python dependencies and the coverage plugin as tar members
    under ``site/`` (a tar stream without its end marker), made once per process."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for name in _LIBS:
            if (site / name).is_dir():
                _add_tree(tar, site / name, f"site/{name}", {})
            elif (site / name).is_file():
                tar.add(site / name, f"site/{name}")
        plugin = plugin_source()
        info = tarfile.TarInfo(f"site/{PLUGIN}.py")
        info.size, info.mode = len(plugin), 0o644
        tar.addfile(info, io.BytesIO(plugin))
        members = out.getvalue()[: tar.offset]  # without the end marker: the project follows
    return members


def bundle(project: Path, replaced: dict[str, str] | None = None) -> bytes:
    """The project and the host's pytest as one tar stream for ``tar -x -C /work``."""
    import pytest  # the host's: copied, never imported in the container from here

    out = io.BytesIO(_site(Path(pytest.__file__).parent.parent))
    out.seek(0, io.SEEK_END)
    with tarfile.open(fileobj=out, mode="w") as tar:
        _add_tree(tar, project, "proj", replaced or {})
    return out.getvalue()


@dataclass
class SuiteRun:
    """One run of the suite: each test's outcome, whether it timed out, the ids it collected
    (None: not asked), the coverage it recorded (None: not asked) and its wall time."""

    outcomes: dict[str, Outcome] = field(default_factory=dict)
    timed_out: bool = False
    collected: set[str] | None = None
    coverage: Coverage | None = None
    seconds: float = 0.0


def run_tests(
    session: Any,
    bundle_bytes: bytes,
    *,
    timeout_s: float,
    maxfail: int = 0,
    select: Collection[str] | None = None,
    trace: bool = False,
) -> SuiteRun:
    """Unpack ``bundle_bytes`` in ``session`` and run the suite (only the tests ``select`` names,
    when given; under the coverage tracer when ``trace``); the collected ids are always read."""
    unpacked = session.exec("tar -x -C /work", stdin=bundle_bytes, timeout_s=60)
    if not unpacked.ok:
        return SuiteRun()
    env = f"GRPO_COLLECTED={COLLECTED} GRPO_COVER_ROOT=/work/proj"
    if select is not None:
        session.write_file(SELECT, "".join(f"{key}\n" for key in sorted(select)))
        env += f" GRPO_SELECT={SELECT}"
    env += f" GRPO_COVER_OUT={COVER}" if trace else ""
    stop = f" --maxfail={maxfail}" if maxfail else ""
    command = (
        f"cd /work/proj && {env} PYTHONPATH=/work/site:/work/proj:/work/proj/src PYTHONDONTWRITEBYTECODE=1 "
        f"python3 -m pytest -p {PLUGIN} -p no:cacheprovider -q -o junit_family=xunit1 --junitxml={REPORT}{stop}"
    )
    start = time.monotonic()
    result = session.exec(command, timeout_s=timeout_s)
    run = SuiteRun(timed_out=result.timed_out, seconds=time.monotonic() - start)
    if result.timed_out:
        return run
    try:
        run.outcomes = parse_junit(session.read_text(REPORT))
    except SandboxError:  # no report: the suite did not start (the caller says so in one line)
        return run
    try:
        run.collected = set(session.read_text(COLLECTED).splitlines())
    except SandboxError:
        run.collected = set()
    if trace:
        try:
            run.coverage = Coverage.from_json(session.read_text(COVER))
        except SandboxError:
            run.coverage = Coverage()
    return run


def run_suite(
    session: Any, bundle_bytes: bytes, *, timeout_s: float, maxfail: int = 0
) -> tuple[dict[str, Outcome], bool]:
    """Unpack ``bundle_bytes`` in ``session`` and run the suite: each test's outcome, and whether
    the run timed out."""
    run = run_tests(session, bundle_bytes, timeout_s=timeout_s, maxfail=maxfail)
    return run.outcomes, run.timed_out


def validation_of(
    clean: dict[str, Outcome], run: SuiteRun, chosen: Collection[str] | None, max_broken: int
) -> Validation:
    """The validation of one candidate's run: ``chosen`` are the tests it ran (None: the whole suite);
    a clean-passing test the run did not even collect (its file no longer imports) failed."""
    passing = {key for key, outcome in clean.items() if outcome.status == PASSED}
    ran, broken = set(passing if chosen is None else chosen), dict(run.outcomes)
    for key in passing - (run.collected if run.collected is not None else passing):
        ran.add(key)
        broken.setdefault(key, Outcome(FAILED, "the test was not collected"))
    validation = validate_candidate(clean, broken, ran=ran, timed_out=run.timed_out, max_broken=max_broken)
    return replace(validation, selected=None if chosen is None else len(ran))


def validate(
    project: Path,
    candidates: Iterable[Mutation],
    clean: dict[str, Outcome],
    open_session: Callable[[], Any],
    *,
    workers: int = 2,
    timeout_s: float = 120.0,
    max_broken: int = 5,
    coverage: Coverage | None = None,
) -> Iterator[tuple[Mutation, Validation]]:
    """Each candidate with its validation, run ``workers`` at a time, each in a fresh session from
    ``open_session`` (a `Session` factory or ``pool.session``); results in candidate order. With
    ``coverage`` a candidate runs only the clean-passing tests that cover its entity, and one that
    no test covers is rejected without a session (``selected == 0``)."""
    passing = frozenset(key for key, outcome in clean.items() if outcome.status == PASSED)

    def one(mutation: Mutation) -> tuple[Mutation, Validation]:
        chosen = None if coverage is None else coverage.select(mutation.path, mutation.entity)
        if chosen is not None:
            chosen &= passing
            if not chosen:
                return mutation, replace(validate_candidate(clean, clean, max_broken=max_broken), selected=0)
        with open_session() as session:
            run = run_tests(
                session,
                bundle(project, {mutation.path: mutation.source}),
                timeout_s=timeout_s,
                maxfail=max_broken + 1,
                select=chosen,
            )
        return mutation, validation_of(clean, run, chosen, max_broken)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        yield from pool.map(one, candidates)
