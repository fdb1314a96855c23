"""Terminal: the model runs shell commands in a session over many turns, then the task's verifier
judges the end state."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import gymnasium

from grpo_envs._judgement import Judgement
from grpo_envs._spaces import TextSpace
from grpo_envs.errors import EnvConfigError, SetupError
from grpo_envs.tools import FORMATS, ToolCall, bash_tool
from verifiers import VerifyResult

__all__ = ["Terminal", "TerminalTask"]

MARKER = "\n[... {cut} characters cut ...]\n"
log = logging.getLogger("grpo_envs")


class _Shell(Protocol):
    """What the env needs of a session (`verifiers.sandbox.Session` has it)."""

    def exec(self, command: str, *, timeout_s: float | None = None) -> Any: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class TerminalTask:
    """One task: the ``instruction`` the model reads, ``setup`` commands run before the first
    turn, ``verify(session)`` judging the end state (a float, 1.0 solved, or a `VerifyResult`:
    one with status "error" or "timeout" is masked, never trained as a 0), and ``reference``
    commands that solve it (what a scripted replay runs). ``session`` makes this task's sessions
    (its own image; default: the env's factory); ``task_id`` and ``metadata`` name it in eval;
    ``time_budget_s`` is the agent's time, its commands' seconds summed (None: no budget)."""

    instruction: str
    verify: Callable[[Any], float | VerifyResult]
    setup: tuple[str, ...] = ()
    reference: tuple[str, ...] = ()
    session: Callable[[], Any] | None = None
    task_id: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    time_budget_s: float | None = None


@dataclass
class _Step:
    command: str
    output: str
    exit_code: int | None
    seconds: float


@dataclass
class _Episode:
    task: TerminalTask
    session: Any = None  # opened at the first command (or setup, or judging): a reset costs nothing
    turns: int = 0
    spent: int = 0  # characters of actions and observations so far (the context budget)
    seconds: float = 0.0  # the commands' time so far (the agent's time budget)
    log: list[_Step] = field(default_factory=list)


class Terminal(gymnasium.Env[str, str]):
    """Multi-turn shell use: each turn the model calls the ``bash`` tool in its chat family's
    format (``tool_format``); the commands run in the episode's session and their output comes
    back as the tool role's message (token-exact in the trainer: ``info["tool_results"]``).

    ## Episode end
    Terminated on a turn without a call (the model says it is done); truncated after
    ``max_turns``, when the episode's ``context_chars`` are spent, or when the task's
    ``time_budget_s`` is. Either way ``verify`` judges the session's end state: that is the
    reward, and ``info["judgement"]`` the verdict (an error verdict is masked by trainers).

    ## Arguments
    ``tasks`` (chosen by the reset seed), ``session`` (a factory of sessions, default
    `verifiers.sandbox.Session`), ``tool_format`` (a name of `grpo_envs.tools.FORMATS`),
    ``max_turns`` (default 16), ``output_chars`` (each observation's cap, the middle cut with a
    marker; default 4000), ``context_chars`` (default 64000), ``timeout_s`` per command.

    ``info["commands"]`` at the end logs each command, its output, exit code and seconds.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        tasks: Sequence[TerminalTask],
        *,
        session: Callable[[], _Shell] | None = None,
        tool_format: str = "qwen",
        max_turns: int = 16,
        output_chars: int = 4000,
        context_chars: int = 64000,
        timeout_s: float = 30.0,
    ) -> None:
        if not tasks:
            raise EnvConfigError("Terminal", "tasks", "a non-empty sequence of TerminalTask", tasks)
        if tool_format not in FORMATS:
            raise EnvConfigError("Terminal", "tool_format", sorted(FORMATS), tool_format)
        for name, value in (("max_turns", max_turns), ("output_chars", output_chars), ("context_chars", context_chars)):
            if value < 1:
                raise EnvConfigError("Terminal", name, "a positive integer", value)
        self.tasks, self.session_factory = list(tasks), session or _default_session
        self.format = FORMATS[tool_format]()
        self.tools = [bash_tool()] if self.format.takes_tools else None
        self.max_turns, self.timeout_s = max_turns, timeout_s
        self.output_chars, self.context_chars = output_chars, context_chars
        self.episode: _Episode | None = None
        self._task: TerminalTask | None = None
        self.observation_space = TextSpace(max(context_chars, 65_536))
        self.action_space = TextSpace(max(context_chars, 65_536))

    @property
    def env_id(self) -> str:
        """The registered id (the class's name when made without one)."""
        spec = getattr(self, "spec", None)
        return spec.id if spec is not None else type(self).__name__

    @property
    def task(self) -> TerminalTask | None:
        """The task of the last reset (eval reads its ``task_id`` and ``metadata``)."""
        return self._task

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.close()
        self._task = task = self.tasks[(seed or 0) % len(self.tasks)]
        self.episode = _Episode(task)
        prompt = task.instruction
        if not self.format.takes_tools:
            prompt += "\n\nRun shell commands in ```bash blocks, one turn at a time; answer without one when done."
        self.episode.spent = len(prompt)
        info = {"messages": [{"role": "user", "content": prompt}], "tools": self.tools, "tool_format": self.format.name}
        return prompt, info

    def _session(self, episode: _Episode) -> Any:
        """The episode's session, opened (and set up) at its first use."""
        if episode.session is None:
            episode.session = (episode.task.session or self.session_factory)()
            for command in episode.task.setup:
                episode.session.exec(command, timeout_s=self.timeout_s)
        return episode.session

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        episode = self.episode
        if episode is None:
            raise EnvConfigError("Terminal", "step", "called after reset", "no episode")
        episode.turns += 1
        episode.spent += len(action)
        calls = self.format.parse(action, self.tools)
        if not calls:
            return "", *self._end(terminated=True)
        try:
            self._session(episode)
        except Exception as exc:  # no image, no engine: nobody can judge this episode
            log.warning("the session of task %s did not start: %s", episode.task.task_id or "?", exc)
            return "", *self._end(terminated=True, failed=f"the session did not start: {type(exc).__name__}: {exc}")
        results = [(call, self._run(episode, call)) for call in calls]
        episode.spent += sum(len(output) for _, output in results)
        observation = "\n".join(output for _, output in results)
        if episode.turns >= self.max_turns or episode.spent >= self.context_chars or self._left(episode) <= 0:
            return observation, *self._end(terminated=False)
        info = {"tool_format": self.format.name, "tool_results": results, "tools": self.tools}
        return observation, 0.0, False, False, info

    def _run(self, episode: _Episode, call: ToolCall) -> str:
        command = call.arguments.get("command") if call.name == "bash" else None
        if not isinstance(command, str):
            output, code, seconds = f"error: no tool {call.name!r} with a string 'command'; call bash", None, 0.0
        else:
            start = time.monotonic()
            result = episode.session.exec(command, timeout_s=max(0.1, min(self.timeout_s, self._left(episode))))
            seconds = time.monotonic() - start
            episode.seconds += seconds
            output, code = _shown(result), getattr(result, "exit_code", None)
        episode.log.append(_Step(str(command), output, code, seconds))
        return truncate(output, self.output_chars)

    @staticmethod
    def _left(episode: _Episode) -> float:
        """Seconds left of the task's agent time (inf without a budget)."""
        budget = episode.task.time_budget_s
        return float("inf") if budget is None else budget - episode.seconds

    def _verdict(self, episode: _Episode) -> VerifyResult:
        """The task's verdict on the session's end state; a verify that raises is an error (masked)."""
        try:
            verdict = episode.task.verify(self._session(episode))
        except Exception as exc:
            log.warning("judging task %s failed", episode.task.task_id or "?", exc_info=True)
            return VerifyResult.judged("error", f"judging failed: {type(exc).__name__}: {exc}")
        if isinstance(verdict, VerifyResult):
            return verdict
        value = float(verdict)
        return VerifyResult.judged("correct" if value == 1.0 else "incorrect", f"verify gave {value:g}", reward=value)

    def _end(self, *, terminated: bool, failed: str | None = None) -> tuple[float, bool, bool, dict[str, Any]]:
        episode = self.episode
        assert episode is not None
        result = VerifyResult.judged("error", failed) if failed else self._verdict(episode)
        judgement = Judgement(result.reward, result, {}, episode.task.task_id, self.env_id, 0, "terminal-verify")
        info = {
            "commands": [vars(s) for s in episode.log],
            "turns": episode.turns,
            "judgement": judgement,
            **judgement.info(),
        }
        self.close()
        return result.reward, terminated, not terminated, info

    def close(self) -> None:
        if self.episode is not None:
            if self.episode.session is not None:
                self.episode.session.close()
            self.episode = None


def truncate(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: its head and tail kept, the middle replaced by a
    marker naming how much was cut.

    Examples:
        >>> truncate("a" * 10 + "b" * 10, 8)
        'aaaa\\n[... 12 characters cut ...]\\nbbbb'
    """
    if len(text) <= limit:
        return text
    head = limit // 2
    return text[:head] + MARKER.format(cut=len(text) - limit) + text[len(text) - (limit - head) :]


def _shown(result: Any) -> str:
    out = str(getattr(result, "stdout", "")) + str(getattr(result, "stderr", ""))
    if getattr(result, "error", None):
        out += f"\n[the session failed: {result.error}]"
    if getattr(result, "timed_out", False):
        out += "\n[the command timed out]"
    if getattr(result, "exit_code", 0) not in (0, None):
        out += f"\n[exit code {result.exit_code}]"
    return out


def _default_session() -> _Shell:
    import verifiers.sandbox as sandbox

    factory = getattr(sandbox, "Session", None)
    if factory is None:
        raise SetupError("Terminal needs verifiers.sandbox.Session (sandbox sessions); pass session=... meanwhile")
    return factory()  # type: ignore[no-any-return]
