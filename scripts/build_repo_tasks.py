"""Rebuild the repair tasks shipped in grpo_envs/data/repotasks from the projects' PyPI sdists.

For each project: ``pip download`` its sdist on the host (the only network use), unpack it,
``from_repo`` it (validation in sandbox sessions), then ``check_task`` every written task (its
reference 1, no action 0, in its own offline image); only tasks that pass both are packed, one
``<project>.tar.xz`` per project (the tasks of one project share almost every byte, so a solid
archive is about one project's size). Numbers go to ``stats.json`` next to them.

    .venv/bin/python scripts/build_repo_tasks.py [--max-tasks 6] [--budget-s 240] [--only six]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from grpo_envs.repotasks import from_repo
from verifiers.agentic import build_task_base_image, check_task, load_tasks

DATA = Path(__file__).resolve().parents[1] / "grpo_envs" / "data" / "repotasks"
PROJECTS = {  # name: (PyPI requirement, licence, where the tests are in the sdist)
    "more-itertools": ("more-itertools==10.5.0", "MIT", "tests/"),
    "toolz": ("toolz==1.0.0", "BSD-3-Clause", "toolz/tests/"),
    "six": ("six==1.17.0", "MIT", "test_six.py"),
}


def sdist(requirement: str, dest: Path) -> Path:
    """The unpacked sdist of ``requirement`` (downloaded from PyPI on the host)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(dest), requirement],
        check=True,
        capture_output=True,
    )
    archive = next(dest.glob("*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    return next(p for p in dest.iterdir() if p.is_dir())


def build(name: str, max_tasks: int, budget_s: float, workers: int, per_entity: int) -> dict[str, object]:
    requirement, licence, tests = PROJECTS[name]
    base = {"grpo-envs-task-base": build_task_base_image()}
    with tempfile.TemporaryDirectory(prefix=f"repotasks-{name}-") as tmp:
        project = sdist(requirement, Path(tmp) / "sdist")
        start = time.monotonic()
        report = from_repo(
            project, Path(tmp) / "out", max_tasks=max_tasks, budget_s=budget_s, workers=workers, per_entity=per_entity
        )
        generate_s = time.monotonic() - start
        checks = [check_task(task, base_images=base) for task in load_tasks(Path(tmp) / "out")]
        check_s = time.monotonic() - start - generate_s
        good = [c.name for c in checks if c.ok]
        for c in checks:
            if not c.ok:
                logging.warning("%s: %s", c.name, c.reason)
        DATA.mkdir(parents=True, exist_ok=True)
        with tarfile.open(DATA / f"{name}.tar.xz", "w:xz", preset=9) as tar:
            for task in sorted(good):
                tar.add(Path(tmp) / "out" / task, arcname=task)
    return {
        "project": name,
        "sdist": requirement,
        "licence": licence,
        "tests": tests,
        "passing_tests": report.passing_tests,
        "candidates": report.tried,
        "kept": report.kept,
        "per_entity": per_entity,
        "kept_rate": round(report.kept / report.tried, 3) if report.tried else 0.0,
        "duplicates": report.duplicates,
        "tasks_written": len(report.tasks),
        "tasks_checked_ok": len(good),
        "generate_s": round(generate_s, 1),
        "check_s": round(check_s, 1),
        "archive_bytes": (DATA / f"{name}.tar.xz").stat().st_size,
        "load_avg_1m": round(os.getloadavg()[0], 1),  # the shared machine's load when done
    }


def readme(stats: dict[str, dict[str, object]]) -> str:
    """The data folder's README: what the tasks are, licence per project, and the build's numbers."""
    rows = "\n".join(
        f"| {s['project']} | {str(s['sdist']).split('==')[1]} | {s['licence']} | {s['tasks_checked_ok']} | "
        f"{s['passing_tests']} | {s['candidates']} | {s['kept']} ({float(s['kept_rate']):.0%}) | {s['duplicates']} | "
        f"{s['generate_s']} | {s['check_s']} | {int(s['archive_bytes']) // 1024} |"  # type: ignore[call-overload]
        for s in (stats[k] for k in sorted(stats))
    )
    head = "| project | version | licence | tasks | passing tests | candidates | kept (rate) | duplicates "
    head += "| generate s | check s | archive KiB |\n" + "|---" * 11 + "|"
    text = """# Repair tasks from real projects

Harbor task folders made by `grpo-envs tasks from-repo` from the PyPI source distributions of
the projects below, by `scripts/build_repo_tasks.py` (which rebuilds these files). Each task is a
procedural bug in one function or class that the project's own tests catch (1 to 5 tests fail,
others still pass), validated in sandbox sessions, and each passed `grpo-envs tasks check` (the
reverse patch scores 1, no action 0) offline before it was packed. One `.tar.xz` per project;
`grpo_envs.repotasks.repo_tasks_dir()` unpacks them once. The projects' code is theirs, under
their licences (below, from each sdist's metadata and LICENSE file, which the tasks keep); the
task scaffolding (instructions, tests/test.sh, solution/) is ours, Apache-2.0.

{{head}}
{{rows}}

Measured on the shared 2-core build machine under other jobs' load (its 1-minute load average
when each project was done: {{load}}), one candidate at a time per worker, 2 workers, the
whole suite per candidate; "generate s" is the `from_repo` run (clean run, candidates,
writing), "check s" the `check_task` runs of every written task (image build, reference and
no-action episodes). Kept rate = kept / candidates.
"""
    load = ", ".join(f"{k} {stats[k].get('load_avg_1m', '?')}" for k in sorted(stats))
    return text.replace("{{head}}", head).replace("{{load}}", load).replace("{{rows}}", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-tasks", type=int, default=6)
    parser.add_argument("--budget-s", type=float, default=240.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--per-entity", type=int, default=1, help="mutation sites per function or class")
    parser.add_argument("--only", action="append", choices=sorted(PROJECTS))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    stats_path = DATA / "stats.json"
    stats = json.loads(stats_path.read_text()) if stats_path.exists() else {}
    for name in args.only or sorted(PROJECTS):
        stats[name] = build(name, args.max_tasks, args.budget_s, args.workers, args.per_entity)
        print(json.dumps(stats[name]), flush=True)
        stats_path.write_text(json.dumps(stats, indent=1, sort_keys=True) + "\n")
        (DATA / "README.md").write_text(readme(stats))


if __name__ == "__main__":
    main()
