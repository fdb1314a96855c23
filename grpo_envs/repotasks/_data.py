"""The repair tasks shipped with the package: made by ``scripts/build_repo_tasks.py`` from real
projects' PyPI sdists (more-itertools, toolz, six; licences and numbers in the folder's README),
each validated in sessions and passing ``tasks check``. They ship as one ``.tar.xz`` per project
(the tasks of a project share almost every byte) and are unpacked once into a cache folder.

>>> from verifiers.agentic import load_tasks
>>> tasks = load_tasks(repo_tasks_dir())  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import os
import tarfile
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "repotasks"


def repo_task_archives() -> list[Path]:
    """The shipped archives, one per project."""
    return sorted(DATA.glob("*.tar.xz"))


def repo_tasks_dir(cache: str | Path | None = None) -> Path:
    """A folder holding every shipped repair task as a Harbor task folder (for
    `verifiers.agentic.load_tasks` or ``grpo-envs tasks check``): the archives unpacked once under
    ``cache`` (default ``~/.cache/grpo-envs/repotasks``), in a folder named by their digest."""
    archives = repo_task_archives()
    digest = hashlib.sha256(b"".join(a.read_bytes() for a in archives)).hexdigest()[:16]
    root = Path(cache or Path.home() / ".cache" / "grpo-envs" / "repotasks") / digest
    if (root / ".complete").is_file():
        return root
    partial = root.with_name(f"{digest}.partial-{os.getpid()}")
    partial.mkdir(parents=True, exist_ok=True)
    for archive in archives:
        with tarfile.open(archive) as tar:
            tar.extractall(partial, filter="data")
    (partial / ".complete").write_text("\n".join(a.name for a in archives) + "\n")
    try:
        partial.rename(root)
    except OSError:  # another process unpacked it first
        pass
    return root
