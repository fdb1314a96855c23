"""Asynchronous rollouts with vLLM rollout workers (``generator = "vllm"``, ``async_level = 1``), in
vLLM's CPU build's own virtualenv (`make test` builds it: scripts/ensure-vllm.sh). One run of
`_async_vllm_worker.py` with that venv's python: one worker, one engine start."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

WORKER = Path(__file__).with_name("_async_vllm_worker.py")
TOLERANCE = 1e-4  # float32 on CPU, vLLM's kernels against transformers' forward (test_train_vllm.py's)
# The first test pays for the run (its own limit: 600 s): pytest-timeout's 300 s counts fixtures too.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def run(vllm_python: str, vllm_env: dict[str, str], tiny_model_dir: Path, tmp_path_factory: Any) -> Any:
    out = tmp_path_factory.mktemp("async-vllm")
    command = [vllm_python, str(WORKER), "learner", str(tiny_model_dir), str(out)]
    done = subprocess.run(command, env=vllm_env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout.split("RESULT ")[-1])
    return result


@pytest.mark.slow
def test_a_vllm_worker_samples_each_batch_from_the_weights_one_update_old(run: dict[str, Any]) -> None:
    """k = 1, 4 steps, one worker process with its own engine (none in the learner): the batch of
    step t comes from version max(0, t - 1); its behaviour log-probs (vLLM's own, no extra
    forward) equal the learner's forward with that version's weights, not with the newer ones."""
    assert run["learner_engine"] is False and run["exit_code"] == 0
    assert len(run["worker_pids"]) == 1 and run["worker_pids"] != [run["learner_pid"]]
    metrics = run["metrics"]
    assert [m["weight_version"] for m in metrics] == [0, 0, 1, 2]
    assert [m["staleness"] for m in metrics] == [0, 1, 1, 1]
    assert max(run["gap_sampled"]) < TOLERANCE, run["gap_sampled"]
    assert min(run["gap_newer"][1:]) > 100 * TOLERANCE, run["gap_newer"]  # the learner had moved on
    assert abs(metrics[0]["sampler_kl"]) < 1e-6  # step 0: the worker's weights are the learner's
    assert all(m["sampler_kl"] > 1e-3 for m in metrics[1:])  # then one update old: the IS correction's work
    assert run["tokens"] > 0 and all(s > 0 for s in run["generate_s"])


@pytest.mark.slow
def test_the_vllm_worker_reloads_weights_and_drops_its_prefix_cache(run: dict[str, Any]) -> None:
    """On the run's engine: after each load (A, B, A again) vLLM's log-probs after a 150-token prompt
    (more than one KV block) equal that version's forward; the control, a load of B without
    ``reset_prefix_cache``, serves the prompt's blocks cached under A. The model has tied
    embeddings: a file from ``safetensors.save_model`` holds them once, as ``lm_head.weight``,
    and vLLM loads them only under the embedding's name (`tied_aliases`)."""
    control = run["control"]
    assert max(control["gaps"]) < TOLERANCE, control["gaps"]
    assert control["stale"] > 100 * TOLERANCE, control
    assert control["version"] == 101 and all(0 < s < 30 for s in control["load_s"])
