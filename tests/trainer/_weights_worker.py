"""A rollout worker's side of `CollectiveWeights`, run by tests/trainer/test_weights_collective.py:
``python -m tests.trainer._weights_worker PORT WORLD RANK OUT VERSIONS [GO]``. It loads each
of VERSIONS (comma-separated, in order) and saves what it loaded to OUT. With GO (a file), it is
the slow worker: it loads nothing until GO exists, which the learner writes only after every
publish returned, so a learner that waited for this worker would never write it."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import torch


def tiny_model(seed: int) -> torch.nn.Module:
    """Tied weights (one tensor sent once) and an int64 buffer (a second dtype, a second buffer)."""
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Embedding(16, 8), torch.nn.Linear(8, 16))
    model[1].weight = model[0].weight  # type: ignore[index]
    model.register_buffer("positions", torch.arange(5) + seed)
    return model


def main(port: int, world: int, rank: int, out: str, versions: list[int], go: str | None) -> None:
    from trainer._weights_collective import CollectiveWeights, GroupAddress

    model = tiny_model(seed=100 + rank)
    channel = CollectiveWeights.join(GroupAddress(port, world), rank, model, timeout_s=60)
    if go is not None:
        while not Path(go).exists():
            time.sleep(0.05)
    loaded = {}
    for v in versions:
        assert channel.load(model, v) == v
        loaded[v] = {k: t.clone() for k, t in model.state_dict().items()}
        if go is not None:
            time.sleep(0.2)  # a batch being generated
    try:
        channel.load(model, versions[0])
    except Exception as exc:  # older versions are dropped once a newer one is loaded
        loaded[-1] = str(exc)  # type: ignore[assignment]
    torch.save(loaded, out)


if __name__ == "__main__":
    a = sys.argv[1:]
    main(int(a[0]), int(a[1]), int(a[2]), a[3], [int(v) for v in a[4].split(",")], a[5] if len(a) > 5 else None)
    # Leave without interpreter shutdown: the receiver (a daemon thread) may still be blocked in a
    # gloo broadcast, and tearing the process group down under it can abort (SIGABRT, "terminate
    # called without an active exception"; seen once under CI load). The output is saved already.
    os._exit(0)
