"""OpenEnv's side of the server: one of our envs as an `openenv.core.env_server.Environment`.

Each WebSocket session (``/ws``) gets one `GrpoEnvsEnvironment`, which holds one of our envs
per split and plays episodes on it. The wire types are pydantic models that OpenEnv validates:
`TextAction` (``{"text": ...}``; anything else is OpenEnv's VALIDATION_ERROR) and
`TextObservation`, whose explicit fields carry our verdict, serialised by `Judgement.to_json`
(``Observation.metadata`` is dropped when OpenEnv serialises an observation, so nothing rides
there).
"""

from __future__ import annotations

import functools
import logging
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

import gymnasium
from pydantic import Field

from grpo_envs._env import ReasoningEnv
from grpo_envs._judgement import Judgement
from grpo_envs._registry import resolve_env_id
from grpo_envs.adapters._common import reference_text
from grpo_envs.adapters._openenv_client import CLOSED_MARK, PROTOCOL, load_openenv
from grpo_envs.errors import GrpoEnvsError

load_openenv()

from openenv.core.env_server import (  # noqa: E402
    Action,
    ConcurrencyConfig,
    Environment,
    Observation,
    State,
    create_app,
)

__all__ = ["GrpoEnvsEnvironment", "GrpoEnvsState", "Served", "TextAction", "TextObservation", "build_app"]

log = logging.getLogger("grpo_envs")
RESET_KEYS = ("seed", "episode_id", "split", "options")
SET_BY_THE_ENV = ("reward", "task_id", "env_id", "env_version")  # of a verdict's keys (`Judgement.to_json`)


class TextAction(Action):  # type: ignore[misc]
    """One turn of the model: its completion, as text."""

    text: str = Field(description="the model's completion for this turn (judged by the env's verifier)")


class TextObservation(Observation):  # type: ignore[misc]
    """What the env says after ``reset`` or a ``step``; ``reward`` and ``done`` are OpenEnv's own
    fields (``done`` = terminated or truncated; ``reward`` is None after reset)."""

    text: str = Field("", description="the new user message: the prompt after reset, the env's reply, '' at the end")
    prompt: str = Field("", description="the task's prompt with the answer-format instruction")
    messages: list[dict[str, str]] = Field(default_factory=list, description="the conversation so far")
    env_id: str = ""
    env_version: int = 0
    split: str = "train"
    task_id: str | None = None
    task_seed: int | None = None
    turn: int = 0
    max_turns: int = 1
    terminated: bool = False
    truncated: bool = False
    correct: bool | None = Field(None, description="True/False when judged; None when nobody could judge")
    status: str | None = Field(None, description="the verdict of the last turn; None after reset; no_episode")
    reason: str = Field("", description="why the reward is what it is")
    extracted: str | None = None
    reward_parts: dict[str, float] = Field(default_factory=dict, description="the rubric's parts of the reward")
    components: dict[str, float] = Field(default_factory=dict, description="the verifier's parts of its verdict")
    verifier: str | None = Field(None, description="name:digest of the verifier")
    group_id: str | None = None
    reference: str | None = Field(None, description="the task's reference (only from a reveal_reference server)")
    reference_completion: str | None = Field(None, description="a completion judged correct (reveal_reference)")


class GrpoEnvsState(State):  # type: ignore[misc]
    """The session's state: OpenEnv's ``episode_id``/``step_count`` plus what clients need first."""

    protocol: str = PROTOCOL
    env_id: str = ""
    env_version: int = 0
    env_classes: list[str] = Field(default_factory=list, description="the env's class and its bases")
    max_turns: int = 1
    reward_bounds: list[float] = Field(default_factory=lambda: [0.0, 1.0])
    split: str | None = None
    task_id: str | None = None
    turn: int = 0
    done: bool = True
    closed: str | None = Field(None, description="why the session's env was closed (then every call fails)")


@dataclass
class Served:
    """What every session of one server shares: the env to make, and the count of live sessions."""

    env_id: str
    env_kwargs: dict[str, Any]
    reveal_reference: bool = False
    session_timeout_s: float | None = None
    live: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def make(self, split: str) -> ReasoningEnv:
        try:
            env = gymnasium.make(resolve_env_id(self.env_id), split=split, **self.env_kwargs).unwrapped
        except gymnasium.error.Error as exc:
            raise GrpoEnvsError(f"cannot make env {self.env_id!r}: {exc}") from None
        if not isinstance(env, ReasoningEnv):
            raise GrpoEnvsError(f"{self.env_id} is not a ReasoningEnv; the OpenEnv server serves ReasoningEnvs")
        return env


