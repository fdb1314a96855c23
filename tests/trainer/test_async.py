"""Asynchronous rollouts (``async_level = k``): worker processes, the exact schedule, weights by
version, behaviour log-probs, a killed worker replaced, SIGKILL and resume."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import torch

from grpo_envs.envs.digits import Digits
from tests.trainer.test_trainer import _weights, rows, train_flags
from trainer import TrainerError
from trainer._batch import make_batch, sequence_logps
from trainer.config import AsyncConfig, GRPOConfig, load_config
from trainer.grpo import GRPOTrainer
from trainer.policy._model import demo_model
from trainer.weights._channel import FileWeights, shm_root
from trainer.workers._async import thread_split, version_for
from trainer.workers._worker import Job, WorkerSpec, _Worker

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def config(tmp_path: Path, name: str = "run", **overrides: Any) -> GRPOConfig:
    base: dict[str, Any] = dict(
        steps=4,
        prompts_per_step=4,
        num_generations=4,
        max_new_tokens=2,
        learning_rate=1e-2,
        beta=0.0,
        output_dir=str(tmp_path / name),
        save_every=0,
        eval_prompts=2,
        device="cpu",
        env="grpo_envs/Digits-v0",
        async_level=1,
    )
    return GRPOConfig.from_dict({**base, **overrides})


def test_async_fields_are_checked_in_one_line() -> None:
    with pytest.raises(TrainerError, match=r"async_level must be >= 0 \(0: no rollout workers\), got -1"):
        GRPOConfig.from_dict({"async_level": -1})
    with pytest.raises(TrainerError, match="async_workers must be >= 1"):
        GRPOConfig(asynchronous=AsyncConfig(workers=0))
    with pytest.raises(TrainerError, match="async_schedule must be exact or latest, got 'newest'"):
        load_config(overrides={"async_schedule": "newest"})
    with pytest.raises(TrainerError, match='async_schedule = "latest" runs on local transformers workers'):
        GRPOConfig(asynchronous=AsyncConfig(level=1, schedule="latest"), generator="vllm")
    with pytest.raises(TrainerError, match='async_workers_on = "ray" runs transformers in its actors'):
        GRPOConfig.from_dict({"async_level": 1, "async_workers_on": "ray", "generator": "vllm"})
    assert GRPOConfig.from_dict({"async_level": 1, "generator": "vllm"}).generator == "vllm"  # vLLM rollout workers
    assert GRPOConfig().asynchronous.level == 0
    assert GRPOConfig(asynchronous={"level": 2}).asynchronous == AsyncConfig(level=2)  # type: ignore[arg-type]
    with pytest.raises(TrainerError, match="asynchronous has unknown key 'levle' .did you mean 'level'"):
        GRPOConfig(asynchronous={"levle": 2})  # type: ignore[arg-type]


def test_the_nominal_schedule_and_the_thread_split() -> None:
    assert [version_for(t, 0) for t in range(4)] == [0, 1, 2, 3]  # k = 0: the weights of this step
    assert [version_for(t, 1) for t in range(5)] == [0, 0, 1, 2, 3]
    assert [version_for(t, 2) for t in range(5)] == [0, 0, 0, 1, 2]
    assert thread_split(1, 2) == (1, 1) and thread_split(2, 16) == (5, 6) and thread_split(4, 2) == (1, 1)


def test_weights_go_by_version_through_files(tmp_path: Path) -> None:
    channel = FileWeights(tmp_path / "w")
    a, b = demo_model(12, seed=1), demo_model(12, seed=2)  # tied embeddings: saved once, loaded back tied
    channel.publish(a, 0)
    channel.publish(b, 1)
    target = demo_model(12, seed=3)
    assert channel.load(target, 0) == 0
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), target.state_dict().values(), strict=True))
    assert channel.load(target, 1) == 1
    assert torch.equal(target.lm_head.weight, b.model.embed_tokens.weight)
    channel.prune(below=1)
    assert channel.versions() == [1]
    with pytest.raises(TrainerError, match="weights version 0 is not in"):
        channel.load(target, 0)
    assert not list(channel.folder.glob(".tmp-*"))
    channel.close()
    assert not channel.folder.exists()
    assert shm_root() == Path("/dev/shm") or not Path("/dev/shm").is_dir()


def test_the_latest_schedule_samples_from_the_newest_version_never_an_older_one(tmp_path: Path) -> None:
    """A worker on the "latest" schedule loads the newest version published, not the job's
    oldest allowed one; on the exact schedule, the job's version."""
    from trainer.policy._model import demo_tokenizer

    tok = demo_tokenizer("0123456789csmpe=")
    model_dir, channel = tmp_path / "model", FileWeights(tmp_path / "w")
    demo_model(len(tok)).config.save_pretrained(model_dir)
    tok.save_pretrained(model_dir)
    for v in range(3):
        channel.publish(demo_model(len(tok), seed=v), v)
    spec = WorkerSpec(str(model_dir), str(channel.folder), "grpo_envs/Digits-v0", {}, 2, 2, 1.0, 0, 1)
    job = Job(step=3, version=1, seeds=[5])
    exact, latest = _Worker(spec).run(job), _Worker(dataclasses.replace(spec, latest=True)).run(job)
    assert (exact.version, latest.version) == (1, 2)
    logps = [[r.sampler_logps for g in done.groups for r in g] for done in (exact, latest)]
    assert logps[0] != logps[1]  # sampled (and scored) by other weights


