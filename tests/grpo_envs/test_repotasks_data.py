"""The repair tasks shipped with the package (issue 55 item 5): real projects' code from their PyPI
sdists, one archive per project, read by `verifiers.agentic.load_tasks`, the README's numbers are
the build's, and a sample passes ``check_task`` (reference 1, no action 0) offline."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from grpo_envs.repotasks import repo_tasks_dir
from grpo_envs.repotasks._data import DATA, repo_task_archives
from verifiers.agentic import build_task_base_image, check_task, load_tasks

STATS = json.loads((DATA / "stats.json").read_text())


def _by_project(root: Path) -> dict[str, list[str]]:
    out = {}
    for archive in repo_task_archives():
        with tarfile.open(archive) as tar:
            out[archive.name.removesuffix(".tar.xz")] = sorted({m.name.split("/")[0] for m in tar.getmembers()})
    return out


def test_three_real_projects_ship_with_licences_and_the_builds_numbers() -> None:
    projects = _by_project(DATA)
    assert len(projects) >= 3 and set(projects) == set(STATS)
    readme = (DATA / "README.md").read_text()
    for name, tasks in projects.items():
        stats = STATS[name]
        assert tasks and stats["tasks_checked_ok"] == len(tasks) and stats["licence"] in ("MIT", "BSD-3-Clause")
        row = f"| {name} | {stats['sdist'].split('==')[1]} | {stats['licence']} | {len(tasks)} |"
        assert row in readme, row
    assert sum(p.stat().st_size for p in repo_task_archives()) < 1_000_000  # small in the wheel


def test_shipped_tasks_load_as_harbor_folders_and_the_fix_is_nowhere_in_the_image(tmp_path: Path) -> None:
    root = repo_tasks_dir(tmp_path / "cache")
    assert repo_tasks_dir(tmp_path / "cache") == root  # unpacked once
    tasks = load_tasks(root)
    assert len(tasks) == sum(len(t) for t in _by_project(DATA).values())
    for task in tasks:
        assert not task.needs_network and task.verifier.artifacts == ("/app",) and task.verifier.required_tests
        broken_path = f"project/{task.metadata['split_key']}"
        broken = task.environment.context[broken_path]
        assert not any(
            p.startswith("project/.git/") or "__pycache__" in p or p.endswith(".pyc") for p in task.environment.context
        )
        work = tmp_path / "apply" / task.name
        (work / Path(str(task.metadata["split_key"]))).parent.mkdir(parents=True)
        (work / str(task.metadata["split_key"])).write_bytes(broken)
        (tmp_path / "fix.patch").write_bytes(task.solution["fix.patch"])
        (tmp_path / "apply.py").write_bytes(task.solution["apply.py"])
        subprocess.run([sys.executable, str(tmp_path / "apply.py"), str(tmp_path / "fix.patch")], cwd=work, check=True)
        fixed = (work / str(task.metadata["split_key"])).read_bytes()
        assert fixed != broken and fixed not in task.environment.context.values()  # no original copy shipped
        assert "```" not in task.instruction and task.instruction.count("- `") == task.metadata["tests_failing"]


@pytest.mark.docker
@pytest.mark.slow
def test_one_shipped_task_per_project_passes_check(tmp_path: Path) -> None:
    tasks = {t.name: t for t in load_tasks(repo_tasks_dir(tmp_path / "cache"))}
    base = {"grpo-envs-task-base": build_task_base_image()}
    for names in _by_project(DATA).values():
        check = check_task(tasks[names[0]], base_images=base)
        assert check.ok, f"{check.name}: {check.reason}"
