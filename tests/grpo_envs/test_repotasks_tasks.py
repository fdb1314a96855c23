"""Validation and task folders of `grpo_envs.repotasks`: JUnit parsing, the keep rule, and a task
written from a fixture project whose reference solution scores 1 and no action 0 (run on the host
with this interpreter's pytest: the fixture is our own code)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grpo_envs.repotasks import (
    Outcome,
    RepoTaskError,
    from_repo,
    mutations,
    parse_junit,
    validate_candidate,
    write_repair_task,
)

REPORT = """<?xml version="1.0"?><testsuites><testsuite name="pytest">
<testcase classname="tests.test_m" name="test_add"/>
<testcase classname="tests.test_m" name="test_sub"><failure message="assert 1 == 3&#10;more">x</failure></testcase>
<testcase classname="tests.test_m" name="test_skip"><skipped/></testcase>
<testcase classname="tests.test_m" name="test_err"><error message="ZeroDivisionError: division by zero"/></testcase>
</testsuite></testsuites>"""

P, F = Outcome("passed"), Outcome("failed", "boom")


def test_parse_junit_reads_status_and_first_message_line() -> None:
    found = parse_junit(REPORT)
    assert found["tests.test_m::test_add"] == P
    assert found["tests.test_m::test_sub"] == Outcome("failed", "assert 1 == 3")
    assert found["tests.test_m::test_skip"].status == "skipped"
    assert found["tests.test_m::test_err"].message.startswith("ZeroDivisionError")
    assert parse_junit("<not xml") == {}


def test_keep_rule_fail_to_pass_pass_to_pass_cap_timeout_and_missing_tests() -> None:
    clean = {f"t{i}": P for i in range(8)} | {"flaky": F}
    one = validate_candidate(clean, {**clean, "t0": F})
    assert one.kept and one.fail_to_pass == ("t0",) and "flaky" not in one.pass_to_pass
    assert not validate_candidate(clean, clean).kept  # nothing breaks
    assert not validate_candidate(clean, {k: F for k in clean}).kept  # everything breaks: over the cap too
    assert not validate_candidate(clean, {**clean, **{f"t{i}": F for i in range(6)}}).kept  # 6 > 5
    assert not validate_candidate(clean, {**clean, "t0": F}, timed_out=True).kept
    missing = validate_candidate(clean, {k: o for k, o in clean.items() if k != "t3"})
    assert missing.fail_to_pass == ("t3",) and missing.messages == ("the test did not run",)
    only = validate_candidate(clean, {"t1": F}, ran={"t1"})  # tests not covering the entity were not run
    assert only.kept and len(only.pass_to_pass) == 7


def _project(root: Path) -> Path:
    (root / "calc").mkdir(parents=True)
    (root / "calc" / "__init__.py").write_text("def add(a, b):\n    return a + b\n\n\ndef neg(a):\n    return -a\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(
        "from calc import add, neg\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_neg():\n    assert neg(2) == -2\n"
    )
    (root / ".git").mkdir()
    return root


def test_written_task_scores_reference_1_and_no_action_0(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj")
    source = (project / "calc" / "__init__.py").read_text()
    bug = next(
        m for m in mutations(source, "calc/__init__.py") if m.entity == "add" and m.technique == "change_operator"
    )
    clean = {"tests.test_calc::test_add": P, "tests.test_calc::test_neg": P}
    validation = validate_candidate(clean, {**clean, "tests.test_calc::test_add": Outcome("failed", "assert -1 == 5")})
    runner = f'{sys.executable} -m pytest -p no:cacheprovider -q --junitxml="$LOGS/report.xml"'
    task = write_repair_task(
        tmp_path / "task", project, bug, validation, test_files=["tests/test_calc.py"], image="img", runner=runner
    )
    app = task / "environment" / "project"
    assert not (app / ".git").exists() and (app / "calc" / "__init__.py").read_text() == bug.source
    text = (task / "instruction.md").read_text()
    assert "tests.test_calc::test_add`: assert -1 == 5" in text and "a + b" not in text and "add(2, 3)" not in text
    assert 'split_key = "calc/__init__.py"' in (task / "task.toml").read_text()

    def judge_run() -> str:
        env = {"APP": str(app), "LOGS": str(tmp_path / "logs"), "PATH": "/usr/bin:/bin"}
        return subprocess.run(
            ["bash", str(task / "tests" / "test.sh")], env=env, capture_output=True, text=True
        ).stdout.strip()

    (app / "tests" / "test_calc.py").write_text("def test_add():\n    pass\n")  # the agent edits the tests
    assert judge_run() == "0"  # restored, and the bug is still there
    env = {"APP": str(app), "PATH": "/nonexistent"}  # no `patch`: the Python applier
    subprocess.run(
        [sys.executable, str(task / "solution" / "apply.py"), str(task / "solution" / "fix.patch")],
        cwd=app,
        env=env,
        check=True,
    )
    assert (app / "calc" / "__init__.py").read_text() == source
    assert judge_run() == "1"


@pytest.mark.docker
def test_from_repo_validates_in_sessions_and_writes_only_kept_deduplicated_tasks(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj")
    report = from_repo(project, tmp_path / "out", max_tasks=2, budget_s=60, workers=2, per_entity=2)
    assert report.passing_tests == 2 and 1 <= len(report.tasks) <= 2 and report.kept >= len(report.tasks)
    for task in report.tasks:
        expected = json.loads((task / "tests" / "expected.json").read_text())
        assert set(expected) == {"tests.test_calc::test_add", "tests.test_calc::test_neg"}
        assert "__pycache__" not in {p.name for p in (task / "environment").rglob("*")}
    (project / "tests" / "test_calc.py").write_text("def test_one():\n    assert False\n")
    with pytest.raises(RepoTaskError, match="passing test"):
        from_repo(project, tmp_path / "out2", budget_s=30)
