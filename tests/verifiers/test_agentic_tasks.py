"""Agentic tasks in the Harbor format: reading folders (legacy keys too), writing them, the
unsupported features, the image digest, the train/eval split and the verdict rules (reward files,
named tests in JUnit XML). No Docker: these read and write files only (~0.3 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifiers.agentic import (
    AgenticTask,
    Environment,
    Limits,
    Verifier,
    junit_outcomes,
    load_tasks,
    read_task,
    split_tasks,
    verdict_from_files,
    write_task,
)
from verifiers.errors import TaskFormatError

LEGACY_TOML = """version = "1.0"

[metadata]
difficulty = "easy"
tags = ["shell"]

[agent]
timeout_sec = 120.0

[verifier]
timeout_sec = 60.0

[environment]
build_timeout_sec = 300.0
cpus = 2
memory = "2G"
storage = "512M"
allow_internet = false
"""


def _folder(root: Path, name: str = "count-lines", toml: str = LEGACY_TOML, **extra: str) -> Path:
    files = {
        "instruction.md": "Count the lines of /app/data.txt into /app/count.txt.\n",
        "task.toml": toml,
        "environment/Dockerfile": "FROM grpo-envs-task-base\nWORKDIR /app\nCOPY data.txt /app/\n",
        "environment/data.txt": "a\nb\nc\n",
        "tests/test.sh": "#!/bin/bash\npytest --junitxml=/logs/verifier/junit.xml /tests/test_outputs.py\n",
        "tests/test_outputs.py": "def test_count():\n    assert open('/app/count.txt').read().strip() == '3'\n",
        "solution/solve.sh": "#!/bin/bash\nwc -l < /app/data.txt > /app/count.txt\n",
        **extra,
    }
    for rel, text in files.items():
        (root / name / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / name / rel).write_text(text)
    return root / name


def test_a_legacy_folder_reads_with_its_keys_normalised(tmp_path: Path) -> None:
    task = read_task(_folder(tmp_path))
    assert task.name == "count-lines" and task.instruction.startswith("Count the lines")
    assert task.limits == Limits(
        agent_timeout_s=120.0,
        verifier_timeout_s=60.0,
        build_timeout_s=300.0,
        cpus=2.0,
        memory_mb=2048,
        storage_mb=512,
        network_mode="none",
    )
    assert not task.needs_network
    assert task.environment.base_images() == ("grpo-envs-task-base",)
    assert task.environment.context["data.txt"] == b"a\nb\nc\n"
    assert set(task.verifier.tests) == {"test.sh", "test_outputs.py"}
    assert task.verifier.mode == "separate"  # our default when task.toml names none
    assert task.solution["solve.sh"].startswith(b"#!/bin/bash")
    assert task.metadata["tags"] == ["shell"]


def test_current_keys_read_and_public_network_is_needs_network(tmp_path: Path) -> None:
    toml = """schema_version = "1.1"
