"""TRL's multi-turn `environment_factory`: our tool-using envs as classes whose methods are tools.

TRL (>= 1.x) builds one instance per rollout (pooled and reused across steps) and calls
``reset(**row)`` with the dataset row before generation; a string it returns is appended to
the last user message. Every other public method is a tool: its type hints and Google-style
docstring become the JSON schema the chat template shows, and TRL runs the calls it parses
from the model's turns. ``get_reward()`` is then called once per rollout and logged under the
class name. Here each tool call is one ``env.step`` of our env, so the sandbox, the verifier
and the reward are exactly those of the env.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium

from grpo_envs._env import ReasoningEnv
from grpo_envs._judgement import Judgement
from grpo_envs._task import Task
from grpo_envs.adapters._common import Scorer, reference_text
from grpo_envs.adapters._trl_terminal import TerminalTools, is_terminal
from grpo_envs.errors import GrpoEnvsError

__all__ = ["CodeRepairTools", "PythonToolTools", "ToolEnvironment", "environment_factory"]

log = logging.getLogger("grpo_envs")


class ToolEnvironment:
    """One rollout of a multi-turn env for TRL: ``reset(**row)``, tool methods, ``get_reward()``.

    Built by `environment_factory` (which binds ``env_id`` and ``env_kwargs``); not meant to be
    subclassed by users. After a rollout, ``steps`` holds one record per tool call (tool,
    action, observation, reward, status, reason); ``status``/``reason`` explain the reward.
    """

    env_id: ClassVar[str] = ""
    env_kwargs: ClassVar[Mapping[str, Any]] = {}
    _unfinished: ClassVar[str | None] = None  # the reason when the rollout stops before the episode ends
    _first_tool: ClassVar[str] = ""

    def __init__(self) -> None:
        if not self.env_id:
            raise GrpoEnvsError(f"{type(self).__name__} has no env; build the class with environment_factory(env_id)")
        self._scorer = Scorer(self.env_id, **self.env_kwargs)
        self._env: ReasoningEnv | None = None
        self.task: Task | None = None
        self.steps: list[dict[str, Any]] = []
        self.reward = 0.0
        self.correct: bool | None = None
        self.status = "no_episode"
        self.reason = "reset() was not called"
        self.done = True

    # -- TRL's protocol ------------------------------------------------------------------------
    def reset(
        self,
        task_seed: int | None = None,
        split: str = "train",
        reference: str | None = None,
        prompt: Any = None,
        **columns: Any,
    ) -> str:
        """Start the episode of the row's task (rebuilt from ``task_seed`` and ``split``)."""
        if task_seed is None:
            raise GrpoEnvsError(
                f"the dataset row has no 'task_seed' column (columns: {sorted(['prompt', *columns])}): build it "
                f"with grpo_envs.adapters.trl.dataset({self.env_id!r}, n, conversational=True)"
            )
        if isinstance(prompt, str):
            raise GrpoEnvsError(
                "TRL's environment_factory needs conversational prompts (a list of messages), got a str: build the "
                f"dataset with grpo_envs.adapters.trl.dataset({self.env_id!r}, n, conversational=True)"
            )
        env = self._make(str(split))
        env.reset(seed=int(task_seed))
        assert env.task is not None
        if reference is not None and reference != reference_text(env.task):
            raise GrpoEnvsError(
                f"task seed {task_seed} of {self.env_id} ({split}) rebuilds a task whose reference is "
                f"{reference_text(env.task)[:80]!r}, not {reference[:80]!r}: the dataset was made with another "
                "env version or arguments"
            )
        self._env, self.task, self.steps = env, env.task, []
        self.reward, self.correct, self.done = 0.0, None, False
        self.status, self.reason = "in_progress", "the episode has not ended"
        return self._note(env)

    def get_reward(self) -> float:
        """The episode's summed step rewards (as grpo_envs' own trainer); 0.0 without a valid tool call."""
        if self._env is None:
            self.status, self.reason = "no_episode", "reset() was not called"
        elif all(step["status"] == "invalid" for step in self.steps):
            self.status, self.reason = (
                "no_answer",
                f"no valid tool call was made (the model must call {self._first_tool})",
            )
        elif not self.done and self._unfinished is not None:
            self.status, self.reason = "no_answer", self._unfinished
        return self.reward

    # -- shared machinery ----------------------------------------------------------------------
    def _note(self, env: ReasoningEnv) -> str:
        raise NotImplementedError

    def _make(self, split: str) -> ReasoningEnv:
        return self._scorer.env(split)

    def _step(self, tool: str, argument: str, value: Any, action: str | None = None) -> str:
        """One ``env.step`` for a tool call; what the tool returns to the model."""
        env = self._env
        if env is None:
            return "There is no episode: reset() was not called."
        if self.done:
            return f"The episode is over ({self.reason}). No more tool calls are needed."
        if not isinstance(value, str):
            reason = f"`{argument}` must be a string, got {type(value).__name__}"
            self._record(tool, repr(value), reason, 0.0, "invalid", reason)
            return f"Invalid call: {reason}."
        action = value if action is None else action
        try:
            observation, reward, terminated, truncated, info = env.step(action)
        except Exception as exc:  # an env that raises ends the episode; the reward so far stands
            log.exception("%s raised on a %s call", self.env_id, tool)
            self.done, self.status = True, "error"
            self.reason = f"the environment raised {type(exc).__name__}: {exc}"
            self._record(tool, action, "", 0.0, "error", self.reason)
            return f"The tool failed on our side ({type(exc).__name__}). The episode is over."
        ended = {"terminated": bool(terminated), "truncated": bool(truncated)}
        judgement = Judgement.of_step(reward, info)  # our env's own verdict
        self._take(judgement, env.max_turns, **ended)
        verdict = {"correct": self.correct, **ended}
        self._record(tool, action, observation, judgement.reward, self.status, self.reason, **verdict)
        return _reply(str(observation), env, **ended)

    def _take(self, judgement: Judgement, max_turns: int, *, terminated: bool, truncated: bool) -> None:
        """The episode's state after a step judged ``judgement``: reward summed, the last verdict, done."""
        self.reward += judgement.reward
        self.correct, self.status, self.reason = judgement.correct, judgement.status, judgement.reason
        self.done = terminated or truncated
        if truncated:
            self.reason = f"truncated after {max_turns} tool calls; the last: {self.reason}"

    def _record(
        self, tool: str, action: str, observation: Any, reward: float, status: str, reason: str, **more: Any
    ) -> None:
        """One record in ``steps``: the tool call, what it returned, and the verdict that explains its reward."""
        step = {"tool": tool, "action": action, "observation": observation, "reward": reward}
        self.steps.append({**step, "status": status, "reason": reason, **more})