class GrpoEnvsEnvironment(Environment):  # type: ignore[misc]
    """One OpenEnv session of one of our envs: ``reset(seed, episode_id, split, options)`` starts an
    episode, ``step(TextAction)`` plays one turn, ``state`` describes the session."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, served: Served) -> None:
        super().__init__()
        self._served = served
        self._envs: dict[str, ReasoningEnv] = {"train": served.make("train")}
        self._env: ReasoningEnv | None = None
        self._episode_id: str | None = None
        self._steps = 0
        self._done = True
        self._closed: str | None = None
        with served.lock:
            served.live.add(id(self))

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, split: str = "train", **kwargs: Any
    ) -> TextObservation:
        self._check_open()
        unknown = sorted(set(kwargs) - set(RESET_KEYS))
        if unknown:
            raise GrpoEnvsError(f"reset takes {', '.join(RESET_KEYS)}; got unknown {', '.join(unknown)}")
        if split not in self._envs:
            if split not in ("train", "eval"):
                raise GrpoEnvsError(f"split must be 'train' or 'eval', got {split!r}")
            self._envs[split] = self._served.make(split)
        env = self._envs[split]
        text, info = env.reset(seed=seed, options=kwargs.get("options"))
        self._env, self._episode_id, self._steps, self._done = env, episode_id or uuid.uuid4().hex, 0, False
        observation = _observation(env, info, text, reward=None)
        if self._served.reveal_reference and env.task is not None:
            observation.reference = reference_text(env.task)
            observation.reference_completion = env.reference_completion(env.task)
        return observation

    def step(self, action: TextAction, timeout_s: float | None = None, **kwargs: Any) -> TextObservation:
        """One turn. ``timeout_s`` is ignored (the env's verifier and sandbox have their own limits).
        Over HTTP (a fresh env per request) ``{"seed": N}`` beside the action judges it on task N."""
        self._check_open()
        if kwargs.get("seed") is not None:
            self.reset(seed=kwargs["seed"], split=kwargs.get("split") or "train")
        env = self._env
        if env is None or self._done:
            return _no_episode(self._served.env_id, env is None)
        text, reward, terminated, truncated, info = env.step(action.text)
        self._steps, self._done = self._steps + 1, bool(terminated or truncated)
        return _observation(env, info, text, reward=float(reward), terminated=terminated, truncated=truncated)

    @property
    def state(self) -> GrpoEnvsState:
        probe, env = self._env or self._envs["train"], self._env
        return GrpoEnvsState(
            episode_id=self._episode_id,
            step_count=self._steps,
            env_id=probe.env_id,
            env_version=probe.version,
            env_classes=[c.__name__ for c in type(probe).__mro__ if issubclass(c, ReasoningEnv)],
            max_turns=probe.max_turns,
            reward_bounds=[float(b) for b in probe.reward_bounds],
            split=env.split if env is not None else None,
            task_id=env.task.task_id if env is not None and env.task is not None else None,
            turn=env.turn if env is not None else 0,
            done=self._done,
            closed=self._closed,
        )

    def close(self) -> None:
        """Called by OpenEnv when the socket closes and by its idle reaper (which leaves the socket
        open): every later call on this session then fails with ``CLOSED_MARK`` in its message."""
        if self._closed is not None:
            return
        timeout = self._served.session_timeout_s
        self._closed = (
            f"{CLOSED_MARK}: the server closed it (idle longer than session_timeout={timeout:g} s, or shutting "
            "down); open a new session (reconnect)"
            if timeout is not None
            else f"{CLOSED_MARK}: the server closed it; open a new session (reconnect)"
        )
        for env in self._envs.values():
            env.close()
        with self._served.lock:
            self._served.live.discard(id(self))
        log.debug("OpenEnv session %s of %s closed", self._episode_id, self._served.env_id)

    def _check_open(self) -> None:
        if self._closed is not None:
            raise GrpoEnvsError(self._closed)


def build_app(served: Served, max_sessions: int) -> tuple[Any, Any]:
    """OpenEnv's FastAPI app for ``served`` (``create_app``), and the ASGI app to run (`_quiet`)."""
    app = create_app(
        functools.partial(GrpoEnvsEnvironment, served),
        TextAction,
        TextObservation,
        env_name=served.env_id.split("/")[-1],
        concurrency_config=ConcurrencyConfig(
            max_concurrent_envs=max_sessions, session_timeout=served.session_timeout_s
        ),
    )
    return app, _quiet(app)


def _quiet(app: Any) -> Any:
    """The ASGI app, less one traceback per session: OpenEnv 0.3.0 closes the socket after the
    client's own close, which Starlette 1.x answers with ``WebSocketDisconnect`` (OpenEnv catches
    only RuntimeError there); the session is already destroyed by then."""
    from starlette.websockets import WebSocketDisconnect

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        try:
            await app(scope, receive, send)
        except WebSocketDisconnect:
            if scope.get("type") != "websocket":
                raise

    return asgi


def _observation(
    env: ReasoningEnv,
    info: dict[str, Any],
    text: str,
    *,
    reward: float | None,
    terminated: bool = False,
    truncated: bool = False,
) -> TextObservation:
    assert env.task is not None
    judgement: Judgement | None = info.get("judgement")  # the step's verdict; none after reset
    verdict = {} if judgement is None else judgement.to_json()  # read back by `Judgement.from_json`
    for key in SET_BY_THE_ENV:  # the observation says them after reset too (reward: OpenEnv's own)
        verdict.pop(key, None)
    return TextObservation(
        done=bool(terminated or truncated),
        reward=reward,
        text=text,
        prompt=env.prompt_text(env.task),
        messages=info["messages"],
        env_id=env.env_id,
        env_version=env.version,
        split=env.split,
        task_id=env.task.task_id,
        task_seed=env.task_seed,
        turn=env.turn,
        max_turns=env.max_turns,
        terminated=bool(terminated),
        truncated=bool(truncated),
        **({"group_id": info.get("group_id")} | verdict),
    )


def _no_episode(env_id: str, never: bool) -> TextObservation:
    why = (
        "no episode in this session: reset() first. Over HTTP, /reset and /step each make a fresh env; play "
        "episodes over the WebSocket session (/ws), or pass {'seed': N} to /step to judge one turn of task N"
        if never
        else "the episode is over: reset() for a new one"
    )
    return TextObservation(done=True, reward=None, env_id=env_id, status="no_episode", reason=why)
