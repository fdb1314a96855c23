"""Connecting to the Docker engine through the `docker` SDK (imported lazily)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from verifiers.errors import EngineUnavailableError

if TYPE_CHECKING:
    import docker

__all__ = ["engine_client", "how_to_start_engine"]


def how_to_start_engine() -> str:
    """Return the multi-line advice printed whenever no Docker engine answers."""
    host = os.environ.get("DOCKER_HOST")
    lines = [
        "Start a Docker engine, then check with `grpo-envs doctor`:",
        "  - with systemd:            sudo systemctl start docker",
        "  - Docker Desktop:          start Docker Desktop",
        "  - root on Debian, no systemd: `make test` in a grpo-envs checkout starts one, or",
        "    apt-get install -y docker.io && setsid dockerd --iptables=false --ip-masq=false "
        "--bridge=none --storage-driver=overlay2 >/var/log/dockerd.log 2>&1 </dev/null &",
    ]
    if host:
        lines.append(f"  DOCKER_HOST is set to {host!r}: unset it or point it at a running engine.")
    return "\n".join(lines)


def engine_client(*, timeout_s: float = 10.0) -> docker.DockerClient:
    """Return a `docker.DockerClient` for the engine named by the environment (DOCKER_HOST).

    Raises:
        EngineUnavailableError: no engine answers; the message says how to start one.

    Example:
        >>> client = engine_client()  # doctest: +SKIP
        >>> client.ping()  # doctest: +SKIP
        True
    """
    import docker  # lazy: `import verifiers` must stay cheap
    import docker.errors

    where = os.environ.get("DOCKER_HOST") or "the default socket (unix:///var/run/docker.sock)"
    try:
        client: Any = docker.from_env(timeout=max(1, round(timeout_s)))
        client.ping()
    except (docker.errors.DockerException, OSError) as exc:
        cause = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise EngineUnavailableError(
            f"No Docker engine answers at {where} ({cause}).\n{how_to_start_engine()}"
        ) from exc
    return client
