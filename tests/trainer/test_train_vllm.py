"""The trainer with ``generator="vllm"`` (vLLM's CPU build in its own virtualenv, which `make test`
builds: scripts/ensure-vllm.sh). Each test runs `_train_vllm_worker.py` with that venv's python."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

WORKER = Path(__file__).with_name("_train_vllm_worker.py")
TOLERANCE = 1e-4  # float32 on CPU: the gaps measured here are 2e-7 (demo model) to 3e-5 (std-0.3 weights)
# The first test pays for the module's worker (its own limit: 600 s), 1.5-4 min on 2 shared cores:
# pytest-timeout's 300 s counts fixtures too, and cut it off on a loaded machine.
pytestmark = pytest.mark.timeout(900)


def run_worker(
    vllm_python: str, env: dict[str, str], mode: str, model: str, out: Path, *, ranks: int = 0
) -> dict[str, Any]:
    launcher = [vllm_python]
    if ranks:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        launcher += ["-m", "torch.distributed.run", f"--nproc_per_node={ranks}", "--master_addr=127.0.0.1"]
        launcher += [f"--master_port={port}"]
        env = {**env, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [*launcher, str(WORKER), mode, model, str(out)], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout.split("RESULT ")[-1])
    return result


@pytest.fixture(scope="module")
def worker_run(vllm_python: str, vllm_env: dict[str, str], tiny_model_dir: Path, tmp_path_factory: Any) -> Any:
    out = tmp_path_factory.mktemp("train-vllm")
    return run_worker(vllm_python, vllm_env, "sync,resume,single,learn", str(tiny_model_dir), out)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["full", "lora"])
def test_vllm_follows_every_update_exactly(worker_run: dict[str, Any], variant: str) -> None:
    """After each of 3 updates, vLLM's log-probs of its samples after a fixed 150-token prompt (more
    than one KV block: a stale prefix cache would serve it) equal the trainer's forward."""
    got = worker_run["sync"][variant]
    assert len(got["gaps"]) == 4 and max(got["gaps"]) < TOLERANCE, got["gaps"]
    assert all(c > 1e-3 for c in got["changes"]), got["changes"]  # every update moved vLLM's samples
    assert all(0 < s < 5 for s in got["sync_s"])  # the sync's seconds are logged per step
    assert abs(got["sampler_kl"]) < 1e-5


@pytest.mark.slow
def test_the_sync_test_catches_a_stale_prefix_cache(worker_run: dict[str, Any]) -> None:
    """The control: the same sync without ``reset_prefix_cache`` serves the old weights' KV blocks.
    (And 40 seeded 150-token prompts in one call sample: on CPU a chunked prefill of a seeded
    request fails, so the engine prefills whole prompts.)"""
    assert worker_run["sync"]["long_batch"] == 40
    gaps = worker_run["sync"]["no_reset"]["gaps"]
    assert gaps[0] < TOLERANCE and min(gaps[1:]) > 100 * TOLERANCE, gaps


@pytest.mark.slow
def test_resume_with_vllm_is_bit_exact_on_a_multi_turn_env(worker_run: dict[str, Any]) -> None:
    """4 steps straight == 2 steps, a checkpoint, a new process's engine, 2 more: same metrics (every
    float), same final weights. vLLM's samples are seeded per (task, sample, turn) and its engine is
    rebuilt from the restored weights; on a GPU, kernels that are not batch-invariant may break this."""
    got = worker_run["resume"]
    assert [r["step"] for r in got["straight"]] == [1, 2, 3, 4]
    assert got["halves"] == got["straight"]
    assert got["weights_equal"] is True
    assert max(r["completion_len_max"] for r in got["straight"]) > got["max_new_tokens"]  # several turns
    assert all(abs(r["sampler_kl"]) < 1e-5 for r in got["straight"])  # env tokens are out of the comparison


@pytest.mark.slow
def test_the_demo_learns_with_vllm_generating(worker_run: dict[str, Any]) -> None:
    """`make demo`'s task and seeds, cut to 100 steps, clears the demo check's bar (the correct rate
    of the last 10 steps >= 0.5 above the first 10: scripts/check_demo.py)."""
    got = worker_run["learn"]
    assert got["last"] - got["first"] >= 0.5, got
    assert got["sampler_logp_diff_max"] < 1e-4 and got["sampler_kl_max"] < 1e-6
    assert 0 < got["sync_s_max"] < 5


@pytest.mark.slow
def test_two_ranks_with_an_engine_each_make_the_one_process_run(
    worker_run: dict[str, Any], vllm_python: str, vllm_env: dict[str, str], tiny_model_dir: Path, tmp_path: Path
) -> None:
    """DDP: each rank generates its half of the tasks on its own engine; samples are seeded per
    (task, sample), so the two ranks sample what one process samples, and the first update is the
    same (after it, Adam's rounding where a gradient is ~0 moves the two runs' weights apart by up
    to lr on a few weights: `test_scale`)."""
    got = run_worker(vllm_python, vllm_env, "ddp", str(tiny_model_dir), tmp_path, ranks=2)["ddp"]
    one = worker_run["single"]
    assert got["world"] == 2 and one["world"] == 1
    for a, b in zip(got["rows"], one["rows"], strict=True):
        for key in ("correct_rate", "reward_std", "completion_len_mean", "zero_variance_frac"):
            assert a[key] == b[key], (a["step"], key)  # the same samples
        assert abs(a["sampler_kl"]) < 1e-5
    assert got["rows"][0]["grad_norm"] == pytest.approx(one["rows"][0]["grad_norm"], rel=1e-4)
