"""Connecting to the Docker engine through the `docker` SDK (imported lazily)."""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING, Any

from verifiers.errors import EngineUnavailableError

if TYPE_CHECKING:
    import docker

__all__ = ["engine_client", "how_to_start_engine"]


def how_to_start_engine(url: str | None = None) -> str:
    """Return the multi-line advice printed whenever no Docker engine answers (``url``: an
    engine the caller named, e.g. in ``DockerSandbox(engines=[...])``, not DOCKER_HOST)."""
    host = None if url else os.environ.get("DOCKER_HOST")
    lines = [
        "Start a Docker engine, then check with `grpo-envs doctor`:",
        "  - with systemd:            sudo systemctl start docker",
        "  - Docker Desktop:          start Docker Desktop",
        "  - root on Debian, no systemd: `make test` in a grpo-envs checkout starts one, or",
        "    apt-get install -y docker.io && setsid dockerd --iptables=false --ip-masq=false "
        "--bridge=none --storage-driver=overlay2 >/var/log/dockerd.log 2>&1 </dev/null &",
    ]
    if url:
        lines.append(f"  the engine {url!r} was named in engines=[...]: start it there, or leave it out.")
    elif host:
        lines.append(f"  DOCKER_HOST is set to {host!r}: unset it or point it at a running engine.")
    return "\n".join(lines)


def _check_unix_socket(url: str, timeout: float) -> None:
    """Connect to a unix socket ourselves first, for a clearer cause than the SDK's (and
    because the SDK leaks the socket of a failed connect)."""
    if not url.startswith(("unix://", "http+unix://")):
        return
    path = url.split("://", 1)[1]
    if not os.path.exists(path):
        raise OSError(f"socket {path} does not exist")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(path)
        except ConnectionRefusedError as exc:
            raise OSError(f"{path} refuses connections: a stale socket, no engine behind it") from exc
        except PermissionError as exc:
            raise OSError(f"permission denied on {path}: run as root or join the `docker` group") from exc


def engine_client(*, timeout_s: float = 10.0, url: str | None = None) -> docker.DockerClient:
    """Return a `docker.DockerClient` for the engine at ``url``, or by default the one named by
    the environment (DOCKER_HOST).

    Raises:
        EngineUnavailableError: no engine answers; the message says how to start one.

    Examples:
        >>> client = engine_client()  # doctest: +SKIP
        >>> client.ping()  # doctest: +SKIP
        True
    """
    import docker  # lazy: `import verifiers` must stay cheap
    import docker.constants
    import docker.errors
    import docker.utils

    where = url or os.environ.get("DOCKER_HOST") or "the default socket (unix:///var/run/docker.sock)"
    timeout = max(1, round(timeout_s))
    # Negotiate the API version with a probe we can close: `docker.from_env()` asks the engine
    # inside its constructor and, when that fails, leaks the socket it opened.
    probe: Any = None
    try:
        kwargs = {"base_url": url} if url else docker.utils.kwargs_from_env()
        _check_unix_socket(kwargs.get("base_url") or "unix:///var/run/docker.sock", timeout)
        probe = docker.APIClient(version=docker.constants.MINIMUM_DOCKER_API_VERSION, timeout=timeout, **kwargs)
        server = probe.version(api_version=False)["ApiVersion"]
    except (docker.errors.DockerException, OSError, KeyError) as exc:
        cause = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise EngineUnavailableError(
            f"No Docker engine answers at {where} ({cause}).\n{how_to_start_engine(url)}"
        ) from exc
    finally:
        if probe is not None:
            probe.close()
    ours = docker.constants.DEFAULT_DOCKER_API_VERSION
    version = min(server, ours, key=lambda v: tuple(int(x) for x in v.split(".")))
    return docker.DockerClient(version=version, timeout=timeout, **kwargs)
