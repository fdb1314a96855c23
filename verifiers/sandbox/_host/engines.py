"""The engines a `DockerSandbox` pool runs on: each engine's client and health, and the sweeps of
containers whose owning process is gone or whose pool closed."""

from __future__ import annotations

import logging
import os
import socket
import time
from typing import Any

from verifiers.sandbox._host.client import engine_client
from verifiers.sandbox._host.container import LABEL, OWNER_LABEL, remove

__all__ = ["Engine", "remove_orphans", "remove_pool", "sweep_orphans"]

log = logging.getLogger("verifiers.sandbox")


class Engine:
    """One Docker engine of a pool, and whether it answers (one that stops is out of rotation for 30 s)."""

    def __init__(self, url: str | None, timeout_s: float) -> None:
        self.url = url or os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
        self.client = _client(url, timeout_s)
        self.down_until = 0.0

    @property
    def healthy(self) -> bool:
        return time.monotonic() >= self.down_until

    def check(self) -> bool:
        try:
            self.client.ping()
            return True
        except Exception:
            self.down_until = time.monotonic() + 30.0
            log.warning("Docker engine %s stopped answering; out of rotation for 30 s", self.url)
            return False


def _client(url: str | None, timeout_s: float) -> Any:
    return engine_client(timeout_s=timeout_s, url=url)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_orphans(client: Any) -> int:
    """Remove sandbox containers whose owning process (on this host) is gone."""
    removed = 0
    host = socket.gethostname()
    # sparse: no inspect of each, which fails for one the engine removes meanwhile (auto-removal)
    for c in client.containers.list(all=True, sparse=True, filters={"label": LABEL}):
        owner = (c.attrs.get("Labels") or {}).get(OWNER_LABEL, "")
        owner_host, _, pid = owner.rpartition(":")
        if owner_host == host and pid.isdigit() and not _pid_alive(int(pid)):
            try:
                c.remove(force=True)
                removed += 1
            except Exception as exc:  # another process may be removing it too
                log.debug("could not remove orphaned container %s: %s", c.short_id, exc)
    if removed:
        log.info("removed %d orphaned sandbox container(s)", removed)
    return removed


def sweep_orphans() -> int:
    """Remove the sandbox containers on this machine's engine whose owning process is gone (what
    killed workers of a cluster left behind); how many were removed."""
    client = engine_client(timeout_s=10)
    try:
        return remove_orphans(client)
    finally:
        client.close()


def remove_pool(client: Any, pool: str) -> bool:
    """Remove what is left of sandbox pool ``pool`` on this engine (by its label): containers whose
    removal failed, or whose creation the engine finished after our call gave up. True once none is left."""
    for attempt in range(3):
        try:
            left = client.containers.list(all=True, sparse=True, filters={"label": f"{LABEL}={pool}"})
        except Exception as exc:  # the engine is down: its containers go with it
            log.debug("listing the containers of sandbox pool %s failed: %s", pool, exc)
            return False
        if all([remove(c) for c in left]):
            return True
        time.sleep(0.5 * (attempt + 1))
    log.warning("some containers of sandbox pool %s could not be removed", pool)
    return False
