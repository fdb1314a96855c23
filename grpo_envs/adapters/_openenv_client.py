"""OpenEnv's side of the client: a running OpenEnv environment as one of our envs (`OpenEnvEnv`).

Each `OpenEnvEnv` holds one WebSocket session, through ``openenv.core.GenericEnvClient`` and its
``.sync()`` wrapper (one event-loop thread per session). A grpo-envs server (its ``state`` says
``protocol: grpo-envs/1``) sends the verdict in explicit observation fields; any other OpenEnv
environment is read through ``action_field`` / ``observation_field``, its reward and ``done``.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

import gymnasium

from grpo_envs._env import ReasoningEnv
from grpo_envs._judgement import Judgement
from grpo_envs._task import Task
from grpo_envs._verifier import Verifier
from grpo_envs.errors import GrpoEnvsError, SetupError
from verifiers import VerifyResult

__all__ = ["CLOSED_MARK", "PROTOCOL", "OpenEnvEnv", "OpenEnvSessionError", "load_openenv"]

log = logging.getLogger("grpo_envs")
PROTOCOL = "grpo-envs/1"
CLOSED_MARK = "this OpenEnv session is closed"
INSTALL = "pip install 'grpo-envs[openenv]'"
UNSET_TURNS = 1_000  # the turn limit of an OpenEnv env that does not say its own


class OpenEnvSessionError(GrpoEnvsError):
    """An OpenEnv server refused or lost a session. ``code`` is OpenEnv's error code
    (``CAPACITY_REACHED``, ``VALIDATION_ERROR``, ``EXECUTION_ERROR``, ...) or ours:
    ``SESSION_CLOSED`` (the server's idle reaper closed it), ``CONNECTION`` (no server answers),
    ``CONNECTION_CLOSED``, ``TIMEOUT``.

    Examples:
        >>> error = OpenEnvSessionError("CAPACITY_REACHED", "Server at capacity: 2/2 sessions active.")
        >>> error.code, str(error)
        ('CAPACITY_REACHED', 'Server at capacity: 2/2 sessions active. [CAPACITY_REACHED]')
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{message} [{code}]")
        self.code = code


def load_openenv() -> None:
    """Import ``openenv.core`` once, without its gradio web UI (gradio is a hard dependency of
    openenv-core 0.3 that costs ~6 s of imports; the server imports it only when
    ``ENABLE_WEB_INTERFACE`` is set, and then we do not block it)."""
    if "openenv.core.env_server" in sys.modules:
        return
    web = os.environ.get("ENABLE_WEB_INTERFACE", "false").lower() in ("true", "1", "yes")
    block = not web and "gradio" not in sys.modules
    if block:
        sys.modules["gradio"] = None  # type: ignore[assignment]  # import gradio -> ModuleNotFoundError
    try:
        import openenv.core.env_server  # noqa: F401
    except ImportError as exc:
        raise SetupError(f"the OpenEnv adapter needs openenv-core ({exc}): {INSTALL}") from None
    finally:
        if block and sys.modules.get("gradio", ...) is None:
            del sys.modules["gradio"]


class _Session:
    """One WebSocket session; OpenEnv's exceptions become `OpenEnvSessionError`."""

    def __init__(self, base_url: str, connect_timeout_s: float, message_timeout_s: float) -> None:
        load_openenv()
        from openenv.core import GenericEnvClient

        self.base_url = base_url
        client = GenericEnvClient(
            base_url=base_url, connect_timeout_s=connect_timeout_s, message_timeout_s=message_timeout_s
        )
        self.client = client.sync()
        self.call("connect")

    def call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return getattr(self.client, method)(*args, **kwargs)
        except ConnectionError as exc:
            raise OpenEnvSessionError(
                "CONNECTION", f"no OpenEnv server answers at {self.base_url} ({exc}); is it running?"
            ) from None
        except TimeoutError:
            raise OpenEnvSessionError("TIMEOUT", f"{self.base_url} did not answer {method} in time") from None
        except RuntimeError as exc:
            match = re.search(r"^Server error: (.*) \(code: (\w+)\)$", str(exc), re.DOTALL)
            if match is None:
                raise
            message, code = match.groups()
            raise OpenEnvSessionError("SESSION_CLOSED" if CLOSED_MARK in message else code, message) from None
        except Exception as exc:  # websockets' ConnectionClosed*: the server ended the session
            if not type(exc).__module__.startswith("websockets"):
                raise
            last = self._last_words()
            if last is not None:
                raise OpenEnvSessionError(
                    str(last.get("code", "CONNECTION_CLOSED")), str(last.get("message"))
                ) from None
            raise OpenEnvSessionError("CONNECTION_CLOSED", f"{self.base_url} closed the session: {exc}") from None

    def _last_words(self) -> dict[str, Any] | None:
        """The error the server sent before it closed the socket (OpenEnv refuses a session over
        the limit that way), when our message crossed its close; read with EnvClient's ``_receive``."""
        try:
            reply = self.client._receive()
        except Exception:  # nothing was left to read
            return None
        data = reply.get("data") if isinstance(reply, dict) and reply.get("type") == "error" else None
        return data if isinstance(data, dict) else None

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:  # closing a session the server already dropped
            log.debug("closing an OpenEnv session of %s failed", self.base_url, exc_info=True)


class OpenEnvEnv(ReasoningEnv):
    """A running OpenEnv environment as a `ReasoningEnv` with text actions (see
    `grpo_envs.adapters.openenv`): one WebSocket session, opened here and again by a ``reset``
    after the server closed it.

    Args:
        base_url: the server (``http://host:port``; OpenEnv's client speaks ``ws://.../ws``).
        split: the task stream of a grpo-envs server (``"train"`` or ``"eval"``).
        max_turns: the episode's turn limit (default: the served env's; 1000 for others).
        action_field, observation_field: where the text goes in an action and comes out of an
            observation of an OpenEnv environment that is not ours.
        connect_timeout_s, message_timeout_s: OpenEnv's client timeouts.

    Examples:
        >>> env = gymnasium.make("grpo_envs/OpenEnv-v0", base_url=server.url)  # doctest: +SKIP
        >>> prompt, info = env.reset(seed=0)  # doctest: +SKIP
        >>> _, reward, terminated, truncated, info = env.step("\\boxed{4}")  # doctest: +SKIP
        >>> info["status"], info["reason"]  # doctest: +SKIP
        ('incorrect', 'The values are different.')
    """

    def __init__(
        self,
        base_url: str,
        *,
        split: str = "train",
        max_turns: int | None = None,
        action_field: str = "text",
        observation_field: str = "text",
        connect_timeout_s: float = 10.0,
        message_timeout_s: float = 300.0,
        render_mode: str | None = None,
    ) -> None:
        self.base_url, self.action_field, self.observation_field = base_url, action_field, observation_field
        self._timeouts = (connect_timeout_s, message_timeout_s)
        self._session: _Session | None = None
        try:
            meta = self._open().call("state")
        except BaseException:  # refused (at capacity) or gone: no session thread is left behind
            self.close()
            raise
        self.ours = meta.get("protocol") == PROTOCOL
        self.remote_id = str(meta.get("env_id") or base_url)
        self.env_classes: list[str] = list(meta.get("env_classes", []))
        turns = max_turns or (int(meta["max_turns"]) if self.ours else UNSET_TURNS)
        super().__init__(split=split, max_turns=turns, render_mode=render_mode)
        bounds = meta.get("reward_bounds") if self.ours else None
        # the served env's bounds, per instance (unknown for other OpenEnv environments)
        self.reward_bounds = (float(bounds[0]), float(bounds[1])) if bounds else (-float("inf"), float("inf"))  # type: ignore[misc]
        self.remote_version = int(meta.get("env_version", 0))

    @property
    def env_id(self) -> str:
        return self.remote_id

    def default_verifier(self) -> Verifier:
        """The server judges: this one only says so."""
        return Verifier.from_fn(
            "openenv-server", lambda ref, answer: VerifyResult.judged("error", "OpenEnvEnv judges on the server.")
        )

    def prompt_text(self, task: Task) -> str:
        return task.prompt  # the server's prompt_text

    def reference_completion(self, task: Task) -> str:
        if task.solution is None:
            raise GrpoEnvsError(
                f"{self.base_url} does not reveal references: serve it with OpenEnvServer(..., reveal_reference=True) "
                "or `grpo-envs serve --openenv --reveal-reference` (tests and check_env only)"
            )
        return task.solution

    # -- Gymnasium API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        gymnasium.Env.reset(self, seed=seed)
        options = dict(options or {})
        task_seed = int(seed if seed is not None else options.get("task_seed", self.np_random.integers(0, 2**63 - 1)))
        group_id = options.get("group_id")
        obs = self._remote_reset(task_seed, group_id)
        text = str(obs.get(self.observation_field, "")) if not self.ours else str(obs["text"])
        self.task_seed, self._group_id, self.turn, self._done = task_seed, group_id, 0, False
        self.task = Task(
            task_id=str(obs.get("task_id") or f"{self.remote_id}:{task_seed}"),
            prompt=str(obs.get("prompt") or text),
            answer=obs.get("reference"),
            metadata={"task_seed": task_seed, "split": self.split},
            solution=obs.get("reference_completion"),
        )
        self.messages = list(obs["messages"]) if self.ours else [{"role": "user", "content": text}]
        return text, self._remote_info(obs, None)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.task is None or self._done:
            raise GrpoEnvsError("step() called before reset() or after the episode ended: call reset()")
        result = self._call("step", {self.action_field: action})
        obs: dict[str, Any] = result.observation
        self.turn += 1
        if self.ours:
            if obs.get("status") == "no_episode":
                self._done = True
                raise GrpoEnvsError(f"{self.base_url} has no episode in this session: {obs.get('reason')}")
            terminated, truncated, text = bool(obs["terminated"]), bool(obs["truncated"]), str(obs["text"])
            self.messages = list(obs["messages"])
        else:
            terminated = bool(result.done)
            truncated = not terminated and self.turn >= self.max_turns
            text = "" if terminated else str(obs.get(self.observation_field, ""))
            self.messages.append({"role": "assistant", "content": action if isinstance(action, str) else ""})
            if not (terminated or truncated):
                self.messages.append({"role": "user", "content": text})
        self._done = terminated or truncated
        judgement = self._judgement(self.task, result, self._group_id)
        return text, judgement.reward, terminated, truncated, self._remote_info(obs, judgement)

    def judgements(
        self, task: Task, completions: Sequence[object], *, group_id: str | None = None, executor: object = None
    ) -> list[Judgement]:
        """The server's verdicts on completions of ``task``: one reset and one step each, in this
        session (``executor`` is ignored: the server judges). An episode in progress at turn 0 is
        started again afterwards; a later one ends."""
        seed = task.metadata.get("task_seed")
        if seed is None:
            raise GrpoEnvsError(f"task {task.task_id} does not come from this OpenEnvEnv (no task_seed)")
        resume = self.task_seed if self.task is not None and not self._done and self.turn == 0 else None
        out = []
        for completion in completions:
            self._remote_reset(int(seed), group_id, split=str(task.metadata.get("split", self.split)))
            result = self._call("step", {self.action_field: completion if isinstance(completion, str) else ""})
            out.append(self._judgement(task, result, group_id))
        if resume is not None:
            self._remote_reset(resume, self._group_id)
        else:
            self._done = True
        return out

    def close(self) -> None:
        """Close the session (a later ``reset`` opens a new one)."""
        if self._session is not None:
            self._session.close()
            self._session = None
        super().close()

    # -- the session ---------------------------------------------------------------------------
    def _open(self) -> _Session:
        if self._session is None:
            self._session = _Session(self.base_url, *self._timeouts)
        return self._session

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._open().call(method, *args, **kwargs)

    def _remote_reset(self, seed: int, group_id: str | None, split: str | None = None) -> dict[str, Any]:
        """``reset`` on the server; a session the server closed (idle) is replaced, once."""
        data: dict[str, Any] = {"seed": seed}
        if self.ours:
            data["split"] = split or self.split
            if group_id is not None:
                data["options"] = {"group_id": group_id}
        try:
            result = self._call("reset", **data)
        except OpenEnvSessionError as exc:
            if exc.code not in ("SESSION_CLOSED", "CONNECTION_CLOSED"):
                raise
            log.info("OpenEnv session of %s was closed by the server (%s); opening a new one", self.base_url, exc)
            self.close()
            result = self._call("reset", **data)
        observation: dict[str, Any] = result.observation
        return observation

    def _remote_info(self, obs: dict[str, Any], judgement: Judgement | None) -> dict[str, Any]:
        """The step's ``info`` as our envs give it: the verdict as a `Judgement` (and its flat keys);
        another OpenEnv env's observation, and the verdict fields it sent, as they came."""
        assert self.task is not None
        info: dict[str, Any] = {
            "task_id": self.task.task_id,
            "env_id": self.env_id,
            "env_version": self.remote_version,
            "split": self.split,
            "turn": self.turn,
            "messages": [dict(m) for m in self.messages],
        }
        if self._group_id is not None:
            info["group_id"] = self._group_id
        if not self.ours:
            info["observation"] = obs
            info.update({k: obs[k] for k in ("correct", "status", "reason") if k in obs})
        elif judgement is not None:
            info.update(judgement.info())
        if judgement is not None:
            info["judgement"] = judgement
        return info

    def _judgement(self, task: Task, result: Any, group_id: str | None) -> Judgement:
        """The verdict of one remote step, built once from what crossed the wire: a grpo-envs
        server's serialised verdict (`Judgement.from_json`), or another env's reward (None: 0.0, a
        turn without one) and whatever ``correct``/``status``/``reason`` it sends, read as any
        env's (`Judgement.of_step`)."""
        obs, reward = result.observation, float(result.reward or 0.0)
        provenance = {"task_id": task.task_id, "env_id": self.env_id, "env_version": self.remote_version}
        if self.ours:
            return Judgement.from_json({**obs, "reward": reward, **provenance, "group_id": group_id})
        said = {k: obs[k] for k in ("correct", "status", "reason") if k in obs}
        judged = Judgement.of_step(reward, {**said, **provenance, "group_id": group_id})
        return dataclasses.replace(judged, verifier="openenv-server")
