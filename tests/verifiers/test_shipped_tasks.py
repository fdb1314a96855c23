"""The agentic tasks shipped in the package (`verifiers.agentic.shipped_tasks_dir`): at least 12,
each a well-formed offline task judged in separate mode whose required tests name every test of
its ``test_outputs.py``, listed in the folder's README; and (docker, slow) every one passes
``tasks check``: its reference solution scores 1 and no action scores 0, four tasks at a time
(~70-140 s warm on 2 busy cores; the task base image is built once, 1-3 min, then cached)."""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor

import pytest

from verifiers.agentic import build_task_base_image, check_task, shipped_tasks, shipped_tasks_dir


def test_at_least_12_well_formed_offline_tasks() -> None:
    tasks = shipped_tasks()
    assert len(tasks) >= 12
    readme = (shipped_tasks_dir() / "README.md").read_text()
    assert "Apache-2.0" in readme
    for task in tasks:
        assert f"`{task.name}`" in readme, task.name
        assert not task.needs_network and task.verifier.mode == "separate", task.name
        assert task.verifier.artifacts and "solve.sh" in task.solution, task.name
        assert task.environment.base_images() == ("grpo-envs-task-base",), task.name
        assert task.metadata["license"] == "Apache-2.0", task.name
        tests = ast.parse(task.verifier.tests["test_outputs.py"])
        names = {f"test_outputs.py::{f.name}" for f in tests.body if isinstance(f, ast.FunctionDef)}
        assert set(task.verifier.required_tests) == {n for n in names if n.split("::")[1].startswith("test_")}


@pytest.mark.docker
@pytest.mark.slow
def test_every_shipped_task_passes_tasks_check() -> None:
    bases = {"grpo-envs-task-base": build_task_base_image()}
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda t: check_task(t, base_images=bases), shipped_tasks()))
    failed = {r.name: r.reason for r in results if not r.ok}
    assert not failed, failed
    assert all(r.oracle and r.oracle.reward == 1.0 and r.nop and r.nop.reward == 0.0 for r in results)
