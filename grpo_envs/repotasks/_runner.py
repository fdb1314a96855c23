"""Run a project's test suite in a sandbox session and validate candidate bugs in parallel sessions.

The sandbox image has no pytest and containers have no network, so pytest and its pure-Python
dependencies are copied from the host's own installation into the session (``/work/site`` on
``PYTHONPATH``) together with the project (``/work/proj``), as one tar stream. pytest runs unittest
suites too. The image has no ``coverage`` either, so this first slice runs the whole suite per
candidate with an early stop: ``--maxfail`` one past the break cap (a candidate that reaches it is
rejected anyway, and the tests it did not reach count as failed)."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from verifiers.errors import SandboxError

from ._mutate import Mutation
from ._validate import Outcome, Verdict, judge, parse_junit

_LIBS = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py")
_SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".venv", "node_modules"}
REPORT = "/work/report.xml"


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


def bundle(project: Path, replaced: dict[str, str] | None = None) -> bytes:
    """The project and the host's pytest as one tar stream for ``tar -x -C /work``."""
    import pytest  # the host's: copied, never imported in the container from here

    site = Path(pytest.__file__).parent.parent
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        _add_tree(tar, project, "proj", replaced or {})
        for name in _LIBS:
            if (site / name).is_dir():
                _add_tree(tar, site / name, f"site/{name}", {})
            elif (site / name).is_file():
                tar.add(site / name, f"site/{name}")
    return out.getvalue()


def run_suite(
    session: Any, bundle_bytes: bytes, *, timeout_s: float, maxfail: int = 0
) -> tuple[dict[str, Outcome], bool]:
    """Unpack ``bundle_bytes`` in ``session`` and run the suite: each test's outcome, and whether
    the run timed out."""
    unpacked = session.exec("tar -x -C /work", stdin=bundle_bytes, timeout_s=60)
    if not unpacked.ok:
        return {}, False
    stop = f" --maxfail={maxfail}" if maxfail else ""
    command = (
        f"cd /work/proj && PYTHONPATH=/work/site:/work/proj:/work/proj/src PYTHONDONTWRITEBYTECODE=1 "
        f"python3 -m pytest -p no:cacheprovider -q -o junit_family=xunit1 --junitxml={REPORT}{stop}"
    )
    result = session.exec(command, timeout_s=timeout_s)
    if result.timed_out:
        return {}, True
    try:
        return parse_junit(session.read_text(REPORT)), False
    except SandboxError:  # no report: the suite did not start (the caller says so in one line)
        return {}, False


def validate(
    project: Path,
    candidates: Iterable[Mutation],
    clean: dict[str, Outcome],
    open_session: Callable[[], Any],
    *,
    workers: int = 2,
    timeout_s: float = 120.0,
    max_broken: int = 5,
) -> Iterator[tuple[Mutation, Verdict]]:
    """Each candidate with its verdict, run ``workers`` at a time, each in a fresh session from
    ``open_session`` (a `Session` factory or ``pool.session``); results in candidate order."""

    def one(mutation: Mutation) -> tuple[Mutation, Verdict]:
        with open_session() as session:
            broken, timed_out = run_suite(
                session, bundle(project, {mutation.path: mutation.source}), timeout_s=timeout_s, maxfail=max_broken + 1
            )
        return mutation, judge(clean, broken, timed_out=timed_out, max_broken=max_broken)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        yield from pool.map(one, candidates)