@pytest.mark.slow
def test_k2_latest_schedule_batches_are_never_older_than_k_and_log_their_version(tmp_path: Path) -> None:
    metrics, kept, trainer = _run(config(tmp_path, async_level=2, async_schedule="latest", steps=5))
    all_versions = [v for _, v in kept]
    for t, (batch, _) in enumerate(kept):
        assert version_for(t, 2) <= batch.version <= t
        assert metrics[t]["weight_version"] == batch.version and metrics[t]["staleness"] == t - batch.version
        assert _behaviour_matches(trainer, batch, all_versions[batch.version]), t


def _run(cfg: GRPOConfig, *, kill_after: int | None = None) -> tuple[list[dict[str, Any]], list[Any], GRPOTrainer]:
    """Step ``cfg`` through; each step's batch from the worker, and each version's weights, kept.
    With ``kill_after``, the worker of the next batch is SIGKILLed after that many steps."""
    trainer = GRPOTrainer(cfg, show_progress=False)
    assert trainer.workers is not None
    take, batches = trainer.workers.take, []
    trainer.workers.take = lambda step: batches.append(take(step)) or batches[-1]  # type: ignore[method-assign]
    versions = [{k: v.clone() for k, v in trainer.model.state_dict().items()}]
    metrics = []
    try:
        for _ in range(cfg.steps):
            if kill_after is not None and trainer.step_count == kill_after:
                slot = trainer.workers.slots[trainer.step_count % len(trainer.workers.slots)]
                os.kill(slot.process.pid, signal.SIGKILL)
            metrics.append(trainer.step())
            versions.append({k: v.clone() for k, v in trainer.model.state_dict().items()})
    finally:
        trainer.close()
    return metrics, list(zip(batches, versions, strict=False)), trainer


def _behaviour_matches(trainer: GRPOTrainer, batch: Any, weights: dict[str, torch.Tensor]) -> bool:
    """Are the batch's behaviour log-probs those of ``weights``?"""
    model = demo_model(len(trainer.tokenizer))
    model.load_state_dict(weights)
    rollouts = [r for g in batch.groups for r in g]
    b = make_batch(rollouts, trainer.tokenizer.pad_token_id)
    with torch.no_grad():
        logps = sequence_logps(model, b, slice(0, len(rollouts)), device=torch.device("cpu"), temperature=1.0)
    assert b.sampler_logps is not None
    return bool(torch.allclose(logps * b.mask, b.sampler_logps, atol=1e-5))


def _check_schedule(trainer: GRPOTrainer, metrics: list[dict[str, Any]], kept: list[Any], k: int) -> None:
    steps = len(metrics)
    assert [m["weight_version"] for m in metrics] == [version_for(t, k) for t in range(steps)]
    assert [m["staleness"] for m in metrics] == [min(t, k) for t in range(steps)]
    all_versions = [v for _, v in kept]

    def moved(t: int) -> bool:  # did the weights change between version t - k and version t?
        return any(metrics[j]["grad_norm"] > 0 for j in range(version_for(t, k), t))

    for t, (batch, _) in enumerate(kept):
        assert batch.step == t and batch.version == version_for(t, k)
        assert _behaviour_matches(trainer, batch, all_versions[version_for(t, k)]), t  # sampled by version t-k
        if moved(t):  # and not by the learner's newer weights
            assert not _behaviour_matches(trainer, batch, all_versions[t]), t
    assert metrics[0]["sampler_kl"] < 1e-6 and metrics[0]["is_weight_mean"] == pytest.approx(1.0, abs=1e-5)
    stale = [m for t, m in enumerate(metrics) if moved(t)]
    assert stale and all(m["sampler_kl"] > 0 for m in stale)  # older weights: the IS correction has work


def test_k1_one_worker_samples_each_batch_from_the_weights_one_update_old(tmp_path: Path) -> None:
    metrics, kept, trainer = _run(config(tmp_path))
    _check_schedule(trainer, metrics, kept, k=1)
    assert {m["step"] for m in rows(tmp_path / "run" / "metrics.jsonl")} == {1, 2, 3, 4}