def _reply(observation: str, env: ReasoningEnv, *, terminated: bool, truncated: bool) -> str:
    """What a tool returns to the model after a step: the observation, and how many calls are left."""
    if truncated:
        return f"{observation}\n(That was the last tool call: the episode is over.)".lstrip()
    if not terminated:
        return f"{observation}\n({env.turn} of {env.max_turns} tool calls used.)"
    return observation


class PythonToolTools(ToolEnvironment):
    """`PythonTool` for TRL: ``run_python(code)`` runs code in the sandbox, ``submit_answer(answer)`` ends."""

    _unfinished = "no final answer was submitted (the model must call submit_answer)"
    _first_tool = "run_python or submit_answer"

    def _note(self, env: ReasoningEnv) -> str:
        return (
            "\n\nIn this conversation you have tools instead: call `run_python` to run Python (its output is "
            "returned) and `submit_answer` with your final answer (only that answer is graded). "
            f"At most {env.max_turns} tool calls in all."
        )

    def run_python(self, code: str) -> str:
        """Run a Python program in a sandbox and return what it printed.

        Args:
            code: The whole Python program; print what you want to see.

        Returns:
            The program's standard output (and its error output when it fails).
        """
        if isinstance(code, str) and "\\boxed" in code:
            return "Invalid call: code may not contain \\boxed; give the final answer with submit_answer."
        action = f"```python\n{code}\n```" if isinstance(code, str) else None
        return self._step("run_python", "code", code, action)

    def submit_answer(self, answer: str) -> str:
        """Submit the final answer; the episode ends and only this answer is graded.

        Args:
            answer: The final answer, e.g. "1234".

        Returns:
            A confirmation that the answer was recorded.
        """
        action = (answer if "\\boxed" in answer else f"\\boxed{{{answer}}}") if isinstance(answer, str) else None
        reply = self._step("submit_answer", "answer", answer, action)
        return reply or "Your answer was recorded. The episode is over."


