"""OpenEnv (``pip install 'grpo-envs[openenv]'``, openenv-core 0.3): our envs served through
OpenEnv's server, and any OpenEnv environment used as one of ours.

Serve: `OpenEnvServer` (or ``grpo-envs serve --openenv --env ID``) runs OpenEnv's own FastAPI
app (``create_app``) under uvicorn, on 127.0.0.1 by default. Episodes are played over the
WebSocket session ``/ws`` (one env per connection, at most ``max_sessions`` at once; one more
is refused with OpenEnv's ``CAPACITY_REACHED``). HTTP ``POST /reset`` and ``/step`` make a
fresh env per request, as OpenEnv does: ``/step`` with ``{"seed": N}`` beside the action judges
one turn of task N; without it, it answers ``status: "no_episode"``. The action is
``{"text": completion}``; a malformed one gets OpenEnv's ``VALIDATION_ERROR`` (HTTP 422), and
the session goes on. The observation carries ``text``, ``messages``, ``terminated``,
``truncated``, ``turn``, ``max_turns`` and our verdict in explicit fields (``correct``,
``status``, ``reason``, ``extracted``, ``reward_parts``, ...; OpenEnv drops ``metadata``).

Idle sessions: OpenEnv counts a session idle from the end of its last reset or step (a step's
own run time counts as idle too). Past ``session_timeout_s``, its reaper (it looks every
``max(timeout / 4, 5)`` s) closes the session's env and frees its slot, but leaves the socket
open: every later reset or step on it is answered with an error whose message starts "this
OpenEnv session is closed" (code ``EXECUTION_ERROR``), and ``state`` says why in ``closed``.
`OpenEnvEnv` raises `OpenEnvSessionError` with code ``SESSION_CLOSED`` from ``step``, and its
``reset`` opens a new session itself. A step still running when the reaper comes finishes and
is answered first (OpenEnv closes the env in the session's own thread). Set the timeout above
the longest model turn plus env step (default 600 s).

Consume: `OpenEnvEnv` (``gymnasium.make("grpo_envs/OpenEnv-v0", base_url=...)``) is a
`ReasoningEnv` over one WebSocket session, so ``check_env``, ``make_group``, our trainer and
eval take it. From one of our servers it rebuilds the same ``info`` as the env itself; other
OpenEnv environments are read through ``action_field``/``observation_field``.

TRL: `environment_factory` and `dataset` give ``trl.GRPOTrainer(environment_factory=...)``
the tools of a served PythonTool or CodeRepair env. TRL's experimental async OpenEnv harness
(``trl.experimental.async_grpo.openenv_harness``) does not import with openenv-core 0.3.0
(it needs ``openenv.core.harness.TraceEntry``): it is not used here.

Examples:
    >>> from grpo_envs.adapters.openenv import OpenEnvEnv, OpenEnvServer  # doctest: +SKIP
    >>> server = OpenEnvServer("grpo_envs/Arithmetic-v0").start()  # doctest: +SKIP
    >>> env = OpenEnvEnv(server.url)  # doctest: +SKIP
    >>> prompt, info = env.reset(seed=0)  # doctest: +SKIP
    >>> env.step("\\\\boxed{42}")[1]  # doctest: +SKIP
    0.0
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium

from grpo_envs.adapters._common import task_seeds
from grpo_envs.adapters._openenv_client import OpenEnvEnv, OpenEnvSessionError
from grpo_envs.adapters._trl_env import CodeRepairTools, PythonToolTools, ToolEnvironment
from grpo_envs.errors import GrpoEnvsError

__all__ = [
    "ENV_ID",
    "SUPPORTED_OPENENV",
    "OpenEnvEnv",
    "OpenEnvServer",
    "OpenEnvSessionError",
    "dataset",
    "environment_factory",
]

log = logging.getLogger("grpo_envs")
SUPPORTED_OPENENV = ">=0.3,<0.4"
"""The openenv-core versions the adapter is tested against (with OpenEnv's own client and server)."""
ENV_ID = "grpo_envs/OpenEnv-v0"
"""``gymnasium.make(ENV_ID, base_url=...)`` makes an `OpenEnvEnv` (registered when this module is imported)."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class OpenEnvServer:
    """One of our envs behind OpenEnv's server (uvicorn, in a thread or in the foreground).

    Args:
        env_id: the env each session makes (``env_kwargs`` are passed to ``gymnasium.make``).
        host, port: where to listen (loopback by default; port 0 picks a free one).
        max_sessions: WebSocket sessions at once (OpenEnv's ``max_concurrent_envs``).
        session_timeout_s: idle seconds before OpenEnv's reaper closes a session (None: never).
        reveal_reference: also send each task's reference and a correct completion on reset
            (for `check_env` and tests: never when a model reads the observations).

    Examples:
        >>> with OpenEnvServer("grpo_envs/Arithmetic-v0", max_sessions=4) as server:  # doctest: +SKIP
        ...     env = OpenEnvEnv(server.url)
        ...     print(env.reset(seed=0)[0][:40])
    """

    def __init__(
        self,
        env_id: str,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        max_sessions: int = 64,
        session_timeout_s: float | None = 600.0,
        reveal_reference: bool = False,
        env_kwargs: Mapping[str, Any] | None = None,
        log_level: str = "warning",
    ) -> None:
        if not isinstance(max_sessions, int) or max_sessions < 1:
            raise GrpoEnvsError(f"max_sessions must be an int >= 1, got {max_sessions!r}")
        if session_timeout_s is not None and not session_timeout_s > 0:
            raise GrpoEnvsError(f"session_timeout_s must be > 0 or None, got {session_timeout_s!r}")
        from grpo_envs.adapters import _openenv_server as ours  # imports openenv-core, or SetupError

        self.env_id = env_id
        self._served = ours.Served(env_id, dict(env_kwargs or {}), reveal_reference, session_timeout_s)
        self._served.make("train").close()  # a bad id or argument fails here, not in every session
        self.app, asgi = ours.build_app(self._served, max_sessions)
        self._sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._sock.bind((host, port))
            self._sock.listen(2048)  # connections wait in the backlog until uvicorn accepts them
        except OSError as exc:
            self._sock.close()
            raise GrpoEnvsError(f"cannot listen on {host}:{port}: {exc}") from None
        import uvicorn

        config = uvicorn.Config(
            asgi,
            log_config=None,
            log_level=log_level,
            access_log=False,
            ws="websockets-sansio",
            lifespan="on",
            timeout_graceful_shutdown=5,
        )
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://host:port`` (OpenEnv's clients turn it into ``ws://host:port/ws``)."""
        host, port = self._sock.getsockname()[:2]
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    @property
    def active_sessions(self) -> int:
        """Sessions whose env is open (WebSocket sessions, and HTTP requests being answered)."""
        with self._served.lock:
            return len(self._served.live)

    def start(self, timeout_s: float = 30.0) -> OpenEnvServer:
        """Serve in a background thread; returns when the server accepts connections."""
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, name="grpo-envs-openenv", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise GrpoEnvsError(f"the OpenEnv server for {self.env_id} did not start at {self.url}")
            time.sleep(0.01)
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until SIGINT or SIGTERM (uvicorn's signal handling)."""
        self._server.run(sockets=[self._sock])

    def close(self) -> None:
        """Stop serving (open WebSocket sessions are closed) and free the port."""
        if self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=15)
            self._thread = None
        self._sock.close()

    def __enter__(self) -> OpenEnvServer:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _RemoteTools(ToolEnvironment):
    """TRL's tool environment, its episodes played by an `OpenEnvEnv` (the row's ``task_id``,
    not its ``reference``, checks that the server rebuilt the row's task)."""

    base_url: ClassVar[str] = ""
    client_kwargs: ClassVar[Mapping[str, Any]] = {}

    def __init__(self) -> None:
        super().__init__()
        self._client: OpenEnvEnv | None = None

    def reset(
        self,
        task_seed: int | None = None,
        split: str = "train",
        reference: str | None = None,
        prompt: Any = None,
        task_id: str | None = None,
        **columns: Any,
    ) -> str:
        """Start the episode of the row's task on the server (rebuilt from ``task_seed`` and ``split``)."""
        note = super().reset(task_seed=task_seed, split=split, prompt=prompt, **columns)
        if task_id is not None and self.task is not None and self.task.task_id != task_id:
            raise GrpoEnvsError(
                f"task seed {task_seed} of {self.base_url} ({split}) is task {self.task.task_id}, not {task_id}: "
                "the dataset was made with another env version or arguments"
            )
        return note

    def _make(self, split: str) -> OpenEnvEnv:
        if self._client is None:
            self._client = OpenEnvEnv(self.base_url, split=split, **self.client_kwargs)
        self._client.split = split
        return self._client


def environment_factory(base_url: str, **client_kwargs: Any) -> type[ToolEnvironment]:
    """A class for ``trl.GRPOTrainer(environment_factory=...)`` whose tools play the PythonTool or
    CodeRepair env served at ``base_url`` (one OpenEnv session per instance TRL makes; see
    `grpo_envs.adapters.trl.environment_factory` for the tools and the reward).

    Examples:
        >>> Env = environment_factory(server.url)  # doctest: +SKIP
        >>> trainer = trl.GRPOTrainer(model=..., train_dataset=dataset(server.url, 1000),  # doctest: +SKIP
        ...                           environment_factory=Env, args=trl.GRPOConfig(...))
    """
    probe = OpenEnvEnv(base_url, **client_kwargs)
    probe.close()
    tools: dict[str, type[ToolEnvironment]] = {"PythonTool": PythonToolTools, "CodeRepair": CodeRepairTools}
    base = next((tools[name] for name in probe.env_classes if name in tools), None)
    if base is None:
        raise GrpoEnvsError(
            f"{base_url} serves {probe.env_id} ({', '.join(probe.env_classes) or 'not a grpo-envs server'}); "
            f"environment_factory supports envs built on {' or '.join(tools)}"
        )
    name = "grpo_envs_" + probe.env_id.split("/")[-1].replace("-", "_")
    namespace = {
        "env_id": probe.env_id,
        "base_url": base_url,
        "client_kwargs": dict(client_kwargs),
        "__module__": __name__,
        "__doc__": base.__doc__,
    }
    return type(name, (_RemoteTools, base), namespace)


def dataset(
    base_url: str, n: int, seed: int = 0, *, split: str = "train", conversational: bool = True, **client_kwargs: Any
) -> Any:
    """A `datasets.Dataset` of ``n`` tasks of the env served at ``base_url``: ``prompt``,
    ``task_seed``, ``split``, ``task_id`` (the seeds of `grpo_envs.adapters.trl.dataset`).

    Examples:
        >>> rows = dataset(server.url, n=100, seed=0)  # doctest: +SKIP
    """
    import datasets

    env = OpenEnvEnv(base_url, split=split, **client_kwargs)
    rows: dict[str, list[Any]] = defaultdict(list)
    try:
        for task_seed in task_seeds(seed, n):
            env.reset(seed=task_seed)
            assert env.task is not None
            rows["prompt"].append([{"role": "user", "content": env.task.prompt}] if conversational else env.task.prompt)
            rows["task_seed"].append(task_seed)
            rows["split"].append(split)
            rows["task_id"].append(env.task.task_id)
    finally:
        env.close()
    return datasets.Dataset.from_dict(dict(rows))


def _serve_command(args: argparse.Namespace) -> int:
    """``grpo-envs serve --openenv --env ID``: `OpenEnvServer` in the foreground."""
    token = args.token or os.environ.get("GRPO_ENVS_SERVE_TOKEN")
    refused = [
        flag for flag, value in (("--token/$GRPO_ENVS_SERVE_TOKEN", token), ("--tokenizer", args.tokenizer)) if value
    ]
    if getattr(args, "verifier", None) is not None or not args.env:
        refused.append("no --env" if not args.env else "--verifier")
    if refused:
        print(
            f"grpo-envs serve: error: --openenv serves one env (--env ID); not with {', '.join(refused)}",
            file=sys.stderr,
        )
        return 2
    timeout = args.session_timeout if args.session_timeout > 0 else None
    try:
        server = OpenEnvServer(
            args.env,
            host=args.host,
            port=args.port,
            max_sessions=args.max_sessions,
            session_timeout_s=timeout,
            reveal_reference=args.reveal_reference,
            log_level="info",
        )
    except GrpoEnvsError as exc:
        print(f"grpo-envs serve: error: {exc}", file=sys.stderr)
        return 1
    if args.host not in LOOPBACK:
        print("grpo-envs serve: warning: OpenEnv has no authentication; listening beyond loopback", file=sys.stderr)
    print(f"serving {args.env} through OpenEnv at {server.url} (WebSocket /ws; POST /reset, /step)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:  # uvicorn shut down cleanly, then passed Ctrl-C on
        pass
    finally:
        server.close()
    return 0


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="grpo_envs.adapters.openenv:OpenEnvEnv")