@pytest.mark.slow
def test_k2_two_workers_and_a_killed_worker_replaced_mid_run(tmp_path: Path) -> None:
    """Two worker processes, k = 2: each batch from the weights two updates old; a worker killed
    with SIGKILL is restarted, its batch made again, and the run goes on to the same numbers."""
    cfg = config(tmp_path, async_level=2, async_workers=2, steps=5)
    metrics, kept, trainer = _run(cfg)
    _check_schedule(trainer, metrics, kept, k=2)
    again, _, restarted = _run(cfg.replace(output_dir=str(tmp_path / "killed")), kill_after=2)
    assert restarted.workers is not None and restarted.workers.restarts == 1
    assert again == metrics


def test_what_async_does_not_run_with_yet_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TrainerError, match="async_level = 1: the env runs in worker processes: pass an env id"):
        GRPOTrainer(config(tmp_path), env=lambda: Digits(), show_progress=False)
    if importlib.util.find_spec("vllm") is None:  # this venv's (the vLLM workers' runs: test_async_vllm.py)
        with pytest.raises(TrainerError, match='generator = "vllm" runs a vLLM engine in each rollout worker, and '):
            GRPOTrainer(config(tmp_path, "vllm", generator="vllm"), show_progress=False)
    with pytest.raises(TrainerError, match="async_level = 1: LoRA is not sent"):
        pytest.importorskip("peft")
        GRPOTrainer(config(tmp_path, "lora", lora={"r": 2}), show_progress=False)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="the run with vLLM: test_async_vllm.py")
def test_the_vllm_worker_entry_point_runs_the_vllm_worker(tmp_path: Path) -> None:
    """``python -m trainer.workers._worker_vllm FD`` (what the learner starts for generator = "vllm") takes
    its spec and builds a `VLLMWorker`: here, without vLLM, that fails in one line that says how."""
    import socket
    from multiprocessing.connection import Connection

    from trainer.workers._worker import WorkerSpec

    ours, theirs = socket.socketpair()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = [sys.executable, "-m", "trainer.workers._worker_vllm", str(theirs.fileno())]
    child = subprocess.Popen(command, pass_fds=[theirs.fileno()], env=env, stderr=subprocess.PIPE, text=True)
    theirs.close()
    conn = Connection(ours.detach())
    conn.send(WorkerSpec(str(tmp_path), str(tmp_path), "grpo_envs/Digits-v0", {}, 2, 2, 1.0, 0, 1, generator="vllm"))
    _, err = child.communicate(timeout=120)
    conn.close()
    assert child.returncode != 0 and "TrainerError: the vllm backend needs vLLM" in err, err[-2000:]


def test_tied_weights_get_back_the_names_a_weights_file_leaves_out(tmp_path: Path) -> None:
    """A file of `FileWeights` (safetensors' ``save_model``) holds a tied embedding once, under
    ``lm_head.weight``; a vLLM worker passes it under both names (vLLM skips ``lm_head`` when tied)."""
    from safetensors import safe_open
    from transformers import AutoConfig

    from trainer.workers._worker_vllm import tied_aliases

    model = demo_model(12, seed=1)
    assert model.config.tie_word_embeddings
    channel = FileWeights(tmp_path / "w")
    channel.publish(model, 0)
    with safe_open(str(channel.path(0)), framework="pt") as f:
        saved = set(f.keys())
    assert "lm_head.weight" in saved and "model.embed_tokens.weight" not in saved
    aliases = tied_aliases(model.config)
    assert aliases == {"model.embed_tokens.weight": ["lm_head.weight"], "lm_head.weight": ["model.embed_tokens.weight"]}
    untied = AutoConfig.for_model(**{**model.config.to_dict(), "tie_word_embeddings": False})
    assert tied_aliases(untied) == {}


def test_async_level_0_starts_no_worker_and_logs_no_staleness(tmp_path: Path) -> None:
    trainer = GRPOTrainer(config(tmp_path, async_level=0, steps=1), show_progress=False)
    assert trainer.workers is None
    assert "staleness" not in trainer.step()


