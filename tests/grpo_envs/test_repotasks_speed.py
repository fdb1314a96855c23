"""Coverage-selected tests, flaky tests and combined bugs of `grpo_envs.repotasks`: the bundled
pytest plugin run on the host on a fixture project (which tests ran which entity, selection, what
was collected), the flaky merge, the validation of uncollected tests, combinations, the train/eval
split, the CLI's new flags, and (docker) a whole `from_repo` run whose combined task pays only for
a full repair."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grpo_envs.repotasks import Outcome, from_repo, mutations, parse_junit, split_task_folders, validate_candidate
from grpo_envs.repotasks._clean import merge
from grpo_envs.repotasks._combine import combine, pairs
from grpo_envs.repotasks._coverage import Coverage, plugin_source
from grpo_envs.repotasks._runner import SuiteRun, validation_of

P, F = Outcome("passed"), Outcome("failed", "boom")

CALC = """def register(f):
    return f


@register
def add(a, b):
    return a + b


def neg(a):
    return 0 - a


def unused(a):
    return a - 1


class Box:
    size = 3

    def get(self):
        def inner():
            return self.size

        return inner()

    def put(self, v):
        self.size = v
"""

TESTS = """import sys

import pytest

from calc import Box, add, neg


@pytest.fixture(scope="module")
def box():
    b = Box()
    b.put(4)
    return b


def test_add():
    assert add(2, 3) == 5


def test_neg():
    assert neg(2) == -2


def test_box(box):
    assert box.get() == 4


class TestX:
    @pytest.mark.parametrize("x", [1, 2])
    def test_p(self, x):
        assert neg(x) < 0


def test_flaky():
    assert sys.gettrace() is None  # fails only in the clean run traced for coverage
