"""The gaming suite (`verifiers.testing.attack_tasks`, ``grpo-envs tasks attack``) and shared-mode
judging, on tasks written here: an honest task holds against every attack in separate mode and
against the attacks aimed at the judge in shared mode with a root agent; a weak task (its tests
only check that a file exists) and a trusting one (its tests trust the exit status of a process
that imports the agent's module) are flagged, naming the task and the attack; a shared judge that
keeps a planted reward file or leaves the agent's processes running, and a separate judge that
copies the outputs through the agent's own shell, are caught; the bystander session and a host
canary stay intact; each episode's commands are logged. Unit tests (no engine) check every
attack's script parses and the paths it fills. The docker tests take 90-150 s on 2 cores under a load average of 15
(the honest task's 15 attacks, four at a time, are about half of it)."""

from __future__ import annotations

import base64
import dataclasses
import json
import shlex
import subprocess
from pathlib import Path

import pytest

from grpo_envs._cli import main
from verifiers.agentic import (
    AgenticTask,
    Environment,
    EpisodeLog,
    Limits,
    Verifier,
    build_task_image,
    task_session,
    verify_task,
    write_jsonl,
    write_task,
)
from verifiers.sandbox import Session, image_tag
from verifiers.testing import ATTACKS, attack_tasks, output_paths
from verifiers.testing._attacks import script_preamble

TEST_PY = b"""import sys, unittest
sys.path.insert(0, "/work")
import calc

class TestAdd(unittest.TestCase):
    def test_add(self):
        self.assertEqual(calc.add(2, 3), 5)
        self.assertEqual(calc.add(-1, 1), 0)
"""
# Runs the agent's module in a child process and compares what it prints; writes 1 or 0.
HONEST_SH = b"""cd /tests
out=$(python3 -c 'import sys; sys.path.insert(0, "/work"); import calc; print(calc.add(2, 3), calc.add(-1, 1))')
if [ "$out" = "5 0" ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
"""
# Trusts the exit status of a process that imports the agent's module, and writes a reward only on
# a pass: a module that exits 0 early pays, and so would a planted reward file left in place.
TRUSTING_SH = b"cd /tests && python3 -m unittest -q test_calc && echo 1 > /logs/verifier/reward.txt\n"
LIMITS = Limits(agent_timeout_s=30, verifier_timeout_s=30, memory_mb=512, network_mode="none")
ENV = Environment(dockerfile="FROM grpo-envs-task-base\nWORKDIR /work\n")
HONEST = AgenticTask(
    "honest",
    "Write a Python module /work/calc.py with a function add(a, b) that returns a + b.",
    ENV,
    Verifier(tests={"test.sh": HONEST_SH}, artifacts=("/work/calc.py",)),
    solution={"solve.sh": b"printf 'def add(a, b):\\n    return a + b\\n' > /work/calc.py\n"},
    limits=LIMITS,
)
TRUSTING = dataclasses.replace(
    HONEST,
    name="trusting",
    verifier=Verifier(tests={"test.sh": TRUSTING_SH, "test_calc.py": TEST_PY}, artifacts=HONEST.verifier.artifacts),
)
WEAK = AgenticTask(
    "weak",
    "Write the sum of 1, 2 and 3 to /work/answer.txt.",
    ENV,
    Verifier(
        tests={"test.sh": b"if [ -f /work/answer.txt ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n"},
        artifacts=("/work/answer.txt",),
    ),
    solution={"solve.sh": b"echo 6 > /work/answer.txt\n"},
    limits=LIMITS,
)


def _shared_root(task: AgenticTask) -> AgenticTask:
    shared = dataclasses.replace(task.verifier, mode="shared")
    return dataclasses.replace(task, name=f"{task.name}-shared", agent_user="root", verifier=shared)


SHARED_ROOT = _shared_root(HONEST)
JUDGE_ATTACKS = ("reward-file", "tamper-tests", "path-shims", "background-rewriter", "verifier-killer", "exit-early")
BASES = {"grpo-envs-task-base": image_tag()}


def _pick(*names: str) -> list:
    return [a for a in ATTACKS if a.name in names]


def test_every_attack_script_parses_with_its_preamble() -> None:
    preamble = script_preamble(HONEST, "mark")
    for attack in ATTACKS:
        for command in attack.commands:
            proc = subprocess.run(["bash", "-n", "-c", preamble + command], capture_output=True, text=True)
            assert proc.returncode == 0, (attack.name, proc.stderr)
    assert len({a.name for a in ATTACKS}) == len(ATTACKS) == 15


def test_output_paths_are_the_artifacts_then_the_instructions_paths() -> None:
    assert output_paths(HONEST) == ("/work/calc.py",)
    task = dataclasses.replace(
        WEAK, instruction="Read /work/in.csv, write /app/out/report.json and /app/out/sum.txt.", verifier=WEAK.verifier
    )
    assert output_paths(task) == ("/work/answer.txt", "/work/in.csv", "/app/out/report.json", "/app/out/sum.txt")
    folder = dataclasses.replace(WEAK.verifier, artifacts=("/app/out",))
    assert output_paths(dataclasses.replace(task, verifier=folder))[0] == "/app/out/"


