"""TRL's `environment_factory` for the `Terminal` env: one ``bash(command)`` tool over the episode's
session, and the task's verifier as ``get_reward()``.

TRL parses the model's calls with the chat template's own tool parser and runs each through the
``bash`` method: here each call is one ``Terminal.step`` (the call written in the env's format,
which the env parses back), so the session, the output budget, the command log and the verifier
are exactly the env's. The episode ends when TRL stops (the model answered without a call, or
TRL's ``max_tool_calling_iterations``): ``get_reward()`` then takes the env's turn without a call,
which judges the end state. The env's ``max_turns`` and ``context_chars`` still cut the episode
(each tool call is one turn): the next calls are told it is over.

A Terminal has no registered id of its own (its tasks are the user's): register one, e.g.
``gymnasium.register("my/Shell-v0", entry_point="grpo_envs.envs.terminal:Terminal",
kwargs={"tasks": tasks})``, then use ``dataset("my/Shell-v0", n, conversational=True)`` and
``environment_factory("my/Shell-v0")``.
"""

from __future__ import annotations

import inspect
import logging
from collections import defaultdict
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium

from grpo_envs._registry import resolve_env_id
from grpo_envs.adapters._common import task_seeds
from grpo_envs.envs.terminal import Terminal, TerminalTask
from grpo_envs.errors import GrpoEnvsError
from grpo_envs.tools import ToolCall

__all__ = ["TerminalTools", "is_terminal", "terminal_dataset"]

log = logging.getLogger("grpo_envs")


def is_terminal(env_id: str) -> bool:
    """Whether ``env_id`` is registered with `Terminal` (or a subclass) as its entry point."""
    from gymnasium.envs.registration import load_env_creator

    try:
        entry = gymnasium.spec(resolve_env_id(env_id)).entry_point
        creator: Any = load_env_creator(entry) if isinstance(entry, str) else entry
    except Exception:  # an unknown id: the caller's own make names it
        return False
    return inspect.isclass(creator) and issubclass(creator, Terminal)


def made(env_id: str, env_kwargs: Mapping[str, Any]) -> Terminal:
    """The `Terminal` that ``env_id`` makes with ``env_kwargs``."""
    env = gymnasium.make(resolve_env_id(env_id), **env_kwargs).unwrapped
    if not isinstance(env, Terminal):
        raise GrpoEnvsError(f"{env_id} makes a {type(env).__name__}, not a Terminal")
    return env


def reference_commands(task: TerminalTask) -> str:
    """A task's reference commands as one string column (one command a line)."""
    return "\n".join(task.reference)


def terminal_dataset(env_id: str, n: int, seed: int, split: str, conversational: bool, **env_kwargs: Any) -> Any:
    """`grpo_envs.adapters.trl.dataset` for a Terminal id: ``prompt`` (the task's instruction),
    ``task_seed`` (the reset seed that picks the task), ``split``, ``reference`` (the task's
    reference commands, checked on reset) and ``task_id`` (``task-K``, K its index)."""
    import datasets

    env = made(env_id, env_kwargs)
    rows: dict[str, list[Any]] = defaultdict(list)
    for task_seed in task_seeds(seed, n):
        index = task_seed % len(env.tasks)
        text = env.tasks[index].instruction
        rows["prompt"].append([{"role": "user", "content": text}] if conversational else text)
        rows["task_seed"].append(task_seed)
        rows["split"].append(split)
        rows["reference"].append(reference_commands(env.tasks[index]))
        rows["task_id"].append(f"task-{index}")
    return datasets.Dataset.from_dict(dict(rows))


class TerminalTools:
    """One rollout of a `Terminal` for TRL: ``reset(**row)``, the ``bash`` tool, ``get_reward()``.

    Built by `environment_factory`. After a rollout, ``steps`` holds one record per call
    (command, observation) and ``status``/``reason`` explain the reward; ``commands`` is the env's
    log (each command, its output, exit code and seconds).
    """

    env_id: ClassVar[str] = ""
    env_kwargs: ClassVar[Mapping[str, Any]] = {}

    def __init__(self) -> None:
        if not self.env_id:
            raise GrpoEnvsError(f"{type(self).__name__} has no env; build the class with environment_factory(env_id)")
        self._env: Terminal | None = None
        self.steps: list[dict[str, Any]] = []
        self.commands: list[dict[str, Any]] = []
        self.reward, self.done = 0.0, True
        self.status, self.reason = "no_episode", "reset() was not called"

    def reset(self, task_seed: int | None = None, reference: str | None = None, prompt: Any = None, **row: Any) -> str:
        """Start the episode of the row's task (picked by ``task_seed``, as ``Terminal.reset``)."""
        if task_seed is None:
            raise GrpoEnvsError(
                f"the dataset row has no 'task_seed' column: build it with "
                f"grpo_envs.adapters.trl.dataset({self.env_id!r}, n, conversational=True)"
            )
        env = self._env = self._env or made(self.env_id, self.env_kwargs)
        task = env.tasks[int(task_seed) % len(env.tasks)]
        if reference is not None and reference != reference_commands(task):
            raise GrpoEnvsError(
                f"task seed {task_seed} of {self.env_id} picks a task whose reference commands are "
                f"{reference_commands(task)[:80]!r}, not {reference[:80]!r}: the dataset was made with other tasks"
            )
        env.reset(seed=int(task_seed))
        self.steps, self.commands, self.reward, self.done = [], [], 0.0, False
        self.status, self.reason = "in_progress", "the episode has not ended"
        return (
            "\n\nRun shell commands with the `bash` tool (its output is returned); answer without a tool call "
            f"when you are done. At most {env.max_turns} commands."
        )

    def bash(self, command: str) -> str:
        """Run a bash command in the task's shell and return its output.

        Args:
            command: The command line to run.

        Returns:
            What the command printed (standard output, then error output), with its exit code when not 0.
        """
        env = self._env
        if env is None or self.done:
            return f"The episode is over ({self.reason}). No more commands are needed."
        action = env.format.write(ToolCall("bash", {"command": command}))
        observation, reward, terminated, truncated, info = self._step(action)
        self.steps.append({"tool": "bash", "action": command, "observation": observation, "reward": reward})
        if terminated or truncated:
            return f"{observation}\n(That was the last command: the episode is over.)".lstrip()
        return str(observation)

    def get_reward(self) -> float:
        """The verifier's judgement of the session's end state (1.0 solved); the episode ends here."""
        if self._env is not None and not self.done:
            self._step("")  # a turn without a call: the model is done, the task's verifier judges
        return self.reward

    def _step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """One ``Terminal.step``; an episode that ends keeps its reward, its command log and why."""
        assert self._env is not None
        try:
            observation, reward, terminated, truncated, info = self._env.step(action)
        except Exception as exc:  # a session that fails ends the episode at reward 0, never TRL's loop
            log.exception("%s raised on a bash call", self.env_id)
            self.done, self.reward, self.status = True, 0.0, "error"
            self.reason = f"the environment raised {type(exc).__name__}: {exc}"
            self._env.close()
            return f"The tool failed on our side ({type(exc).__name__}). The episode is over.", 0.0, True, False, {}
        if terminated or truncated:
            self.done, self.reward, self.commands = True, float(reward), list(info.get("commands", []))
            self.status = "correct" if self.reward >= 1.0 else "incorrect"
            how = "the model ended it" if terminated else f"cut at {self._env.max_turns} turns or the context budget"
            self.reason = f"the task's verifier gave {self.reward:g} ({how})"
        return str(observation), float(reward), bool(terminated), bool(truncated), info