class CodeRepairTools(ToolEnvironment):
    """`CodeRepair` for TRL: each ``run_tests(code)`` call is one graded attempt at the fixed program."""

    _first_tool = "run_tests"

    def _note(self, env: ReasoningEnv) -> str:
        return (
            "\n\nSubmit your corrected program by calling the `run_tests` tool with the whole program: each call "
            "is graded on hidden tests and returns the first failing visible test. "
            f"At most {env.max_turns} calls; stop when the tests pass."
        )

    def run_tests(self, code: str) -> str:
        """Submit the whole corrected program; it is graded on hidden tests and the visible tests are run.

        Args:
            code: The whole corrected Python program (reads stdin, writes stdout).

        Returns:
            The first failing visible test (input, expected and actual output), or a note that all tests pass.
        """
        action = (code if "```" in code else f"```python\n{code}\n```") if isinstance(code, str) else None
        reply = self._step("run_tests", "code", code, action)
        return reply or "All hidden tests pass. The episode is over."


def _tool_classes() -> list[tuple[type[ReasoningEnv], type[ToolEnvironment]]]:
    from grpo_envs.envs.code_repair import CodeRepair
    from grpo_envs.envs.python_tool import PythonTool

    return [(PythonTool, PythonToolTools), (CodeRepair, CodeRepairTools)]


def environment_factory(env_id: str, **env_kwargs: Any) -> type[ToolEnvironment] | type[TerminalTools]:
    """A class for ``trl.GRPOTrainer(environment_factory=...)``: tools and reward of a multi-turn env.

    Supported: envs built on `PythonTool` (tools ``run_python(code)``, ``submit_answer(answer)``),
    `CodeRepair` (tool ``run_tests(code)``) and an id registered with `Terminal` (tool
    ``bash(command)``; its verifier is the reward: `TerminalTools`). Each tool call is one ``env.step`` in our
    sandbox; ``get_reward()`` is the episode's summed step rewards (TRL logs it under the
    class name, ``grpo_envs_<Name>_v<N>``). ``reset(**row)`` rebuilds the row's task from
    ``task_seed`` and ``split`` (use `dataset` with ``conversational=True``) and returns a
    note on the tools, which TRL appends to the prompt. The chat template must support tool
    calling (Qwen2.5/Qwen3, Llama 3.1, ... in TRL).

    Examples:
        >>> Env = environment_factory("grpo_envs/PythonTool-v0", difficulty=1)
        >>> env = Env()
        >>> "submit_answer" in env.reset(task_seed=0)
        True
        >>> env.submit_answer("-1")
        'Your answer was recorded. The episode is over.'
        >>> env.get_reward(), env.status
        (0.0, 'incorrect')
    """
    if "split" in env_kwargs:
        raise GrpoEnvsError("environment_factory takes no 'split': each dataset row's 'split' column sets it")
    name = "grpo_envs_" + env_id.split("/")[-1].replace("-", "_")
    if is_terminal(env_id):  # one bash tool over the session; the verifier is the reward
        shell: dict[str, Any] = {"env_id": env_id, "env_kwargs": dict(env_kwargs), "__module__": __name__}
        return type(name, (TerminalTools,), {**shell, "__doc__": TerminalTools.__doc__})
    probe = gymnasium.make(env_id, **env_kwargs).unwrapped
    supported = _tool_classes()
    base = next((tools for env_cls, tools in supported if isinstance(probe, env_cls)), None)
    if base is None:
        turns = getattr(probe, "max_turns", 1)
        kind = "a single-turn env" if turns == 1 else f"a multi-turn env without tools ({type(probe).__name__})"
        raise GrpoEnvsError(
            f"{env_id} is {kind}; environment_factory supports envs built on "
            f"{' or '.join(env_cls.__name__ for env_cls, _ in supported)}. "
            f"Use grpo_envs.adapters.trl.reward_function({env_id!r}) with dataset({env_id!r}, n) instead."
        )
    namespace = {"env_id": env_id, "env_kwargs": dict(env_kwargs), "__module__": __name__, "__doc__": base.__doc__}
    return type(name, (base,), namespace)
