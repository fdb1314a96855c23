"""``grpo_envs/Terminal-v0`` over a folder of Harbor tasks, without Docker (a scripted session and
verifier; tests/grpo_envs/test_harbor_env_docker.py runs real ones): the prompt is the instruction,
a reset opens no session, the verifier's verdict is the step's, an unjudgeable one is masked with its
reason, the tasks split into train and eval, network tasks are left out, and the reference
solution becomes commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import pytest

import grpo_envs.envs.harbor as harbor
from grpo_envs import Judgement
from grpo_envs.errors import EnvConfigError
from grpo_envs.tools import ToolCall, tool_format
from verifiers import VerifyResult
from verifiers.agentic import AgenticTask, Environment, Limits, Verifier, write_task

QWEN = tool_format("qwen")
OFFLINE = Limits(agent_timeout_s=60.0, network_mode="none")


def make_task(name: str, word: str, *, limits: Limits = OFFLINE, test_sh: str | None = None) -> AgenticTask:
    """Write ``word`` to /work/out.txt; the tests give 1 when it is there."""
    check = f'[ "$(cat /work/out.txt 2>/dev/null)" = "{word}" ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n'
    return AgenticTask(
        name=name,
        instruction=f"Write the word {word} to /work/out.txt.\n",
        environment=Environment(dockerfile="FROM grpo-envs-task-base\nWORKDIR /work\n"),
        verifier=Verifier(tests={"test.sh": (test_sh or check).encode()}, artifacts=("/work/out.txt",)),
        solution={"solve.sh": f"#!/bin/bash\necho {word} > /work/out.txt\n".encode()},
        limits=limits,
        metadata={"category": "shell", "tags": ["x"]},
    )


class Shell:
    """Records commands; ``echo W > /work/out.txt`` lands in ``files``."""

    opened: list[Shell] = []

    def __init__(self, task: AgenticTask, image: str) -> None:
        self.task, self.image, self.commands, self.files = task, image, [], {}
        self.closed = False
        Shell.opened.append(self)

    def exec(self, command: str, *, timeout_s: float | None = None) -> Any:
        self.commands.append(command)
        words = command.split()
        if words[:1] == ["echo"] and words[-2:-1] == [">"]:
            self.files[words[-1]] = words[1]
        return type("R", (), {"stdout": "", "stderr": "", "exit_code": 0})()

    def close(self) -> None:
        self.closed = True


def verify(session: Shell, task: AgenticTask, image: str) -> VerifyResult:
    if task.name == "no-reward":
        return VerifyResult.judged("error", "the tests wrote no /logs/verifier/reward.txt: masked, not a 0")
    word = task.instruction.split()[3]
    ok = session.files.get("/work/out.txt") == word
    return VerifyResult.judged("correct" if ok else "incorrect", f"the tests gave reward {int(ok)}")


@pytest.fixture
def tasks_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "tasks"
    for k, word in enumerate(["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]):
        write_task(make_task(f"task-{k}", word), root)
    write_task(make_task("no-reward", "golf"), root)
    write_task(make_task("online", "hotel", limits=Limits(network_mode="public")), root)
    monkeypatch.setattr(harbor, "task_image", lambda task, bases: f"grpo-envs-task:{task.name}")
    Shell.opened = []
    return root


def _make(tasks_dir: Path, **kwargs: Any) -> Any:
    return gymnasium.make("grpo_envs/Terminal-v0", tasks_dir=str(tasks_dir), session=Shell, verify=verify, **kwargs)


def test_an_episode_is_the_tasks_instruction_its_session_and_its_tests_verdict(tasks_dir: Path) -> None:
    env = _make(tasks_dir, split="all")
    base = env.unwrapped
    names = [t.task_id for t in base.tasks]
    assert "online" not in names and len(names) == 7  # needs the network: left out
    seed = names.index("task-1")
    prompt, info = env.reset(seed=seed)
    assert prompt == "Write the word bravo to /work/out.txt.\n" and info["tools"][0]["function"]["name"] == "bash"
    assert Shell.opened == [] and base.task.task_id == "task-1"  # a reset opens no session
    assert base.task.metadata == {"category": "shell"}  # eval's attributes: plain values only
    for command in base.task.reference:
        _, reward, terminated, _, _ = env.step(QWEN.write(ToolCall("bash", {"command": command})))
        assert (reward, terminated) == (0.0, False)
    (shell,) = Shell.opened
    assert shell.image == "grpo-envs-task:task-1" and shell.commands == list(base.task.reference)
    _, reward, terminated, truncated, info = env.step("Done.")
    assert (reward, terminated, truncated) == (0.0, True, False)  # the scripted shell ran no heredoc
    env.reset(seed=seed)
    env.step(QWEN.write(ToolCall("bash", {"command": "echo bravo > /work/out.txt"})))
    _, reward, terminated, _, info = env.step("Done.")
    assert reward == 1.0 and info["status"] == "correct" and info["task_id"] == "task-1"
    assert isinstance(info["judgement"], Judgement) and info["judgement"].env_id == "grpo_envs/Terminal-v0"
    assert [c["command"] for c in info["commands"]] == ["echo bravo > /work/out.txt"] and Shell.opened[-1].closed


def test_a_missing_reward_is_a_masked_error_with_its_reason_and_a_nop_is_judged(tasks_dir: Path) -> None:
    env = _make(tasks_dir, split="all")
    names = [t.task_id for t in env.unwrapped.tasks]
    env.reset(seed=names.index("no-reward"))
    _, reward, terminated, _, info = env.step("I will not do it.")
    judgement = Judgement.of_step(reward, info)
    assert judgement.judged is False and info["correct"] is None and "reward.txt" in info["reason"]
    assert len(Shell.opened) == 1  # judging a nop opens the session it judges
    env.reset(seed=names.index("task-0"))
    _, reward, *_, info = env.step("Nothing to do.")
    assert (reward, info["status"]) == (0.0, "incorrect")


def test_a_session_that_does_not_start_is_a_masked_error(tasks_dir: Path) -> None:
    def broken(task: AgenticTask, image: str) -> Any:
        raise RuntimeError("no engine")

    env = gymnasium.make("grpo_envs/Terminal-v0", tasks_dir=str(tasks_dir), session=broken, verify=verify)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(QWEN.write(ToolCall("bash", {"command": "ls"})))
    assert terminated and info["status"] == "error" and "no engine" in info["reason"]
    assert Judgement.of_step(reward, info).judged is False


def test_train_and_eval_split_the_tasks_and_bad_arguments_are_one_line(tasks_dir: Path) -> None:
    train = {t.task_id for t in _make(tasks_dir).unwrapped.tasks}
    held = {t.task_id for t in _make(tasks_dir, split="eval", eval_fraction=0.5).unwrapped.tasks}
    train_half = {t.task_id for t in _make(tasks_dir, eval_fraction=0.5).unwrapped.tasks}
    assert held and train_half and held.isdisjoint(train_half) and len(held | train_half) == 7 and len(train) >= 5
    with pytest.raises(EnvConfigError, match="split must be a split holding tasks"):
        _make(tasks_dir, split="eval", eval_fraction=0.0)
    with pytest.raises(EnvConfigError, match="tasks_dir must be a folder of Harbor task folders, got None"):
        gymnasium.make("grpo_envs/Terminal-v0")
    with pytest.raises(EnvConfigError, match="split must be"):
        _make(tasks_dir, split="test")


def test_the_agents_time_budget_ends_the_episode(tasks_dir: Path) -> None:
    slow = make_task("slow", "india", limits=Limits(agent_timeout_s=0.0, network_mode="none"))
    root = tasks_dir.parent / "slow"
    write_task(slow, root)
    env = gymnasium.make("grpo_envs/Terminal-v0", tasks_dir=str(root), split="all", session=Shell, verify=verify)
    env.reset(seed=0)
    _, _, terminated, truncated, info = env.step(QWEN.write(ToolCall("bash", {"command": "sleep 1"})))
    assert (terminated, truncated) == (False, True) and info["turns"] == 1


def test_the_reference_solution_becomes_commands() -> None:
    task = make_task("t", "juliet")
    binary = AgenticTask(
        "b",
        "x",
        task.environment,
        task.verifier,
        solution={"solve.sh": b"bash lib/run.sh\n", "lib/run.sh": b"\xff\x00", "notes.txt": b"no newline"},
    )
    commands = harbor.reference_commands(binary)
    assert commands[-1] == "cd /tmp/solution && bash solve.sh"
    assert "mkdir -p /tmp/solution/lib && echo /wA= | base64 -d > /tmp/solution/lib/run.sh" in commands
    assert any(c.endswith("base64 -d > /tmp/solution/notes.txt") for c in commands)  # no final newline: base64
    assert harbor.reference_commands(AgenticTask("n", "x", task.environment, task.verifier)) == ()


def test_the_commands_check_for_an_engine_when_the_sessions_are_containers(tasks_dir: Path) -> None:
    from trainer.rollouts._envs import needs_engine

    assert needs_engine(gymnasium.make("grpo_envs/Terminal-v0", tasks_dir=str(tasks_dir)))
    assert not needs_engine(_make(tasks_dir))  # scripted sessions and verifier
