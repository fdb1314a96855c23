"""Projects as they are (issue 55): test dependencies found, downloaded as wheels (here from a local
folder only: tests never reach an index) and installed offline into the project's image; src
layout and unittest suites; one line for a suite that cannot import what it needs; the task
folders are #53's Harbor format (read back by `verifiers.agentic`) and pass ``check_task``."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

import pytest

from grpo_envs.repotasks import (
    DependencyError,
    Outcome,
    RepoTaskError,
    diagnose,
    download_wheels,
    from_repo,
    mutations,
    project_requirements,
    validate_candidate,
    write_repair_task,
)
from verifiers.agentic import build_task_base_image, check_task, load_tasks, read_task

DEP = "def double(x):\n    return 2 * x\n"
CALC = (
    "from tinydep import double\n\n\ndef add(a, b):\n    return a + b\n\n\n"
    "def twice_sum(a, b):\n    return double(a + b)\n\n\ndef neg(a):\n    return -a\n"
)
TESTS = (
    "import unittest\n\nfrom calc import add, neg, twice_sum\n\n\nclass CalcTest(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n"
    "    def test_twice_sum(self):\n        self.assertEqual(twice_sum(1, 2), 6)\n\n"
    "    def test_neg(self):\n        self.assertEqual(neg(2), -2)\n"
)


def _wheel(folder: Path, name: str = "tinydep", version: str = "1.0") -> Path:
    """A pure-Python wheel made by hand (no build backend, no index)."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": DEP,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }

    def row(path: str, data: str) -> str:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data.encode()).digest()).rstrip(b"=").decode()
        return f"{path},sha256={digest},{len(data.encode())}\n"

    files[f"{info}/RECORD"] = "".join(row(p, d) for p, d in files.items()) + f"{info}/RECORD,,\n"
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for rel, data in files.items():
            zf.writestr(rel, data)
    return path


def _project(root: Path, *, dependency: str = "tinydep") -> Path:
    """A src-layout project with a unittest suite whose code imports ``dependency``."""
    (root / "src" / "calc").mkdir(parents=True)
    (root / "src" / "calc" / "__init__.py").write_text(CALC.replace("tinydep", dependency))
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(TESTS)
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "calc"\nversion = "0"\n\n[project.optional-dependencies]\ntest = ["{dependency}>=1", "pytest"]\n'
    )
    return root


def test_test_requirements_from_pyproject_setup_cfg_and_requirement_files(tmp_path: Path) -> None:
    assert project_requirements(_project(tmp_path / "a")) == ["tinydep>=1"]  # pytest is the image's
    b = tmp_path / "b"
    b.mkdir()
    (b / "setup.cfg").write_text(
        "[options]\ninstall_requires =\n    attrs\n[options.extras_require]\ntest =\n    hypothesis\n"
    )
    (b / "requirements-test.txt").write_text("# pins\nhypothesis==6.0  # dup\n-r other.txt\nPyYAML\n")
    (b / "pyproject.toml").write_text('[dependency-groups]\ntests = ["Pytest-Mock", {include-group = "x"}]\n')
    assert project_requirements(b) == ["Pytest-Mock", "hypothesis", "PyYAML", "attrs"]
    assert project_requirements(tmp_path) == []


def test_wheels_download_offline_from_a_folder_and_a_missing_one_is_one_line(tmp_path: Path) -> None:
    links = tmp_path / "links"
    _wheel(links)
    got = download_wheels(["tinydep>=1"], tmp_path / "dest", find_links=links, offline=True)
    assert [w.name for w in got] == ["tinydep-1.0-py3-none-any.whl"]
    with pytest.raises(DependencyError, match=r"\(nosuchdep\) could not be downloaded: .*--wheels") as err:
        download_wheels(["nosuchdep"], tmp_path / "dest2", find_links=links, offline=True)
    assert "\n" not in str(err.value)