[agent]
user = "agent"
[verifier]
environment_mode = "shared"
artifacts = ["/app/count.txt"]
user = "root"
[environment]
memory_mb = 1024
storage_mb = 4096
network_mode = "public"
"""
    task = read_task(
        _folder(tmp_path, toml=toml, **{"tests/required_tests.txt": "# named\ntests/test_outputs.py::test_count\n"})
    )
    assert (task.limits.memory_mb, task.limits.storage_mb, task.needs_network) == (1024, 4096, True)
    assert (task.agent_user, task.verifier.user, task.verifier.mode) == ("agent", "root", "shared")
    assert task.verifier.artifacts == ("/app/count.txt",)
    assert task.verifier.required_tests == ("tests/test_outputs.py::test_count",)
    assert read_task(_folder(tmp_path, "no-toml-network", toml="")).needs_network  # Harbor's default: public


def test_a_python_task_writes_a_folder_that_reads_back_equal(tmp_path: Path) -> None:
    task = AgenticTask(
        name="fix-bug",
        instruction="Fix add() in /app/calc.py.",
        environment=Environment(
            dockerfile="FROM base\nCOPY calc.py /app/\n", context={"calc.py": b"def add(a, b): return a - b\n"}
        ),
        verifier=Verifier(
            tests={"test.sh": b"pytest /tests\n", "test_calc.py": b"..."},
            mode="shared",
            artifacts=("/app",),
            env={"X": "1"},
            required_tests=("test_calc.py::test_add",),
        ),
        solution={"solve.sh": b"sed -i s/-/+/ /app/calc.py\n"},
        limits=Limits(agent_timeout_s=30.0, memory_mb=256, network_mode="none"),
        agent_user="agent",
        metadata={"difficulty": "easy", "tags": ["python", "bugfix"]},
    )
    folder = write_task(task, tmp_path)
    assert (folder / "environment" / "Dockerfile").read_text() == "FROM base\nCOPY calc.py /app/\n"
    assert (folder / "tests" / "required_tests.txt").read_text() == "test_calc.py::test_add\n"
    assert (folder / "solution" / "solve.sh").stat().st_mode & 0o111
    assert read_task(folder) == task
    with pytest.raises(FileExistsError):
        write_task(task, tmp_path)


@pytest.mark.parametrize(
    ("extra", "toml", "says"),
    [
        ({"environment/docker-compose.yaml": "services: {}\n"}, LEGACY_TOML, "docker-compose"),
        ({}, 'version = "1.0"\n[[steps]]\nname = "a"\n', "multi-step"),
        ({}, "[environment]\ngpus = 1\n", "gpus is not supported"),
        ({}, 'schema_version = "2.0"\n', "version 2.0 is not supported (read: 1.x)"),
        ({}, "[environment]\nmemory = 'lots'\n", "memory = 'lots' is not a size"),
        ({}, "[environment]\nnetwork_mode = 'bridge'\n", "network_mode = 'bridge'"),
        ({}, "[verifier]\nenvironment_mode = 'both'\n", "environment_mode = 'both'"),
        ({}, "version = [\n", "not valid TOML"),
        ({}, "[environment]\nos = 'windows'\n", "only linux is run"),
        ({}, "[environment]\ntpu = { type = 'v6e', topology = '2x2' }\n", "tpu is not supported"),
        ({}, "[[environment.mcp_servers]]\nname = 'm'\nurl = 'http://x'\n", "mcp_servers is not supported"),
        ({}, "[verifier.environment]\ncpus = 2\n", "[verifier] environment is not supported"),
        ({}, "[[verifier.collect]]\ncommand = 'true'\n", "[verifier] collect is not supported"),
        ({}, "[verifier.continuous]\nenabled = true\n", "[verifier.continuous]"),
        ({}, "artifacts = [{ source = '/app/a', exclude = ['*.o'] }]\n", "exclude and service are not supported"),
        ({}, "artifacts = ['app/count.txt']\n", "artifact 'app/count.txt': name an absolute path"),
        ({}, "[agent]\nnetwork_mode = 'open'\n", "[agent] network_mode = 'open'"),
    ],
)
def test_what_is_not_supported_is_one_line_naming_the_task(
    tmp_path: Path, extra: dict[str, str], toml: str, says: str
) -> None:
    with pytest.raises(TaskFormatError, match="^task count-lines: .*") as err:
        read_task(_folder(tmp_path, toml=toml, **extra))
    assert says in str(err.value) and "\n" not in str(err.value)


def test_missing_parts_are_named(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "tests" / "test.sh").unlink()
    with pytest.raises(TaskFormatError, match="tests/test.sh is missing"):
        read_task(folder)
    (folder / "instruction.md").unlink()
    with pytest.raises(TaskFormatError, match="instruction.md is missing"):
        read_task(folder)
    (folder / "environment" / "Dockerfile").unlink()
    (folder / "instruction.md").write_text("x")
    (folder / "tests" / "test.sh").write_text("x")
    with pytest.raises(TaskFormatError, match="no environment/Dockerfile and no"):
        read_task(folder)
    (folder / "task.toml").write_text('[environment]\ndocker_image = "prebuilt:1"\n')
    assert read_task(folder).environment.docker_image == "prebuilt:1"


def test_the_image_digest_follows_the_build_context_only(tmp_path: Path) -> None:
    a = read_task(_folder(tmp_path, "a"))
    b = read_task(_folder(tmp_path, "b", toml="", **{"tests/test.sh": "other tests"}))
    assert a.environment.digest() == b.environment.digest()  # name, limits and tests do not count
    (tmp_path / "b" / "environment" / "data.txt").write_text("a\nb\n")
    assert read_task(tmp_path / "b").environment.digest() != a.environment.digest()
    multi = Environment(dockerfile="FROM --platform=x base AS build\nRUN make\nFROM build\nFROM other:2\n")
    assert multi.base_images() == ("base", "other:2")


def _tasks_root(tmp_path: Path) -> Path:
    _folder(tmp_path / "keyed", "one")
    return tmp_path / "keyed"


def test_a_folder_of_tasks_splits_stably_into_train_and_eval(tmp_path: Path) -> None:
    for i in range(20):
        _folder(tmp_path, f"task-{i:02d}")
    (tmp_path / "not-a-task").mkdir()
    tasks = load_tasks(tmp_path)
    assert [t.name for t in tasks] == [f"task-{i:02d}" for i in range(20)]
    train, held = split_tasks(tasks, 0.3)
    assert 2 <= len(held) <= 12 and len(train) + len(held) == 20
    _folder(tmp_path, "task-new")
    train2, held2 = split_tasks(load_tasks(tmp_path), 0.3)
    assert {t.name for t in held} <= {t.name for t in held2} and {t.name for t in train} <= {t.name for t in train2}
    assert split_tasks(tasks, 0.0)[1] == [] and split_tasks(tasks, 1.0)[0] == []
    with pytest.raises(TaskFormatError, match="is not a folder of tasks"):
        load_tasks(tmp_path / "missing")


def test_tasks_with_one_split_key_land_on_one_side(tmp_path: Path) -> None:
    import dataclasses

    base = load_tasks(_tasks_root(tmp_path))[0]
    tasks = [dataclasses.replace(base, name=f"t{i}", metadata={"split_key": f"pkg/mod{i % 4}.py"}) for i in range(40)]
    train, held = split_tasks(tasks, 0.5)
    assert held and train  # 4 keys: some on each side (for this seed)
    side = {t.metadata["split_key"]: t in held for t in tasks}
    assert all((t in held) == side[t.metadata["split_key"]] for t in tasks)  # never split across


@pytest.mark.parametrize(
    ("txt", "js", "status", "reward", "reason"),
    [
        (b"1\n", None, "correct", 1.0, "reward 1"),
        (b"0", None, "incorrect", 0.0, "reward 0"),
        (None, b'{"reward": 0.25, "tests": 4}', "incorrect", 0.25, "reward 0.25"),
        (b"1", b'{"reward": 1.0}', "correct", 1.0, "reward 1"),
        (b"1", b'{"reward": 0}', "error", 0.0, "disagree"),
        (None, None, "error", 0.0, "wrote no /logs/verifier/reward.txt"),
        (b"", None, "error", 0.0, "not a number"),
        (b"PASS", None, "error", 0.0, "not a number"),
        (b"nan", None, "error", 0.0, "outside [0, 1]"),
        (b"2", None, "error", 0.0, "outside [0, 1]"),
        (None, b"[1]", "error", 0.0, "no numeric 'reward' key"),
        (None, b'{"reward": true}', "error", 0.0, "no numeric 'reward' key"),
        (None, b"{", "error", 0.0, "not JSON"),
    ],
)
def test_reward_files(txt: bytes | None, js: bytes | None, status: str, reward: float, reason: str) -> None:
    v = verdict_from_files(txt, js, tests_exit=3)
    assert (v.status, v.reward) == (status, reward) and reason in v.reason
    if status == "error":
        assert v.correct is None and "exit 3" in v.reason and "masked" in v.reason


# What pytest 8 writes with --junitxml (trimmed): a pass, a failure, a class's test; a collection error.
JUNIT = b"""<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest"
errors="0" failures="1" skipped="0" tests="3"><testcase classname="tests.test_outputs" name="test_a" />
<testcase classname="tests.test_outputs" name="test_b"><failure message="assert False">E</failure></testcase>
<testcase classname="tests.test_outputs.TestC" name="test_d" /></testsuite></testsuites>"""
COLLECTION_ERROR = b"""<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite
name="pytest" errors="1" failures="0" skipped="0" tests="1"><testcase classname="" name="tests.test_bad">
<error message="collection failure">SyntaxError: invalid syntax</error></testcase></testsuite></testsuites>"""


def test_junit_names_a_test_every_way_a_task_may_name_it() -> None:
    out = junit_outcomes(JUNIT)
    assert out["tests/test_outputs.py::test_a"] == out["test_a"] == out["tests.test_outputs.test_a"] == "passed"
    assert out["tests/test_outputs.py::test_b"] == "failed"
    assert out["tests/test_outputs.py::TestC::test_d"] == "passed"
    with pytest.raises(ValueError, match="not a JUnit report"):
        junit_outcomes(b"<html/>")


@pytest.mark.parametrize(
    ("junit", "required", "status", "says"),
    [
        (JUNIT, ("tests/test_outputs.py::test_a", "tests/test_outputs.py::TestC::test_d"), "correct", "reward 1"),
        (JUNIT, ("tests/test_outputs.py::test_a", "tests/test_outputs.py::test_b"), "incorrect", "test_b (failed)"),
        (JUNIT, ("tests/test_outputs.py::test_gone",), "incorrect", "test_gone (not reported)"),
        (COLLECTION_ERROR, ("tests/test_bad.py::test_x",), "incorrect", "not reported"),
        (None, ("test_a",), "incorrect", "no JUnit report"),
        (b"garbage", ("test_a",), "incorrect", "junit.xml is unreadable"),
    ],
)
def test_named_tests_must_be_reported_passing_and_win_over_reward_1(
    junit: bytes | None, required: tuple[str, ...], status: str, says: str
) -> None:
    v = verdict_from_files(b"1", None, junit_xml=junit, required_tests=required)
    assert v.status == status and says in v.reason
    assert v.reward == (1.0 if status == "correct" else 0.0)
    # A reward below 1 stays the verdict when every named test passed.
    low = verdict_from_files(b"0.5", None, junit_xml=JUNIT, required_tests=("test_a",))
    assert (low.status, low.reward) == ("incorrect", 0.5)


HARBOR_TOML = """schema_version = "1.4"
artifacts = ["/app/count.txt", { source = "/app/log.txt", destination = "logs/log.txt" }]

