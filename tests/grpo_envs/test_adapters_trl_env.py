"""`environment_factory`: PythonTool and CodeRepair as TRL tool environments.

Unit tests drive the class as TRL does (``reset(**row)``, tool methods, ``get_reward()``); the
last test runs the real `trl.GRPOTrainer` with scripted turns (a random tiny model never calls
a tool) so real tool calls go through TRL's parser and tool loop into our Docker sandbox.
"""

from __future__ import annotations

import inspect
import itertools
import re
import socket
from pathlib import Path
from typing import Any

import gymnasium
import pytest

trl = pytest.importorskip("trl")

from grpo_envs.adapters import trl as adapter  # noqa: E402
from grpo_envs.errors import GrpoEnvsError  # noqa: E402
from tests.grpo_envs._trl_tiny import call, chat_tokenizer, grpo_config, scripted_turns, tiny_model  # noqa: E402

PYTOOL, REPAIR = "grpo_envs/PythonTool-v0", "grpo_envs/CodeRepair-v0"


def _started(env_id: str, k: int = 0, **env_kwargs: Any) -> tuple[Any, dict[str, Any]]:
    row = adapter.dataset(env_id, n=k + 1, seed=0, conversational=True, **env_kwargs)[k]
    env = adapter.environment_factory(env_id, **env_kwargs)()
    note = env.reset(**row)
    assert isinstance(note, str) and note.startswith("\n\n")  # TRL appends it to the user message
    return env, row


def _reference_env(env_id: str, row: dict[str, Any], **env_kwargs: Any) -> Any:
    env = gymnasium.make(env_id, split=row["split"], **env_kwargs).unwrapped
    env.reset(seed=row["task_seed"])
    return env


# -- without a sandbox -------------------------------------------------------------------------
def test_reset_rebuilds_the_rows_task_and_the_tools_have_schemas() -> None:
    from transformers.utils import get_json_schema

    env, row = _started(PYTOOL, k=2, difficulty=1)
    assert env.task == _reference_env(PYTOOL, row, difficulty=1).task
    assert env.task.task_id == row["task_id"] and type(env).__name__ == "grpo_envs_PythonTool_v0"
    # TRL exposes every public function of the class but reset/get_reward as a tool.
    public = {n for n, _ in inspect.getmembers(type(env), inspect.isfunction) if not n.startswith("_")}
    assert public == {"reset", "get_reward", "run_python", "submit_answer"}
    schema = get_json_schema(env.run_python)["function"]
    assert schema["parameters"]["required"] == ["code"] and schema["parameters"]["properties"]["code"]["description"]
    assert get_json_schema(adapter.environment_factory(REPAIR)().run_tests)["function"]["name"] == "run_tests"


@pytest.mark.parametrize("kind", ["right", "wrong", "empty", "words", "boxed", "two answers"])
def test_the_reward_of_submit_answer_is_env_steps(kind: str) -> None:
    env, row = _started(PYTOOL, k=1)
    ref = row["reference"]
    answer = {
        "right": ref,
        "wrong": str(int(ref) + 1),
        "empty": "",
        "words": "the answer is large",
        "boxed": f"\\boxed{{{ref}}}",
        "two answers": f"{int(ref) + 1} or {ref}",
    }[kind]
    assert env.submit_answer(answer) == "Your answer was recorded. The episode is over."
    reward = env.get_reward()
    step = _reference_env(PYTOOL, row).step(answer if kind == "boxed" else f"\\boxed{{{answer}}}")
    assert reward == step[1] and env.status == step[4]["status"] and env.reason == step[4]["reason"]
    assert reward == (1.0 if kind in ("right", "boxed") else 0.0)
    assert env.submit_answer(ref).startswith("The episode is over") and env.get_reward() == reward  # no second try


def test_bad_calls_give_a_zero_reward_with_a_reason() -> None:
    env, row = _started(PYTOOL)
    assert env.get_reward() == 0.0 and env.status == "no_answer" and "no valid tool call was made" in env.reason
    assert env.submit_answer(42).startswith("Invalid call: `answer` must be a string, got int")  # type: ignore[arg-type]
    assert env.run_python(None).startswith("Invalid call")  # type: ignore[arg-type]
    assert env.run_python("print('\\\\boxed{1}')").startswith("Invalid call: code may not contain \\boxed")
    assert env.get_reward() == 0.0 and not env.done and env.reason.startswith("no valid tool call")  # no turn used
    reason = "`answer` must be a string, got int"
    assert env.steps[0] == {
        "tool": "submit_answer", "action": "42", "observation": reason, "reward": 0.0, "status": "invalid", "reason": reason
    }  # fmt: skip
    fresh = adapter.environment_factory(PYTOOL)()
    assert fresh.get_reward() == 0.0 and fresh.reason == "reset() was not called"
    assert fresh.submit_answer("1").startswith("There is no episode")