@pytest.mark.slow
def test_sigkill_then_resume_matches_an_uninterrupted_async_run_bit_for_bit(tmp_path: Path) -> None:
    """k = 2: the checkpoint at step 4 holds weights versions 2 and 3; resumed, the in-flight batches
    of steps 4 and 5 are sampled again from them (and 6 from the checkpoint's own weights)."""
    steps, flags = 8, ("--async-level", "2", "--beta", "0.0")

    def cmd(out: Path, *extra: str) -> list[str]:
        return [sys.executable, "-m", "trainer", *train_flags(out, steps, *flags, *extra)]

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    straight, killed = tmp_path / "straight", tmp_path / "killed"
    subprocess.run(cmd(straight), check=True, capture_output=True, env=env, timeout=600)
    child = subprocess.Popen(cmd(killed), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 300
    while not (killed / "checkpoints" / "step-000004").exists():
        assert child.poll() is None and time.monotonic() < deadline, "the run ended before it could be killed"
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert not list((killed / "checkpoints").glob("step-000008")), "killed mid-run, not after"
    saved = sorted(p.name for p in (killed / "checkpoints" / "step-000004" / "async").iterdir())
    assert saved == ["v00000002.safetensors", "v00000003.safetensors"]
    resumed = subprocess.run(cmd(killed, "--resume"), capture_output=True, text=True, env=env, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    a, b = rows(straight / "metrics.jsonl"), rows(killed / "metrics.jsonl")
    a[0].pop("run_id"), b[0].pop("run_id")
    assert [r["staleness"] for r in a] == [0, 1, 2, 2, 2, 2, 2, 2]
    assert a == b
    wa, wb = _weights(straight / "final"), _weights(killed / "final")
    assert wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)
    assert json.loads((killed / "run.json").read_text())["run_id"]


@pytest.mark.slow
def test_ddp_and_fsdp_learners_sharing_rank_0s_workers_match_one_process(tmp_path: Path) -> None:
    """k = 1 under torchrun, 2 ranks and rank 0's one worker: each rank trains on the share the
    synchronous path gives it, so every logged number and the final weights are one process's
    (to 2 ranks' rounding: test_scale's tolerance). The DDP run stops at step 2 and is resumed
    (the checkpoint holds version 1); the FSDP run publishes weights gathered by both ranks."""
    from tests.trainer._dist_worker import ASYNC
    from tests.trainer.test_scale import WORKER, _same_step, _torchrun

    one = GRPOTrainer(
        GRPOConfig.from_dict({**ASYNC, "save_every": 0, "output_dir": str(tmp_path / "one")}), show_progress=False
    )
    one.train()
    _torchrun(str(WORKER), str(tmp_path), "async", timeout=400)
    expected = rows(tmp_path / "one" / "metrics.jsonl")
    assert [r["staleness"] for r in expected] == [0, 1, 1] and expected[0]["grad_norm"] > 0
    assert expected[2]["sampler_kl"] > 0  # sampled from version 1, trained at version 2: not the same weights
    saved = tmp_path / "ddp" / "checkpoints" / "step-000002" / "async"
    assert sorted(p.name for p in saved.iterdir()) == ["v00000001.safetensors"]
    seen = [json.loads((tmp_path / f"ddp-seen-{rank}.json").read_text()) for rank in (0, 1)]
    assert seen[0]["batch"] == seen[1]["batch"] and len(seen[0]["batch"]) == 2  # every rank had rank 0's batch
    for rank in (0, 1):  # and trained on its half, as without workers
        assert seen[rank]["share"] == [batch[2 * rank : 2 * rank + 2] for batch in seen[0]["batch"]], rank
    reference = _weights(tmp_path / "one" / "final")
    for name in ("ddp", "fsdp"):
        got = rows(tmp_path / name / "metrics.jsonl")
        assert [r["step"] for r in got] == [1, 2, 3], name
        for a, b in zip(expected, got, strict=True):
            assert a.keys() == b.keys()
            for key in a.keys() - {"run_id"}:
                assert b[key] == pytest.approx(a[key], rel=1e-4, abs=1e-6), (name, a["step"], key)
        weights = _weights(tmp_path / name / "final")
        assert reference.keys() <= weights.keys(), name  # FSDP's export also names the tied lm_head
        for key, value in reference.items():
            _same_step(weights[key], value, f"{name}: {key}", steps=3)


def test_a_start_that_fails_gives_the_learner_back_its_threads(tmp_path: Path) -> None:
    from trainer.policy._model import demo_tokenizer
    from trainer.workers._async import AsyncRollouts, ProcessLaunch

    class NoWorker(ProcessLaunch):
        def start(self, spec: Any, index: int, generation: int) -> Any:
            raise OSError("no worker here")

    before = torch.get_num_threads()
    tok = demo_tokenizer("0123456789+-*=")
    with pytest.raises(OSError, match="no worker here"):
        AsyncRollouts(
            config(tmp_path, async_workers=1), demo_model(len(tok)), tok, "grpo_envs/Digits-v0", lambda step: [0],
            launch=NoWorker(),
        )  # fmt: skip
    assert torch.get_num_threads() == before