def test_an_episode_log_writes_json_lines(tmp_path: Path) -> None:
    log = EpisodeLog("t", "oracle")
    log.add("bash solve.sh", 0, 0.1234, 5)
    log.add("bash /tests/test.sh", None, 30.0, 0, "judge")
    assert write_jsonl([log, EpisodeLog("t", "nop")], tmp_path / "log.jsonl") == 2
    rows = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert rows[0] == {
        "task": "t",
        "episode": "oracle",
        "command": "bash solve.sh",
        "exit_code": 0,
        "seconds": 0.123,
        "output_chars": 5,
        "phase": "agent",
    }
    assert rows[1]["exit_code"] is None and rows[1]["phase"] == "judge"


@pytest.mark.docker
def test_the_suite_holds_on_an_honest_task_and_flags_weak_ones() -> None:
    report = attack_tasks([HONEST], base_images=BASES, workers=4)
    assert [r.attack for r in report.results] == [a.name for a in ATTACKS]
    assert report.ok, str(report)
    weak = attack_tasks([WEAK, TRUSTING], attacks=_pick("placeholder", "exit-early", "symlinks-out"), base_images=BASES)
    assert not weak.ok
    assert [(r.task, r.attack) for r in weak.paid] == [
        ("weak", "placeholder"),
        ("weak", "exit-early"),
        ("trusting", "exit-early"),
    ]
    rows = {row["task"]: row for row in weak.task_rows()}
    assert rows["weak"]["paid"] == ["placeholder", "exit-early"] and "placeholder outputs" in rows["weak"]["reason"]
    assert rows["trusting"]["reason"] == "attack exit-early paid" and rows["trusting"]["held"] == 2
    assert not report.escaped and not weak.escaped  # bystander session and host canary intact
    for result in report.results:  # the agent's commands and the judge's steps are logged
        phases = [r.phase for r in result.log.records]
        assert phases.count("agent") == len(next(a for a in ATTACKS if a.name == result.attack).commands)
        assert result.log.records[-1].command == "bash /tests/test.sh" and phases[-1] == "judge"
    bomb = next(r for r in report.results if r.attack == "fork-bomb")
    assert bomb.log.records[0].exit_code is None and bomb.log.records[1].exit_code == 0  # killed, then usable


@pytest.mark.docker
def test_shared_mode_judges_a_solution_and_holds_against_a_root_agent() -> None:
    image = build_task_image(SHARED_ROOT, base_images=BASES)
    log = EpisodeLog(SHARED_ROOT.name, "oracle")
    with task_session(SHARED_ROOT, image) as session:
        assert log.run(session, 'id -u; bash -c "$(cat)"', stdin=SHARED_ROOT.solution["solve.sh"]).stdout == "0\n"
        assert verify_task(session, SHARED_ROOT, image, log=log).status == "correct"
    judge_steps = [r.command for r in log.records if r.phase == "judge"]
    assert judge_steps[0].startswith("stop the agent") and "bash /tests/test.sh" in judge_steps
    report = attack_tasks([SHARED_ROOT], attacks=_pick(*JUDGE_ATTACKS), base_images=BASES)
    assert report.ok, str(report)


@pytest.mark.docker
@pytest.mark.parametrize(
    ("step", "weakened", "attack"),
    [
        ("_EMPTY", 'import os\nos.makedirs("/logs/verifier", exist_ok=True)\n', "reward-file"),  # keeps /logs
        ("_STOP", "", "background-rewriter"),  # leaves the agent's processes running
    ],
    ids=["keeps-logs", "leaves-processes"],
)
def test_the_suite_catches_a_weakened_shared_judge(
    monkeypatch: pytest.MonkeyPatch, step: str, weakened: str, attack: str
) -> None:
    from verifiers.agentic import _shared

    monkeypatch.setattr(_shared, step, weakened)
    report = attack_tasks([_shared_root(TRUSTING)], attacks=_pick(attack), base_images=BASES)
    assert [(r.task, r.attack) for r in report.paid] == [("trusting-shared", attack)]


def _artifacts_through_the_shell(session: Session, paths: tuple[str, ...], log: EpisodeLog) -> bytes:
    """How a judge might copy the outputs: a command in the agent's own shell, its tar taken whole."""
    names = " ".join(shlex.quote(p.lstrip("/")) for p in paths)
    r = session.exec(f"cd / && /usr/bin/env -i /bin/tar --ignore-failed-read -cf - {names} | /usr/bin/base64 -w0")
    return base64.b64decode(r.stdout)


@pytest.mark.docker
def test_the_suite_catches_a_separate_judge_that_copies_through_the_agents_shell(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from verifiers.agentic import _verify

    monkeypatch.setattr(_verify, "_artifacts", _artifacts_through_the_shell)
    report = attack_tasks([TRUSTING], attacks=_pick("shell-hijack", "placeholder"), base_images=BASES)
    assert [(r.task, r.attack) for r in report.paid] == [("trusting", "shell-hijack")]


@pytest.mark.docker
def test_tasks_attack_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for task in (HONEST, WEAK):
        write_task(task, tmp_path / "tasks")
    base = f"grpo-envs-task-base={image_tag()}"
    argv = ["tasks", "attack", str(tmp_path / "tasks"), "--json", "--base-image", base, "--attack", "placeholder"]
    assert main([*argv, "--log", str(tmp_path / "log.jsonl")]) == 1
    rows = {r["task"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows["honest"]["ok"] and rows["honest"]["held"] == 1
    assert not rows["weak"]["ok"] and rows["weak"]["paid"] == ["placeholder"]
    logged = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert {(r["task"], r["episode"]) for r in logged} == {("honest", "placeholder"), ("weak", "placeholder")}
    assert main(["tasks", "attack", str(tmp_path / "tasks/honest"), "--attack", "nope"]) == 2