[task]
name = "grpo/count-lines"

[verifier]
timeout_sec = 30.0
environment_mode = "separate"

[environment]
workdir = "/app"
network_mode = "no-network"
healthcheck = { command = "true" }
"""


def test_harbors_current_keys(tmp_path: Path) -> None:
    """Harbor's TaskConfig (schema 1.4): top-level artifacts (a path or a table's source),
    network_mode 'no-network' / 'allowlist' and the [agent] / [verifier] overrides, workdir."""
    task = read_task(_folder(tmp_path, toml=HARBOR_TOML))
    assert task.verifier.artifacts == ("/app/count.txt", "/app/log.txt")
    assert (task.limits.network_mode, task.needs_network, task.environment.workdir) == ("none", False, "/app")
    override = HARBOR_TOML.replace("[verifier]\n", "[verifier]\nnetwork_mode = 'public'\n")
    assert read_task(_folder(tmp_path, "override", toml=override)).needs_network
    allowlist = HARBOR_TOML.replace('"no-network"', '"allowlist"\nallowed_hosts = ["pypi.org"]')
    assert read_task(_folder(tmp_path, "allowlist", toml=allowlist)).needs_network
    legacy = HARBOR_TOML.replace('network_mode = "no-network"', "allow_internet = true\nnetwork_mode = 'no-network'")
    assert not read_task(_folder(tmp_path, "legacy", toml=legacy)).needs_network  # network_mode wins


def test_a_written_task_toml_uses_harbors_spelling(tmp_path: Path) -> None:
    task = read_task(_folder(tmp_path, toml=HARBOR_TOML))
    folder = write_task(task, tmp_path / "out")
    text = (folder / "task.toml").read_text()
    assert text.startswith('schema_version = "1.1"\nartifacts = ["/app/count.txt", "/app/log.txt"]\n')
    assert 'network_mode = "no-network"' in text and 'workdir = "/app"' in text
    assert read_task(folder) == task