def test_diagnose_names_the_missing_module_or_the_network() -> None:
    missing = {"t::a": Outcome("failed", "ModuleNotFoundError: No module named 'yaml'"), "t::b": Outcome("passed")}
    assert "cannot import 'yaml'" in diagnose(missing)
    offline = {"t::a": Outcome("failed", "requests.exceptions.ConnectionError: Max retries exceeded")}
    assert "need the network" in diagnose(offline)
    assert diagnose({"t::a": Outcome("failed", "assert 1 == 2")}) == ""


def test_a_written_task_is_a_harbor_folder_verifiers_agentic_reads(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj")
    wheel = _wheel(tmp_path / "wheels")
    bug = next(m for m in mutations(CALC, "src/calc/__init__.py") if m.entity == "add")
    clean = {f"tests.test_calc.CalcTest::test_{n}": Outcome("passed") for n in ("add", "neg", "twice_sum")}
    validation = validate_candidate(
        clean, {**clean, "tests.test_calc.CalcTest::test_add": Outcome("failed", "AssertionError")}
    )
    folder = write_repair_task(
        tmp_path / "out" / "calc.add.000", project, bug, validation, test_files=["tests/test_calc.py"], wheels=[wheel]
    )
    task = read_task(folder)
    assert task.name == "calc.add.000" and not task.needs_network
    assert task.verifier.artifacts == ("/app",) and task.verifier.mode == "separate"
    assert set(task.verifier.required_tests) == set(clean)
    assert task.environment.base_images() == ("grpo-envs-task-base",)
    dockerfile = task.environment.dockerfile or ""
    assert dockerfile.index("pip install --no-index") < dockerfile.index("COPY project/")  # shared layers first
    assert task.environment.context["wheels/" + wheel.name] == wheel.read_bytes()
    assert task.environment.context["project/src/calc/__init__.py"] == bug.source.encode()
    assert {"project_tests/tests/test_calc.py", "project_tests/pyproject.toml"} <= set(task.verifier.tests)
    assert task.metadata["split_key"] == "src/calc/__init__.py" and task.metadata["tests_failing"] == 1
    assert "tests.test_calc.CalcTest::test_add`: AssertionError" in task.instruction and "a + b" not in task.instruction


@pytest.mark.docker
@pytest.mark.slow
def test_src_layout_unittest_project_with_a_dependency_gives_tasks_that_pass_check(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj")
    wheels = download_wheels(
        ["tinydep"], tmp_path / "wheels", find_links=_wheel(tmp_path / "links").parent, offline=True
    )
    report = from_repo(
        project, tmp_path / "out", max_tasks=2, budget_s=240, workers=2, wheels=tmp_path / "wheels", combined=0
    )
    assert report.passing_tests == 3 and 1 <= len(report.tasks) <= 2
    tasks = load_tasks(tmp_path / "out")
    assert [t.name for t in tasks] == sorted(p.name for p in report.tasks)
    base = {"grpo-envs-task-base": build_task_base_image()}
    for task in tasks:
        assert f"wheels/{wheels[0].name}" in task.environment.context
        check = check_task(task, base_images=base)
        assert check.ok, check.reason  # reference 1, no action 0, the dependency installed offline


@pytest.mark.docker
def test_a_suite_that_cannot_import_its_dependency_is_one_line(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj", dependency="missingdep")
    with pytest.raises(RepoTaskError, match="cannot import 'missingdep'") as err:
        from_repo(project, tmp_path / "out", budget_s=60, wheels=tmp_path / "nowheels")
    assert "\n" not in str(err.value) and not (tmp_path / "out").exists()


def test_candidates_come_round_robin_over_the_source_files(tmp_path: Path) -> None:
    from grpo_envs.repotasks._from_repo import _candidates

    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.py").write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(3)))
    first = [m.path for m in _candidates(tmp_path, [Path("a.py"), Path("b.py"), Path("c.py")], 0, 1)]
    assert first[:3] == ["a.py", "b.py", "c.py"] and sorted(first) == sorted(first[:3] * (len(first) // 3))
