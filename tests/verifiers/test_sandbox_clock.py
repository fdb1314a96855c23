"""`procs.Clock`, the time limit's clock, on the host with a fake wall clock and fake readings."""

from __future__ import annotations

import time
import types

import pytest

from verifiers.sandbox._in_container import procs


@pytest.fixture
def wall(monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    """A fake clock: ``wall["now"]`` seconds of wall time, ``wall["waited"]`` of them spent
    waiting for a CPU, ``wall["cpu"]`` CPU seconds used by the whole container."""
    state = {"now": 0.0, "waited": 0.0, "cpu": 0.0}
    fake = types.SimpleNamespace(monotonic=lambda: state["now"], process_time=time.process_time, sleep=time.sleep)
    monkeypatch.setattr(procs, "time", fake)
    monkeypatch.setattr(procs, "run_delay", lambda pid, default=0: int(state["waited"] * 1e9))
    monkeypatch.setattr(procs, "container_cpu_s", lambda: state["cpu"])
    monkeypatch.setattr(procs, "container_cpus", lambda: 1.0)
    return state


def test_waits_behind_other_work_do_not_count(wall: dict[str, float]) -> None:
    clock = procs.Clock(7)
    wall.update(now=10.0, waited=6.0, cpu=4.0)
    assert clock.elapsed() == pytest.approx(4.0)
    assert clock.left(5.0) == pytest.approx(1.0)


def test_the_whole_tree_counts_when_the_first_process_waits_behind_its_own_children(wall: dict[str, float]) -> None:
    clock = procs.Clock(7)
    wall.update(now=3.0, waited=2.9, cpu=2.95)  # a fork bomb: its first process barely ran, the tree used the quota
    assert clock.elapsed() == pytest.approx(2.95)
    assert clock.left(2.0) < 0


def test_a_starved_job_or_command_stops_at_2x_plus_2_s(wall: dict[str, float]) -> None:
    """A container starved by other containers' work: neither its waits nor its tree's CPU show
    the time, so the wall bound ends it (a fork bomb's verdict within twice its limit + slack)."""
    job = procs.Clock(7)
    wall.update(now=5.9, waited=5.8, cpu=0.1)  # another container held the CPU all along
    assert job.left(2.0) > 0
    wall.update(now=6.1, waited=6.0)
    assert job.left(2.0) <= 0
    assert procs.wall_bound(2.0) == 6.0 and procs.wall_bound(30.0) == 62.0
