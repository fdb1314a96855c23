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


def test_a_starved_job_stops_at_8x_and_a_session_command_at_2x_plus_5_s(wall: dict[str, float]) -> None:
    job, command = procs.Clock(7), procs.Clock(7, wall=procs.SESSION_WALL)
    wall.update(now=8.9, waited=8.8, cpu=0.1)  # another container held the CPU all along
    assert command.left(2.0) > 0 and job.left(2.0) > 0
    wall.update(now=9.1, waited=9.0)
    assert command.left(2.0) <= 0 < job.left(2.0)
    wall.update(now=16.1, waited=16.0)
    assert job.left(2.0) <= 0
