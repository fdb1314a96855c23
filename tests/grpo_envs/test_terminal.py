"""The terminal env over a session (here a scripted one: a dict file system, no container):
reference commands replayed as tool calls reach reward 1 through env.step, observations are cut
to their budget with a marker, the context budget truncates, and every command is logged."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from grpo_envs.envs.terminal import Terminal, TerminalTask, truncate
from grpo_envs.errors import EnvConfigError
from grpo_envs.tools import FORMATS, ToolCall, tool_format


@dataclass
class Result:
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = 0
    timed_out: bool = False


class FakeSession:
    """``echo TEXT > FILE``, ``cat FILE`` and ``seq N`` over a dict, the rest exits 127."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.closed = False

    def exec(self, command: str, *, timeout_s: float | None = None) -> Result:
        words = command.split()
        if words[:1] == ["echo"] and ">" in words:
            self.files[words[-1]] = " ".join(words[1 : words.index(">")]) + "\n"
            return Result()
        if words[:1] == ["cat"] and words[1] in self.files:
            return Result(self.files[words[1]])
        if words[:1] == ["seq"]:
            return Result("".join(f"{i}\n" for i in range(1, int(words[1]) + 1)))
        return Result(stderr=f"bash: {words[0]}: command not found\n", exit_code=127)

    def close(self) -> None:
        self.closed = True


TASK = TerminalTask(
    "Write the key (found in key.txt) to answer.txt.",
    verify=lambda s: float(s.files.get("answer.txt") == "42\n"),
    setup=("echo 42 > key.txt",),
    reference=("cat key.txt", "echo 42 > answer.txt"),
)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_replaying_the_reference_commands_reaches_reward_one(name: str) -> None:
    sessions: list[FakeSession] = []
    env = Terminal([TASK], session=lambda: sessions.append(FakeSession()) or sessions[-1], tool_format=name)
    fmt = tool_format(name)
    prompt, info = env.reset(seed=0)
    assert "key.txt" in prompt and info["messages"][0]["content"] == prompt
    for command in TASK.reference:
        observation, reward, terminated, truncated, info = env.step(fmt.write(ToolCall("bash", {"command": command})))
        assert (reward, terminated, truncated) == (0.0, False, False)
        assert info["tool_format"] == name and info["tool_results"][0][0].arguments == {"command": command}
    assert observation == ""  # echo prints nothing
    _, reward, terminated, truncated, info = env.step("Done: the key is in answer.txt.")
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert [s["command"] for s in info["commands"]] == list(TASK.reference)
    assert info["commands"][0]["output"] == "42\n" and info["commands"][0]["seconds"] >= 0
    assert sessions[0].closed


def test_a_wrong_end_state_scores_zero_and_errors_are_shown() -> None:
    env = Terminal([TASK], session=FakeSession)
    env.reset(seed=0)
    fmt = tool_format("qwen")
    observation, *_ = env.step(fmt.write(ToolCall("bash", {"command": "nosuch"})))
    assert "command not found" in observation and "[exit code 127]" in observation
    observation, *_ = env.step(fmt.write(ToolCall("python", {"code": "1"})))
    assert "no tool 'python'" in observation
    assert env.step("I give up.")[1:3] == (0.0, True)


def test_long_outputs_are_cut_with_a_marker_and_the_context_budget_truncates() -> None:
    env = Terminal([TASK], session=FakeSession, output_chars=100, context_chars=400)
    env.reset(seed=0)
    call = tool_format("qwen").write(ToolCall("bash", {"command": "seq 3000"}))
    observation, reward, terminated, truncated, info = env.step(call)
    assert len(observation) < 140 and "characters cut" in observation and observation.startswith("1\n2\n")
    assert observation.endswith("2999\n3000\n") and not truncated
    _, reward, terminated, truncated, info = env.step(call)  # what the model read counts: ~250 chars a turn
    assert (terminated, truncated, reward) == (False, True, 0.0) and len(info["commands"]) == 2
    env = Terminal([TASK], session=FakeSession, max_turns=1)
    env.reset(seed=0)
    assert env.step(tool_format("qwen").write(ToolCall("bash", {"command": "cat key.txt"})))[2:4] == (False, True)


def test_truncate_keeps_head_and_tail() -> None:
    assert truncate("short", 10) == "short"
    cut = truncate("x" * 50 + "y" * 50, 20)
    assert cut.startswith("x" * 10) and cut.endswith("y" * 10) and "80 characters cut" in cut


def test_bad_arguments_are_named() -> None:
    with pytest.raises(EnvConfigError, match="tool_format must be 'fenced', 'harmony'"):
        Terminal([TASK], session=FakeSession, tool_format="hermes")
    with pytest.raises(EnvConfigError, match="max_turns must be a positive integer"):
        Terminal([TASK], session=FakeSession, max_turns=0)
    with pytest.raises(EnvConfigError, match="tasks must be"):
        Terminal([], session=FakeSession)
