"""`connect_ray`: the one way this SDK connects to Ray (`RayExecutor`, the trainer's Ray rollout
workers): the connection this process already has, else ``address``, else ``RAY_ADDRESS``, else
a new local cluster."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from verifiers.errors import ExecutorError

__all__ = ["connect_ray"]


def first_line(exc: BaseException) -> str:
    """The first non-blank line of an error (Ray's run to pages), at most 200 characters."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return (lines[0] if lines else type(exc).__name__)[:200]


def connect_ray(
    address: str | None = None,
    *,
    init_kwargs: Mapping[str, Any] | None = None,
    local: Callable[[], Mapping[str, Any]] | None = None,
    who: str = "RayExecutor",
) -> tuple[Any, bool]:
    """Ray, connected: (the ``ray`` module, whether this call connected it: then its caller
    shuts Ray down when it closes).

    Ray already initialised in this process (a trainer inside a Ray job) is used as it is.
    Else ``address`` (``"auto"``, ``"host:port"``, ``"ray://head:10001"``); None: the cluster at
    ``RAY_ADDRESS`` (Ray reads it itself), else a new local cluster, started with ``init_kwargs``
    and what ``local()`` adds (settings only a new local cluster takes; ``init_kwargs`` win).

    Raises:
        ExecutorError: Ray is not installed (``who`` needs it), or the cluster cannot be started
            or reached.

    Examples:
        >>> ray, owned = connect_ray(init_kwargs={"num_cpus": 2})  # doctest: +SKIP
    """
    try:
        import ray
    except ImportError as exc:
        raise ExecutorError(f"{who} needs Ray: pip install 'grpo-envs[ray]'") from exc
    if ray.is_initialized():
        return ray, False
    kwargs = dict(init_kwargs or {})
    from_env = os.environ.get("RAY_ADDRESS")
    if address is None and not from_env:
        address = "local"  # a new local cluster, even beside a `ray start` one
        kwargs = {**(local() if local is not None else {}), **kwargs}
    where = f"RAY_ADDRESS={from_env}" if address is None else "a new local cluster" if address == "local" else address
    try:
        if address is None:
            ray.init(**kwargs)  # Ray reads RAY_ADDRESS
        else:
            ray.init(address=address, **kwargs)
    except Exception as exc:  # an unreachable head, a bad address
        raise ExecutorError(f"{who}: cannot start or reach the Ray cluster ({where}): {first_line(exc)}") from exc
    return ray, True