def test_a_sandbox_failure_ends_the_episode_with_a_zero_reward_and_the_reason(caplog: Any) -> None:
    class Broken:
        def run(self, code: str, **kwargs: Any) -> Any:
            raise RuntimeError("engine gone")

    env, _ = _started(PYTOOL, sandbox=Broken())
    assert env.run_python("print(1)") == "The tool failed on our side (RuntimeError). The episode is over."
    assert env.get_reward() == 0.0 and env.status == "error" and "RuntimeError: engine gone" in env.reason
    assert env.submit_answer("1").startswith("The episode is over (the environment raised RuntimeError")
    assert "raised on a run_python call" in caplog.text
    assert env.steps == [
        {"tool": "run_python", "action": "```python\nprint(1)\n```", "observation": "", "reward": 0.0,
         "status": "error", "reason": env.reason}
    ]  # fmt: skip


def test_bad_rows_and_unsupported_envs_raise_our_error() -> None:
    env_cls = adapter.environment_factory(PYTOOL)
    row = adapter.dataset(PYTOOL, n=1, seed=0, conversational=True)[0]
    with pytest.raises(GrpoEnvsError, match="no 'task_seed' column.*conversational=True"):
        env_cls().reset(prompt=row["prompt"])
    with pytest.raises(GrpoEnvsError, match="needs conversational prompts"):
        env_cls().reset(**{**row, "prompt": "text"})
    with pytest.raises(GrpoEnvsError, match="rebuilds a task whose reference"):
        env_cls().reset(**{**row, "reference": "-1"})
    with pytest.raises(GrpoEnvsError, match=r"single-turn env.*reward_function\('grpo_envs/Arithmetic-v0'\)"):
        adapter.environment_factory("grpo_envs/Arithmetic-v0")
    with pytest.raises(GrpoEnvsError, match="no 'split'"):
        adapter.environment_factory(PYTOOL, split="eval")


# -- in the sandbox ----------------------------------------------------------------------------
@pytest.mark.docker
def test_run_python_runs_in_our_sandbox_and_the_episode_matches_env_step() -> None:
    env, row = _started(PYTOOL, k=3)
    code = "import socket\nprint('marker-7f3a', socket.gethostname())"
    reply = env.run_python(code)
    marker = re.search(r"marker-7f3a (\S+)", reply)
    assert marker is not None and marker.group(1) != socket.gethostname()  # ran in a container, not here
    reference = _reference_env(PYTOOL, row)
    observation, reward, *_ = reference.step(f"```python\n{code}\n```")
    assert reply.startswith("Output:\nmarker-7f3a ") and reward == 0.0 and env.steps[0]["reward"] == 0.0
    assert observation.split()[:2] == reply.split()[:2] and reply.endswith("(1 of 4 tool calls used.)")
    env.submit_answer(row["reference"])
    assert (
        env.get_reward() == 1.0
        and env.correct is True
        and [s["tool"] for s in env.steps] == ["run_python", "submit_answer"]
    )
    # Out of turns: truncated, the late answer is refused, the reward is 0 with the reason.
    env.reset(**row)
    replies = [env.run_python("print(1)") for _ in range(4)]
    assert replies[-1].endswith("the episode is over.)") and env.done
    assert env.submit_answer(row["reference"]).startswith("The episode is over (truncated after 4 tool calls")
    assert env.get_reward() == 0.0
    last = env.steps[-1]
    assert {k: last[k] for k in ("tool", "reward", "correct", "terminated", "truncated")} == {
        "tool": "run_python", "reward": 0.0, "correct": False, "terminated": False, "truncated": True
    }  # fmt: skip
    assert last["reason"].startswith("truncated after 4 tool calls; the last: ") and last["status"] == env.status


@pytest.mark.docker
def test_run_tests_is_one_graded_attempt_of_code_repair() -> None:
    public = {"stdin_stdout": [{"input": "3\n", "output": "6\n"}]}
    private = {"stdin_stdout": [{"input": "5\n", "output": "10\n"}, {"input": "0\n", "output": "0\n"}]}
    rows = [
        {
            "prompt": "Read n and print 2n.",
            "buggy_code": "print(int(input()) + 2)",
            "public_tests": public,
            "private_tests": private,
        }
    ]
    kw: dict[str, Any] = {"rows": rows, "eval_fraction": 0}
    env, row = _started(REPAIR, **kw)
    reference = _reference_env(REPAIR, row, **kw)
    attempts = [
        "print(int(input()) + 1)",
        "n = input()\nprint(6 if n.strip() == '3' else 0)",
        "print(2 * int(input()))",
    ]
    total = 0.0
    for code in attempts:
        reply = env.run_tests(code)
        observation, reward, terminated, _, _ = reference.step(f"```python\n{code}\n```")
        total += float(reward)
        assert (observation or "All hidden tests pass") in reply and env.get_reward() == pytest.approx(total)
    assert "Visible test 1 failed" in env.steps[0]["observation"] and "hidden tests" in env.steps[1]["observation"]
    assert env.get_reward() == pytest.approx(1.5) and env.correct is True and env.done  # 0 + 0.5 + 1 (summed)


