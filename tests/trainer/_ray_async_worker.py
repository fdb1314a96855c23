"""The Ray side of tests/trainer/test_async_ray.py: run inside a loopback-only network namespace
(tests/verifiers/ray_netns.py), play the scenario, print one JSON report.

One run with worker processes (checkpoints at steps 2 and 4), then, on one Ray cluster (``ray
start``, reached through RAY_ADDRESS as a user's would be): the same run with Ray actors, one
actor killed with ``ray.kill`` mid-run; and the processes' run resumed from its step-2
checkpoint with Ray actors (which write the step-4 checkpoint). The config is test_async.py's
(the demo model on Digits), with k = 1 and two workers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

STEPS = 4


def config(out: str, name: str, **overrides: Any) -> Any:
    from trainer.config import GRPOConfig

    base: dict[str, Any] = dict(
        steps=STEPS, prompts_per_step=4, num_generations=4, max_new_tokens=2, learning_rate=1e-2, beta=0.0,
        output_dir=os.path.join(out, name), save_every=2, eval_prompts=2, device="cpu", env="grpo_envs/Digits-v0",
        async_level=1, async_workers=2,
    )  # fmt: skip
    return GRPOConfig.from_dict({**base, **overrides})


def run(cfg: Any, steps: int, *, kill_after: int | None = None, resume: bool = False) -> dict[str, Any]:
    """``steps`` steps of ``cfg`` (a checkpoint every ``save_every``): metrics, the pids that made
    the batches, restarts. With ``kill_after``, the actor of the next job to be sent is killed
    (``ray.kill``) after that many steps: busy with its job before, or idle, it is found dead
    either way (a call to it fails), whatever the timing."""
    import ray

    from trainer.grpo import GRPOTrainer

    trainer = GRPOTrainer(cfg, show_progress=False, resume=resume)
    workers = trainer.workers
    assert workers is not None
    pids: list[int] = []
    workers.take = _recording(workers.take, pids)  # type: ignore[method-assign]
    out: dict[str, Any] = {"metrics": [], "killed": None}
    try:
        for _ in range(steps):
            if kill_after is not None and trainer.step_count == kill_after:
                out["killed"] = trainer.step_count + cfg.asynchronous.level + 1
                ray.kill(workers.slots[out["killed"] % len(workers.slots)].process)
            out["metrics"].append(trainer.step())
            if trainer.step_count % cfg.save_every == 0:
                trainer.save()
        out["versions_held"] = workers.weights.versions()
    finally:
        trainer.close()
    out.update(pids=pids, restarts=workers.restarts, learner=os.getpid(), connected=ray.is_initialized())
    return out


def _recording(take: Any, pids: list[int]) -> Any:
    def taken(step: int) -> Any:
        got = take(step)
        pids.append(got.pid)
        return got

    return taken


def same_tensors(out: str, name: str) -> bool:
    """Do the processes' run and the resumed Ray run hold the same tensors in checkpoint file
    ``name``? (A tied tensor may be kept under either of its names.)"""
    import torch
    from safetensors.torch import load_file

    a, b = (load_file(os.path.join(out, run, "checkpoints", name)) for run in ("processes", "resumed"))
    if len(a) != len(b):
        return False
    return all(any(x.shape == y.shape and torch.equal(x, y) for y in b.values()) for x in a.values())


def main() -> None:
    print(json.dumps({"netns": os.readlink("/proc/self/ns/net")}), flush=True)
    temp = os.environ["GE_RAY_TEMP"]
    out = tempfile.mkdtemp(prefix="runs-", dir=temp)
    report: dict[str, Any] = {"processes": run(config(out, "processes"), STEPS)}
    ray_bin = str(Path(sys.executable).with_name("ray"))
    start = [ray_bin, "start", "--head", "--num-cpus", "2", "--include-dashboard", "false", "--port", "6390"]
    subprocess.run([*start, "--temp-dir", temp, "--disable-usage-stats"], check=True, capture_output=True)
    os.environ["RAY_ADDRESS"] = "127.0.0.1:6390"
    try:
        report["killed"] = run(config(out, "killed", async_workers_on="ray"), STEPS, kill_after=1)
        resumed = os.path.join(out, "resumed")
        shutil.copytree(os.path.join(out, "processes"), resumed)
        shutil.rmtree(os.path.join(resumed, "checkpoints", "step-000004"))
        report["saved"] = sorted(os.listdir(os.path.join(resumed, "checkpoints", "step-000002", "async")))
        report["resumed"] = run(config(out, "resumed", async_workers_on="ray"), STEPS - 2, resume=True)
        report["same_checkpoint"] = same_tensors(out, "step-000004/async/v00000003.safetensors")
        pids = {p for key in ("killed", "resumed") for p in report[key]["pids"]}
        report["shm_left"] = [p.name for p in Path("/dev/shm").glob("grpo-envs-weights-*") if _pid(p.name) in pids]
    finally:
        subprocess.run([ray_bin, "stop", "--force"], capture_output=True)
    print(json.dumps(report), flush=True)


def _pid(name: str) -> int:
    return int(name.removeprefix("grpo-envs-weights-").split("-")[0])


if __name__ == "__main__":
    main()
