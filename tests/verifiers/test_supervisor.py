"""The one supervisor of long-lived workers (`verifiers._supervisor`) and `connect_ray`, alone:
the math pool, the executors and the rollout workers are tested through their own tests."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

import pytest

from verifiers._supervisor import Backoff, Spares
from verifiers.errors import ExecutorError, VerifiersError
from verifiers.executors import RestartLimit, Supervisor, connect_ray


class GaveUp(Exception):
    pass


def test_a_restart_stops_the_old_worker_counts_and_gives_up_past_the_limit() -> None:
    stopped: list[str] = []
    sup: Supervisor[int, str] = Supervisor(
        lambda key, gen: f"{key}#{gen}",
        lambda w: stopped.append(w) or f"{w} ended",
        limit=RestartLimit(2, lambda key, n, how: GaveUp(f"{key} failed {n} times ({how})")),
    )
    assert sup.start(0) == "0#0"
    assert sup.restart(0) == "0#1" and sup.ended[0] == "0#0 ended"
    sup.succeeded(0)  # a job done: the count starts again
    assert sup.restart(0) == "0#2" and sup.restart(0) == "0#3"
    with pytest.raises(GaveUp, match=r"0 failed 3 times \(0#3 ended\)"):
        sup.restart(0)
    assert sup.restarts == 3 and stopped == ["0#0", "0#1", "0#2", "0#3"]


def test_stopping_a_worker_already_replaced_leaves_its_successor() -> None:
    sup: Supervisor[str, list[int]] = Supervisor(lambda key, gen: [gen], lambda w: None)
    old = sup.start("a")
    new = sup.start("a")
    sup.stop("a", old)
    assert sup.workers == {"a": new}
    sup.close()
    sup.close()  # idempotent
    assert sup.workers == {} and sup.closed


def test_a_restart_hands_out_the_warm_spare_and_starts_another() -> None:
    made: list[str] = []

    def spare() -> str:
        made.append(f"spare{len(made)}")
        return made[-1]

    spares: Spares[str] = Spares(spare, lambda w: None)
    sup: Supervisor[int, str] = Supervisor(lambda key, gen: f"fresh{gen}", lambda w: None, spares=spares)
    spares.refill()
    sup.start(0)
    assert sup.restart(0) == "spare0"
    assert spares.take(5.0) == "spare1"  # the next one was started in the background


def test_a_start_after_close_is_not_kept() -> None:
    stopped: list[str] = []
    sup: Supervisor[int, str] = Supervisor(lambda key, gen: "w", stopped.append)
    sup.close()
    sup.start(0)
    assert sup.workers == {} and stopped == ["w"]


def test_backoff_holds_a_key_for_its_time() -> None:
    backoff = Backoff(60.0)
    backoff.hold(("node", "math"))
    assert not backoff.ready(("node", "math")) and backoff.ready(("node", "code"))
    assert backoff.ready(("node", "math"), now=time.monotonic() + 61)


class FakeRay:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def is_initialized(self) -> bool:
        return False

    def init(self, **kwargs: Any) -> None:
        self.calls.append(kwargs)
        if kwargs.get("address") == "unreachable":
            raise ConnectionError("no head answers\nmore")


def test_connect_ray_adds_local_settings_only_to_a_new_local_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    local = {"resources": {"docker": 1}, "num_cpus": 8}
    assert connect_ray(init_kwargs={"num_cpus": 2}, local=lambda: local) == (fake, True)
    assert connect_ray("auto", local=lambda: local) == (fake, True)
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")
    assert connect_ray(local=lambda: local) == (fake, True)
    assert fake.calls == [{"address": "local", "resources": {"docker": 1}, "num_cpus": 2}, {"address": "auto"}, {}]
    with pytest.raises(ExecutorError, match=r"^Me: cannot start or reach the Ray cluster \(unreachable\): no head"):
        connect_ray("unreachable", who="Me")


def test_spares_of_n_start_at_most_their_semaphore_at_once_and_trim_what_waits() -> None:
    gate, running, peak, made, stopped = threading.Event(), [0], [0], [], []
    lock = threading.Lock()

    def start() -> str:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        gate.wait(5)
        with lock:
            running[0] -= 1
            made.append(f"w{len(made)}")
            return made[-1]

    spares: Spares[str] = Spares(start, stopped.append, size=4, starts=threading.Semaphore(2))
    spares.refill()
    spares.refill()  # all four are starting: nothing more to start
    assert spares.take(0.0) is None  # none waits yet, and a take of 0 s does not wait for one
    time.sleep(0.2)
    gate.set()
    first = spares.take(5.0)  # waits for one of those starting
    deadline = time.monotonic() + 5
    while len(spares.waiting) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert first is not None and len(spares.waiting) == 3 and peak[0] == 2
    assert spares.idle_for() < 5.0
    assert spares.trim() == 3 and len(stopped) == 3 and spares.waiting == []
    spares.refill()
    spares.close()  # those starting are stopped as they land (or never start)
    time.sleep(0.5)
    assert sorted(stopped) == sorted(w for w in made if w != first) and spares.take(0.0) is None


def test_a_restart_after_close_starts_nothing() -> None:
    started: list[int] = []
    sup: Supervisor[int, str] = Supervisor(lambda key, gen: started.append(gen) or f"w{gen}", lambda w: None)
    sup.start(0)
    sup.close()
    with pytest.raises(VerifiersError, match="closed: nothing was restarted"):
        sup.restart(0)
    assert started == [0]