# -- the real GRPOTrainer ----------------------------------------------------------------------
class _Recording:
    """Our Docker sandbox, recording each program it runs."""

    def __init__(self) -> None:
        from verifiers.sandbox import default_sandbox

        self.box = default_sandbox()
        self.runs: list[tuple[str, Any]] = []

    def run(self, code: str, **kwargs: Any) -> Any:
        result = self.box.run(code, **kwargs)
        self.runs.append((code, result))
        return result


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.filterwarnings(
    r"ignore:`\w*gradient_checkpointing\w*` is deprecated:FutureWarning"
)  # TRL vs transformers 5.24
def test_trl_grpo_trainer_calls_our_tools_and_logs_our_rewards(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    tokenizer = chat_tokenizer()
    model = tiny_model(tokenizer)
    sandbox = _Recording()
    data = adapter.dataset(PYTOOL, n=2, seed=0, conversational=True, difficulty=1)
    references = {r["prompt"][0]["content"]: r["reference"] for r in data}
    seen: list[tuple[list[Any], list[Any]]] = []
    rollouts = itertools.count()

    def run_python(text: str) -> str:
        k, ref = next(rollouts), next(r for q, r in references.items() if q in text)
        return call("run_python", code=f"import socket\nprint('MARK-{k}', {ref} + {k % 2}, socket.gethostname())")

    class Scripted(trl.GRPOTrainer):
        """Turn 1 runs code printing the answer (+1 on odd rollouts), turn 2 submits what it printed, turn 3 stops."""

        def _generate_single_turn(self, prompt_ids: list[list[int]], *args: Any, **kwargs: Any) -> Any:
            return scripted_turns(tokenizer, prompt_ids, r"Output:\nMARK-\d+ (-?\d+) ", run_python)

        def _calculate_rewards(self, inputs: Any, prompts: Any, completions: Any, ids: Any) -> Any:
            rewards = super()._calculate_rewards(inputs, prompts, completions, ids)
            seen.append(
                (
                    completions,
                    [(dict(x), list(e.steps), e.get_reward()) for x, e in zip(inputs, self.environments, strict=True)],
                )
            )
            return rewards

    args = grpo_config(
        tmp_path, per_device_train_batch_size=4, max_completion_length=512, max_steps=2, learning_rate=1e-3
    )
    factory = adapter.environment_factory(PYTOOL, difficulty=1, sandbox=sandbox)
    trainer = Scripted(
        model=model, args=args, processing_class=tokenizer, train_dataset=data, environment_factory=factory
    )
    trainer.train()

    # Real tool calls: TRL parsed 2 calls per rollout from the scripted turns and none failed.
    logged = [h for h in trainer.state.log_history if "rewards/grpo_envs_PythonTool_v0/mean" in h]
    assert len(logged) == 2 and len(seen) == 2
    assert all(h["tools/call_frequency"] == 2.0 and h["tools/failure_frequency"] == 0.0 for h in logged)
    assert all(h["completions/clipped_ratio"] == 0.0 for h in logged)  # every rollout ended after its answer
    # They ran in our sandbox (a container), and TRL fed the output back as the tool message.
    assert len(sandbox.runs) == 8 and all(r.exit_code == 0 for _, r in sandbox.runs)
    for entry, (completions, episodes) in zip(logged, seen, strict=True):
        rewards = []
        for completion, (row, steps, reward) in zip(completions, episodes, strict=True):
            assert [m["role"] for m in completion] == ["assistant", "tool", "assistant", "tool", "assistant"]
            tool_messages = [m["content"] for m in completion if m["role"] == "tool"]
            mark, value, host = re.findall(r"(MARK-\d+) (-?\d+) (\S+)", tool_messages[0])[0]
            assert host != socket.gethostname() and any(mark in r.stdout for _, r in sandbox.runs)
            assert [s["tool"] for s in steps] == ["run_python", "submit_answer"] and mark in steps[0]["observation"]
            # The reward is ours: the env's own steps on the same actions give the same reward.
            replay = _reference_env(PYTOOL, row, difficulty=1, sandbox=sandbox)
            assert reward == sum(float(replay.step(s["action"])[1]) for s in steps)
            assert reward == (1.0 if value == row["reference"] else 0.0)
            rewards.append(reward)
        assert sorted(rewards) == [0.0, 0.0, 1.0, 1.0]  # the right answer came from the sandbox's output
        assert entry["rewards/grpo_envs_PythonTool_v0/mean"] == pytest.approx(sum(rewards) / len(rewards))
