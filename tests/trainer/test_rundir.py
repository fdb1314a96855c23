"""A run is never overwritten: used output directories are refused, --overwrite moves the old run
aside atomically, and pruning and --resume only see the run's own checkpoints. Through the real
``grpo-envs train`` console script, in subprocesses; the same rules through the Python API."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.trainer.test_trainer import train_flags
from trainer import TrainerError
from trainer.config import GRPOConfig
from trainer.grpo import GRPOTrainer
from trainer.run._checkpoint import checkpoints, save_checkpoint

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SCRIPT = Path(sys.executable).with_name("grpo-envs")
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}


def train_cmd(out: Path, steps: int, *extra: str) -> list[str]:
    return [str(SCRIPT), "train", *train_flags(out, steps, *extra, beta="0.0")]


def train(out: Path, steps: int, *extra: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(train_cmd(out, steps, *extra), capture_output=True, text=True, env=ENV, timeout=300)
    if ok:
        assert done.returncode == 0, done.stderr[-3000:]
    return done


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` and its content hash."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()
    }


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_id(root: Path) -> str:
    return str(json.loads((root / "run.json").read_text())["run_id"])


def checkpoint_ids(root: Path) -> dict[str, Any]:
    return {
        p.name: json.loads((p / "trainer_state.json").read_text())["run_id"] for p in checkpoints(root / "checkpoints")
    }


@pytest.fixture(scope="module")
def old_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 8-step run (checkpoints at steps 6 and 8 kept), to copy into each test."""
    out = tmp_path_factory.mktemp("old") / "run"
    train(out, 8)
    return out


def copy_of(run: Path, where: Path) -> Path:
    target = where / "run"
    shutil.copytree(run, target)
    return target


@pytest.mark.slow
def test_every_checkpoint_and_the_first_metrics_row_carry_the_run_id(old_run: Path) -> None:
    rid = run_id(old_run)
    assert len(rid) >= 12
    assert checkpoint_ids(old_run) == {"step-000006": rid, "step-000008": rid}
    log = rows(old_run / "metrics.jsonl")
    assert log[0]["run_id"] == rid and [r["step"] for r in log] == list(range(1, 9))


@pytest.mark.slow
def test_a_used_output_dir_is_refused_and_left_untouched(old_run: Path, tmp_path: Path) -> None:
    run = copy_of(old_run, tmp_path)
    before = snapshot(run)
    done = train(run, 4, ok=False)
    assert done.returncode == 2
    message = done.stderr.strip().splitlines()[-1]
    assert str(run) in message and "--resume" in message and "--overwrite" in message, message
    assert "Traceback" not in done.stderr
    assert snapshot(run) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"], "nothing was moved aside"


@pytest.mark.slow
def test_overwrite_moves_the_old_run_aside_and_prunes_only_the_new_runs_checkpoints(
    old_run: Path, tmp_path: Path
) -> None:
    """The issue's scenario: a 4-step rerun after an 8-step run keeps its own step 2 and 4."""
    run = copy_of(old_run, tmp_path)
    before, old_id = snapshot(run), run_id(run)
    train(run, 4, "--overwrite")
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("run.old-")]
    assert len(moved) == 1 and snapshot(moved[0]) == before, "the old run is intact, whole, beside the new one"
    new_id = run_id(run)
    assert new_id != old_id
    assert checkpoint_ids(run) == {"step-000002": new_id, "step-000004": new_id}
    log = rows(run / "metrics.jsonl")
    assert [r["step"] for r in log] == [1, 2, 3, 4] and log[0]["run_id"] == new_id
    assert len(rows(run / "eval.jsonl")) == 1 and (run / "final" / "config.json").is_file()
    # the new run resumes as itself: its own step 4, its own id, no old rows appended
    train(run, 6, "--resume")
    assert [r["step"] for r in rows(run / "metrics.jsonl")] == [1, 2, 3, 4, 5, 6]
    assert checkpoint_ids(run) == {"step-000004": new_id, "step-000006": new_id}
    # nothing was lost: the old run resumes where it was moved to, as itself
    train(moved[0], 9, "--resume")
    assert [r["step"] for r in rows(moved[0] / "metrics.jsonl")] == list(range(1, 10))
    assert set(checkpoint_ids(moved[0]).values()) == {old_id}


@pytest.mark.slow
def test_resume_refuses_another_runs_checkpoints(old_run: Path, tmp_path: Path) -> None:
    run = copy_of(old_run, tmp_path)
    other = tmp_path / "other"
    train(other, 2)
    shutil.copytree(other / "checkpoints" / "step-000002", run / "checkpoints" / "step-000002")
    before = snapshot(run)
    done = train(run, 10, "--resume", ok=False)
    assert done.returncode == 2
    message = done.stderr.strip().splitlines()[-1]
    assert "step-000002" in message and run_id(other) in message and run_id(run) in message, message
    assert snapshot(run) == before


@pytest.mark.slow
def test_resume_with_fewer_steps_than_the_checkpoint_names_both(old_run: Path, tmp_path: Path) -> None:
    run = copy_of(old_run, tmp_path)
    before = snapshot(run)
    done = train(run, 5, "--resume", ok=False)
    assert done.returncode == 2
    message = done.stderr.strip().splitlines()[-1]
    assert "--steps 5" in message and "step 8" in message, message
    assert snapshot(run) == before
    assert "contradict" in train(run, 9, "--resume", "--overwrite", ok=False).stderr


