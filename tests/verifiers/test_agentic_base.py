"""The offline task base image (bash, coreutils, python3, pip, pytest; mmdebstrap, no registry)
and a task judged end to end on it with pytest's JUnit report: the named test must be reported
passed: the task's reward file always says 1, yet a failing test and a syntax error that stops
collection both fail. Builds the
base once (1-3 min on 2 busy cores, then cached: ~10 s)."""

from __future__ import annotations

import pytest

from verifiers.agentic import AgenticTask, Environment, Limits, Verifier, build_task_image, verify_separate
from verifiers.agentic._base import build_task_base_image
from verifiers.sandbox import Session

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TEST_SH = b"""#!/bin/bash
cd /work && python3 -m pytest -q -p no:cacheprovider --junitxml=/logs/verifier/junit.xml /tests/test_calc.py
echo 1 > /logs/verifier/reward.txt  # a lenient task: its reward file always says 1
"""
TEST_CALC = (
    b"import sys\nsys.path.insert(0, '/work')\nfrom calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"
)


@pytest.mark.parametrize(
    ("calc", "status", "says"),
    [
        ("def add(a, b):\n    return a + b\n", "correct", "reward 1"),
        ("def add(a, b):\n    return a - b\n", "incorrect", "test_calc.py::test_add (failed)"),
        ("def add(a, b:\n", "incorrect", "test_calc.py::test_add (not reported)"),  # collection fails
    ],
)
def test_a_pytest_task_on_the_base_image(calc: str, status: str, says: str) -> None:
    base = build_task_base_image()
    task = AgenticTask(
        name="calc",
        instruction="Fix add() in /work/calc.py.",
        environment=Environment(dockerfile="FROM python:3.11-slim\nWORKDIR /work\n"),
        verifier=Verifier(
            tests={"test.sh": TEST_SH, "test_calc.py": TEST_CALC},
            artifacts=("/work/calc.py",),
            required_tests=("test_calc.py::test_add",),
        ),
        limits=Limits(verifier_timeout_s=60, memory_mb=512, network_mode="none"),
    )
    image = build_task_image(task, base_images={"python:3.11-slim": base})
    with Session(image=image, timeout_s=10) as s:
        s.write_file("/work/calc.py", calc)
        v = verify_separate(s, task, image)
    assert v.status == status and says in v.reason, v.reason
