"""`environment_factory` for the Terminal env (issue #54): a registered Terminal id becomes a TRL tool
environment with one ``bash`` tool over the episode's session (here the scripted one, no Docker)
and the task's verifier as ``get_reward()``. Unit tests drive the class as TRL does; the last runs
the real `trl.GRPOTrainer` two steps with scripted turns, so the calls go through TRL's own parser
and tool loop into our env."""

from __future__ import annotations

import inspect
import itertools
import re
from pathlib import Path
from typing import Any

import gymnasium
import pytest

trl = pytest.importorskip("trl")

from grpo_envs.adapters import trl as adapter  # noqa: E402
from grpo_envs.envs.terminal import TerminalTask  # noqa: E402
from grpo_envs.errors import GrpoEnvsError  # noqa: E402
from tests.grpo_envs._trl_tiny import call, chat_tokenizer, grpo_config, tiny_model  # noqa: E402
from tests.grpo_envs.test_terminal import TASK, FakeSession  # noqa: E402

SEVEN = TerminalTask(
    "Write the last number `seq 7` prints to answer.txt.",
    verify=lambda s: float(s.files.get("answer.txt") == "7\n"),
    reference=("seq 7", "echo 7 > answer.txt"),
)
TASKS = (TASK, SEVEN)
SHELL = "tests/Shell-v0"
if SHELL not in gymnasium.registry:
    gymnasium.register(
        SHELL, entry_point="grpo_envs.envs.terminal:Terminal", kwargs={"tasks": TASKS, "session": FakeSession}
    )


def _started(k: int = 0, **env_kwargs: Any) -> tuple[Any, dict[str, Any]]:
    row = adapter.dataset(SHELL, n=k + 1, seed=0, conversational=True, **env_kwargs)[k]
    env = adapter.environment_factory(SHELL, **env_kwargs)()
    note = env.reset(**row)
    assert note.startswith("\n\n") and "`bash`" in note
    return env, row


def _task(row: dict[str, Any]) -> TerminalTask:
    return next(t for t in TASKS if t.instruction == row["prompt"][0]["content"])


def test_the_dataset_holds_each_tasks_instruction_and_the_only_tool_is_bash() -> None:
    from transformers.utils import get_json_schema

    data = adapter.dataset(SHELL, n=8, seed=0, conversational=True)
    assert {r["task_id"] for r in data} == {"task-0", "task-1"}
    for row in data:
        task = TASKS[row["task_seed"] % 2]
        assert row["prompt"] == [{"role": "user", "content": task.instruction}]
        assert row["reference"] == "\n".join(task.reference) and row["task_id"] == f"task-{row['task_seed'] % 2}"
    env = adapter.environment_factory(SHELL)()
    public = {n for n, _ in inspect.getmembers(type(env), inspect.isfunction) if not n.startswith("_")}
    assert public == {"reset", "get_reward", "bash"} and type(env).__name__ == "grpo_envs_Shell_v0"
    schema = get_json_schema(env.bash)["function"]
    assert schema["parameters"]["required"] == ["command"] and schema["parameters"]["properties"]["command"]


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_the_reference_commands_reach_the_verifiers_reward_and_a_wrong_end_state_zero(k: int) -> None:
    env, row = _started(k)
    task = _task(row)
    outputs = [env.bash(command) for command in task.reference]
    assert outputs[0] in ("42\n", "1\n2\n3\n4\n5\n6\n7\n") and outputs[1] == ""
    assert env.get_reward() == 1.0 and env.status == "correct"
    assert [c["command"] for c in env.commands] == list(task.reference)
    assert env.bash("ls").startswith("The episode is over")
    env.reset(**row)  # TRL reuses the instance: a fresh session
    env.bash("echo 41 > answer.txt")
    assert env.get_reward() == 0.0 and env.status == "incorrect" and "verifier gave 0" in env.reason