def _kill_during_overwrite(old_run: Path, tmp_path: Path, ready: Any) -> tuple[Path, Path, dict[str, str], str]:
    run = copy_of(old_run, tmp_path)
    before, old_id = snapshot(run), run_id(run)
    child = subprocess.Popen(
        train_cmd(run, 400, "--overwrite"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV
    )
    deadline = time.monotonic() + 240
    try:
        while not ready(run):
            assert child.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.005)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("run.old-")]
    assert len(moved) == 1 and snapshot(moved[0]) == before, "the old run is whole in NAME.old-*"
    return run, moved[0], before, old_id


@pytest.mark.slow
def test_kill_9_right_after_the_move_leaves_the_old_run_whole_and_nothing_of_it_in_name(
    old_run: Path, tmp_path: Path
) -> None:
    run, _, _, old_id = _kill_during_overwrite(old_run, tmp_path, lambda r: not (r / "metrics.jsonl").exists())
    if run.exists():  # killed after the move: whatever is in NAME is the new run's
        assert not (run / "metrics.jsonl").exists() and not checkpoint_ids(run)
        assert not (run / "run.json").exists() or run_id(run) != old_id


@pytest.mark.slow
def test_kill_9_mid_new_run_leaves_two_whole_runs(old_run: Path, tmp_path: Path) -> None:
    run, _, _, old_id = _kill_during_overwrite(
        old_run, tmp_path, lambda r: (r / "checkpoints" / "step-000002" / "trainer_state.json").exists()
    )
    new_id = run_id(run)
    assert new_id != old_id
    assert set(checkpoint_ids(run).values()) == {new_id}
    log = rows(run / "metrics.jsonl")
    assert log[0]["run_id"] == new_id and all("run_id" not in r for r in log[1:])
    assert [r["step"] for r in log] == list(range(1, len(log) + 1)), "the new run's own steps only"
    train(run, 4, "--resume")
    assert [r["step"] for r in rows(run / "metrics.jsonl")] == [1, 2, 3, 4]


# -- the Python API ---------------------------------------------------------------------------------
def tiny(out: Path, **overrides: Any) -> GRPOConfig:
    base = dict(
        steps=2,
        prompts_per_step=2,
        num_generations=2,
        max_new_tokens=1,
        beta=0.0,
        env="grpo_envs/Digits-v0",
        output_dir=str(out),
        save_every=1,
        keep_checkpoints=1,
        eval_prompts=2,
        device="cpu",
    )
    base.update(overrides)
    return GRPOConfig(**base)


def test_the_python_api_keeps_the_same_rules(tmp_path: Path) -> None:
    out = tmp_path / "run"
    GRPOTrainer(tiny(out), show_progress=False).train()
    first = run_id(out)
    with pytest.raises(TrainerError, match=r"already holds a run.*--resume.*--overwrite"):
        GRPOTrainer(tiny(out), show_progress=False)
    with pytest.raises(TrainerError, match=r"--steps 1 is below the checkpoint's step 2"):
        GRPOTrainer(tiny(out, steps=1), resume=True, show_progress=False)
    resumed = GRPOTrainer(tiny(out, steps=3), resume=True, show_progress=False)
    assert resumed.step_count == 2 and resumed.run.run_id == first
    fresh = GRPOTrainer(tiny(out), overwrite=True, show_progress=False)
    assert fresh.step_count == 0 and fresh.run.run_id != first and run_id(out) == fresh.run.run_id
    assert [p.name.startswith("run.old-") for p in sorted(tmp_path.iterdir())] == [False, True]


def test_a_directory_with_only_a_run_file_is_not_a_run(tmp_path: Path) -> None:
    """A run that died before its first step wrote nothing to lose: the next run takes the directory."""
    out = tmp_path / "run"
    first = GRPOTrainer(tiny(out), show_progress=False).run.run_id
    second = GRPOTrainer(tiny(out), show_progress=False).run.run_id
    assert first != second and run_id(out) == second


def test_pruning_never_touches_another_runs_checkpoints(tmp_path: Path) -> None:
    trainer = GRPOTrainer(tiny(tmp_path / "run"), show_progress=False)
    root = tmp_path / "ckpt"
    parts = dict(
        model=trainer.model,
        tokenizer=trainer.tokenizer,
        optimizer=trainer.optimizer,
        scheduler=trainer.scheduler,
        config={},
        extra={},
        keep=2,
    )
    for step in (6, 8):
        save_checkpoint(root, step, run_id="old", **parts)
    for step in (1, 2, 3, 4):
        save_checkpoint(root, step, run_id="new", **parts)
    ids = {p.name: json.loads((p / "trainer_state.json").read_text())["run_id"] for p in checkpoints(root)}
    assert ids == {"step-000003": "new", "step-000004": "new", "step-000006": "old", "step-000008": "old"}
    with pytest.raises(TrainerError, match="step-000006 belongs to run old"):
        save_checkpoint(root, 6, run_id="new", **parts)
    assert json.loads((root / "step-000006" / "trainer_state.json").read_text())["run_id"] == "old"
