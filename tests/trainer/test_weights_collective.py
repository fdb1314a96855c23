"""`CollectiveWeights`: the weights channel over a process group of its own, tested on the CPU
with gloo (NCCL runs the same code on GPUs): a learner and two worker processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.trainer._weights_worker import tiny_model
from trainer import TrainerError
from trainer._weights_collective import CollectiveWeights

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_every_worker_gets_every_version_in_order_and_a_slow_one_holds_up_nobody(tmp_path: Path) -> None:
    """Worker 1 loads every version as it comes; worker 2 is slow (it starts loading only after
    the learner has published all of them, and takes time per batch) and loads versions 1 and 4
    only: it still receives every version, so neither the learner nor worker 1 waits for it."""
    model = tiny_model(seed=0)
    learner = CollectiveWeights.host(model, workers=2, timeout_s=60)
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    args = [sys.executable, "-m", "tests.trainer._weights_worker", str(learner.address.port), "3"]
    workers = [
        subprocess.Popen([*args, "1", str(tmp_path / "1.pt"), "0,1,2,3,4"], cwd=ROOT, env=env),
        subprocess.Popen([*args, "2", str(tmp_path / "2.pt"), "1,4", str(go)], cwd=ROOT, env=env),
    ]
    published = {}
    try:
        for version in range(5):
            with torch.no_grad():
                model[0].weight.add_(version + 1.0)  # a new version: every float changes
                model.positions.add_(1)  # type: ignore[operator]
            learner.publish(model, version)
            published[version] = {k: t.clone() for k, t in model.state_dict().items()}
        with pytest.raises(TrainerError, match="weights versions go up: 4 after 4"):
            learner.publish(model, 4)
        go.touch()  # every publish returned before the slow worker took anything
        assert [w.wait(timeout=120) for w in workers] == [0, 0]
    finally:
        learner.close()
        for w in workers:
            if w.poll() is None:
                w.kill()
    assert not learner._thread.is_alive(), "the sender ends after its STOP"
    for rank, versions in ((1, [0, 1, 2, 3, 4]), (2, [1, 4])):
        loaded = torch.load(tmp_path / f"{rank}.pt")
        assert "is not here (dropped" in loaded.pop(-1)
        assert list(loaded) == versions
        for v in versions:
            assert loaded[v].keys() == published[v].keys()
            assert all(torch.equal(loaded[v][k], published[v][k]) for k in published[v]), (rank, v)