def test_max_turns_ends_the_episode_and_the_reward_is_still_the_verifiers() -> None:
    env, row = _started(0, max_turns=1)
    assert env.bash("echo 42 > answer.txt").endswith("(That was the last command: the episode is over.)")
    assert env.bash("ls").startswith("The episode is over") and len(env.steps) == 1
    assert env.get_reward() == (1.0 if _task(row) is TASK else 0.0)


def test_bad_rows_raise_our_error() -> None:
    env = adapter.environment_factory(SHELL)()
    with pytest.raises(GrpoEnvsError, match="no 'task_seed' column"):
        env.reset(prompt=[{"role": "user", "content": "x"}])
    with pytest.raises(GrpoEnvsError, match="the dataset was made with other tasks"):
        env.reset(task_seed=0, reference="rm -rf /")
    assert env.get_reward() == 0.0 and env.status == "no_episode"


@pytest.mark.slow
@pytest.mark.filterwarnings(r"ignore:`\w*gradient_checkpointing\w*` is deprecated:FutureWarning")
def test_trl_grpo_trainer_runs_bash_in_our_terminal_and_logs_the_verifiers_rewards(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    tokenizer = chat_tokenizer()
    rollouts = itertools.count()

    def turn(text: str) -> str:
        """Turn 1 runs the task's first reference command (``seq 1`` on odd rollouts), turn 2 writes
        the last line it printed to answer.txt, turn 3 is done."""
        responses = re.findall(r"<tool_response>\n(.*?)\n?</tool_response>", text, re.DOTALL)
        if not responses:
            task = next(t for t in TASKS if t.instruction in text)
            return call("bash", command=task.reference[0] if next(rollouts) % 2 == 0 else "seq 1")
        if len(responses) == 1:
            return call("bash", command=f"echo {responses[0].split()[-1]} > answer.txt")
        return "Done."

    seen: list[list[tuple[list[Any], float]]] = []

    class Scripted(trl.GRPOTrainer):
        def _generate_single_turn(self, prompt_ids: list[list[int]], *args: Any, **kwargs: Any) -> Any:
            turns = [turn(tokenizer.decode(ids)) + "<|im_end|>" for ids in prompt_ids]
            return [tokenizer(t, add_special_tokens=False)["input_ids"] for t in turns], None

        def _calculate_rewards(self, inputs: Any, prompts: Any, completions: Any, ids: Any) -> Any:
            rewards = super()._calculate_rewards(inputs, prompts, completions, ids)
            seen.append([(list(e.commands), e.get_reward()) for e in self.environments])
            return rewards

    args = grpo_config(
        tmp_path, per_device_train_batch_size=4, max_completion_length=512, max_steps=2, learning_rate=1e-3
    )
    data = adapter.dataset(SHELL, n=2, seed=0, conversational=True)
    factory = adapter.environment_factory(SHELL)
    trainer = Scripted(
        model=tiny_model(tokenizer), args=args, processing_class=tokenizer, train_dataset=data,
        environment_factory=factory,
    )  # fmt: skip
    trainer.train()
    logged = [h for h in trainer.state.log_history if "rewards/grpo_envs_Shell_v0/mean" in h]
    assert len(logged) == 2 and len(seen) == 2
    assert all(h["tools/call_frequency"] == 2.0 and h["tools/failure_frequency"] == 0.0 for h in logged)
    for entry, episodes in zip(logged, seen, strict=True):
        for commands, reward in episodes:  # the verifier's verdict on what the commands left
            wrote = commands[1]["command"]
            assert [c["command"] for c in commands][0] in ("cat key.txt", "seq 7", "seq 1")
            assert reward == (1.0 if wrote in ("echo 42 > answer.txt", "echo 7 > answer.txt") else 0.0)
        assert sorted(r for _, r in episodes) == [0.0, 0.0, 1.0, 1.0]
        assert entry["rewards/grpo_envs_Shell_v0/mean"] == pytest.approx(0.5)
