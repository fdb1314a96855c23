"""`verifiers._pool.WorkerPool.call` takes the function itself (pickled by reference), not its
module and name as strings."""

from __future__ import annotations

import math
import pickle

import pytest

from verifiers._pool import WorkerPool
from verifiers.errors import WorkerCrashed
from verifiers.math import MathConfig
from verifiers.math._core import run_equivalent


def test_a_module_level_function_runs_in_the_worker_and_a_local_one_is_refused_at_the_call() -> None:
    pool = WorkerPool(size=1)
    try:
        assert pool.call(math.factorial, (5,), timeout_s=30) == 120
        assert pool.call(run_equivalent, ("\\frac{1}{2}", "0.5", MathConfig()), timeout_s=60) is True

        def local(x: int) -> int:
            return x

        with pytest.raises((AttributeError, pickle.PicklingError)):  # no name the worker could import
            pool.call(local, (1,), timeout_s=30)
        with pytest.raises(WorkerCrashed, match="ValueError"):  # raised in the worker: reported, the worker lives on
            pool.call(math.factorial, (-1,), timeout_s=30)
        assert pool.call(math.factorial, (3,), timeout_s=30) == 6
    finally:
        pool.close()