"""


def _project(root: Path) -> Path:
    (root / "calc").mkdir(parents=True)
    (root / "calc" / "__init__.py").write_text(CALC)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(TESTS)
    return root


def _pytest(project: Path, tmp: Path, **env: str) -> dict[str, Outcome]:
    """Run the fixture's suite on the host under the plugin; the JUnit report's outcomes."""
    (tmp / "site").mkdir(exist_ok=True)
    (tmp / "site" / "_grpo_cover.py").write_bytes(plugin_source())
    report = tmp / "report.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "_grpo_cover", "-p", "no:cacheprovider", "-q", f"--junitxml={report}"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": f"{tmp / 'site'}:{project}", "PYTHONDONTWRITEBYTECODE": "1", **env},
        capture_output=True,
        check=False,
    )
    return parse_junit(report.read_text())


def test_plugin_maps_tests_to_entities_with_fixtures_and_import_time(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj")
    outcomes = _pytest(project, tmp_path, GRPO_COVER_OUT=str(tmp_path / "cover.json"))
    cover = Coverage.from_json((tmp_path / "cover.json").read_text())
    assert set(cover.tests) == set(outcomes)  # the plugin's ids are the JUnit report's
    assert outcomes["tests.test_calc::test_flaky"].status == "failed"  # traced
    calc, params = "calc/__init__.py", {"tests.test_calc.TestX::test_p[1]", "tests.test_calc.TestX::test_p[2]"}
    assert cover.select(calc, "add") == {"tests.test_calc::test_add"}
    assert cover.select(calc, "neg") == {"tests.test_calc::test_neg", *params}
    assert cover.select(calc, "Box.put") == {"tests.test_calc::test_box"}  # through a module-scoped fixture
    assert cover.select(calc, "Box.get") == {"tests.test_calc::test_box"}  # its inner function too
    assert cover.select(calc, "unused") == frozenset()
    assert cover.select(calc, "add+neg") == {"tests.test_calc::test_add", "tests.test_calc::test_neg", *params}
    assert cover.select(calc, "Box") is None and cover.select(calc, "register") is None  # ran at import
    assert cover.select("other.py", "add") == frozenset()
    assert Coverage.from_json("not json") == Coverage()


def test_plugin_runs_only_selected_tests_and_lists_what_it_collected(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj")
    (tmp_path / "select.txt").write_text("tests.test_calc::test_add\ntests.test_calc.TestX::test_p[2]\n")
    collected = tmp_path / "collected.txt"
    env = {"GRPO_SELECT": str(tmp_path / "select.txt"), "GRPO_COLLECTED": str(collected)}
    outcomes = _pytest(project, tmp_path, **env)
    assert set(outcomes) == {"tests.test_calc::test_add", "tests.test_calc.TestX::test_p[2]"}
    assert len(collected.read_text().splitlines()) == 6 and outcomes["tests.test_calc::test_add"] == P
    (project / "tests" / "test_more.py").write_text("import calc.missing\n\ndef test_more():\n    pass\n")
    _pytest(project, tmp_path, **env)  # a test file that no longer imports: its tests are not collected
    assert "tests.test_more::test_more" not in collected.read_text()


def test_uncollected_tests_fail_and_unselected_ones_pass_by_construction() -> None:
    clean = {f"t{i}": P for i in range(8)}
    run = SuiteRun(outcomes={"t0": F, "t1": P}, collected={f"t{i}" for i in range(8)})
    one = validation_of(clean, run, {"t0", "t1"}, max_broken=5)
    assert one.kept and one.fail_to_pass == ("t0",) and len(one.pass_to_pass) == 7 and one.selected == 2
    lost = validation_of(clean, SuiteRun(outcomes={"t0": F, "t1": P}, collected={"t0", "t1"}), {"t0", "t1"}, 5)
    assert not lost.kept and len(lost.fail_to_pass) == 7  # six tests no longer collect: over the cap
    assert "the test was not collected" in lost.messages
    whole = validation_of(clean, SuiteRun(outcomes={**clean, "t3": F}, collected=set(clean)), None, 5)
    assert whole.kept and whole.selected is None


def test_merge_leaves_out_tests_that_pass_in_some_runs_only() -> None:
    runs = [
        SuiteRun(outcomes={"a": P, "b": P, "c": F, "d": P}),
        SuiteRun(outcomes={"a": P, "b": F, "c": F, "d": P}),
        SuiteRun(outcomes={"a": P, "b": P, "c": F}),
    ]
    outcomes, flaky = merge(runs)
    assert flaky == ("b", "d")  # d went missing in one run
    assert outcomes["a"] == P and outcomes["c"] == F and outcomes["b"].status == "failed"
    assert outcomes["b"].message.startswith("flaky: passed 2 of 3")
    assert validate_candidate(outcomes, {"a": P, "b": P, "c": P, "d": P}).pass_to_pass == ("a",)


def test_combine_makes_one_bug_of_two_entities_of_one_file() -> None:
    source = "def add(a, b):\n    return a + b\n\n\ndef neg(a):\n    return 0 - a\n\n\ndef same(a):\n    return a - 1\n"
    found = list(mutations(source, "m.py", techniques=("change_operator",)))
    add, neg, same = (next(m for m in found if m.entity == e) for e in ("add", "neg", "same"))
    both = combine(source, add, neg)
    assert both is not None and both.entity == "add+neg" and both.path == "m.py"
    assert (
        both.source
        == "def add(a, b):\n    return a - b\n\n\ndef neg(a):\n    return 0 + a\n\n\ndef same(a):\n    return a - 1\n"
    )
    assert both.lines_changed == 4 and "return a + b" in both.reverse and "return 0 - a" in both.reverse
    assert combine(source, add, add) is None  # one entity
    near = "def f(a):\n    return a + 1\ndef g(a): return a - 1\n"
    f, g = (next(m for m in mutations(near, "n.py", techniques=("change_operator",)) if m.entity == e) for e in "fg")
    assert combine(near, f, g) is None  # neighbouring lines: the hunks would merge
    assert combine(source, add, g) is None  # another file
    combos = list(pairs({"m.py": source}, [add, neg, same]))
    assert [c.entity for c in combos] == ["add+neg"]  # each entity in at most one combination


def test_split_keeps_each_files_tasks_on_one_side(tmp_path: Path) -> None:
    tasks = []
    for i in range(12):
        task = tmp_path / f"t{i}"
        task.mkdir()
        (task / "task.toml").write_text(f'[metadata]\nsplit_key = "pkg/m{i % 5}.py"\n')
        tasks.append(task)
    train, held = split_task_folders(tasks, eval_share=0.2, seed=3)
    assert sorted(train + held) == sorted(tasks) and not set(train) & set(held)

    def keys(side: list[Path]) -> set[str]:
        return {(t / "task.toml").read_text() for t in side}

    assert len(keys(held)) == 1 and not keys(train) & keys(held)  # ceil(0.2 * 5) files, all their tasks
    assert split_task_folders(tasks, eval_share=0.2, seed=3) == (train, held)  # stable
    assert split_task_folders(tasks[:8], eval_share=0.2, seed=3)[1] == [t for t in held if t in tasks[:8]]
    assert split_task_folders(tasks, eval_share=1.0)[0]  # never every file
    assert split_task_folders([tasks[0], tasks[5]]) == ([tasks[0], tasks[5]], [])  # one file: nothing to hold out


@pytest.mark.docker
def test_from_repo_selects_by_coverage_leaves_out_flaky_tests_and_combines(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj")
    report = from_repo(
        project, tmp_path / "out", max_tasks=3, budget_s=120, workers=2, per_entity=1, seed=1, combined=1
    )
    assert report.flaky == ("tests.test_calc::test_flaky",) and report.passing_tests == 5
    assert report.uncovered >= 1 and report.first_task_s is not None and report.first_task_s < report.seconds
    assert report.combined == 1 and len(report.tasks) == 4
    for task in report.tasks:
        assert "tests.test_calc::test_flaky" not in json.loads((task / "tests" / "expected.json").read_text())
    combo = report.tasks[-1]
    entity = {t: t.name.removeprefix("calc.__init__.").rsplit(".", 1)[0] for t in report.tasks}
    first, second = entity[combo].split("+")
    single = next(t for t in report.tasks if entity[t] == second)
    app = combo / "environment" / "project"
    test_sh = combo / "tests" / "test.sh"
    test_sh.write_text(test_sh.read_text().replace("python3 -m pytest", f"{sys.executable} -m pytest"))

    def reward() -> str:
        env = {"APP": str(app), "LOGS": str(tmp_path / "logs"), "PATH": os.environ["PATH"]}
        return subprocess.run(["bash", str(test_sh)], env=env, capture_output=True, text=True).stdout.strip()

    assert reward() == "0"  # no action
    broken_second = (single / "environment" / "project" / "calc" / "__init__.py").read_text()
    (app / "calc" / "__init__.py").write_text(broken_second)
    assert reward() == "0", f"repairing {first} alone must not pay"
    (app / "calc" / "__init__.py").write_text(CALC)
    assert reward() == "1"


def test_cli_passes_selection_flaky_runs_and_combinations_through(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from grpo_envs.repotasks import RepoReport, _cli

    asked: dict[str, object] = {}

    def fake(path: str, out: str, **kwargs: object) -> RepoReport:
        asked.update(kwargs)
        return RepoReport(tasks=[tmp_path], tried=4, kept=2, flaky=("t",), combined=1)

    monkeypatch.setattr(_cli, "from_repo", fake)
    argv = ["from-repo", "p", "--out", "o", "--whole-suite", "--combined", "0", "--clean-runs", "1"]
    assert _cli.tasks_main(argv) == 0
    assert asked["coverage"] is False and asked["combined"] == 0 and asked["clean_runs"] == 1
    assert "1 combined, 1 flaky tests left out" in capsys.readouterr().out
    assert _cli.tasks_main(["from-repo", "p", "--out", "o"]) == 0
    assert asked["coverage"] is True and asked["combined"] == 2 and asked["clean_runs"] == 3
