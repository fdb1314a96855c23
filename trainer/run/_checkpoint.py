"""Checkpoints written atomically (a temp dir renamed into place), kept K deep, resumable."""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from trainer.errors import TrainerError

__all__ = ["checkpoints", "read_checkpoint", "restore_rng", "save_checkpoint"]

PREFIX = "step-"


def _rng_state() -> dict[str, Any]:
    state: dict[str, Any] = {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_checkpoint(
    root: Path,
    step: int,
    *,
    model: Any,
    tokenizer: Any,
    optimizer: Any,
    scheduler: Any,
    config: dict[str, Any],
    extra: dict[str, Any],
    keep: int,
    run_id: str | None,
    weights: dict[str, Any] | None = None,
    optimizer_state: Any = None,
    extra_files: Callable[[Path], None] | None = None,
) -> Path:
    """Write ``root/step-NNNNNN`` atomically and keep the newest ``keep`` checkpoints of run ``run_id``
    (checkpoints of other runs are never pruned nor replaced).

    ``weights`` / ``optimizer_state`` replace ``model.state_dict()`` / ``optimizer.state_dict()``
    (gathered full states of a sharded model). A peft model saves its adapter only.
    ``extra_files(folder)`` writes more into the checkpoint's folder before it is committed.
    """
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"{PREFIX}{step:06d}"
    if final.exists() and _run_of(final) != run_id:
        raise TrainerError(
            f"{final} belongs to run {_run_of(final)}, not to this run ({run_id}); "
            "it is left as it is: move it out of the way to save this step"
        )
    tmp = root / f".tmp-{PREFIX}{step:06d}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    model.save_pretrained(tmp / "model", safe_serialization=True, state_dict=weights)
    tokenizer.save_pretrained(tmp / "model")
    optim = optimizer_state if optimizer_state is not None else optimizer.state_dict()
    torch.save({"optimizer": optim, "scheduler": scheduler.state_dict(), "rng": _rng_state()}, tmp / "state.pt")
    (tmp / "trainer_state.json").write_text(
        json.dumps({"step": step, "run_id": run_id, "config": config, **extra}, indent=1)
    )
    if extra_files is not None:
        extra_files(tmp)
    for path in tmp.rglob("*"):
        if path.is_file():
            with open(path, "rb") as f:
                os.fsync(f.fileno())
    if final.exists():
        shutil.rmtree(final)
    os.rename(tmp, final)  # atomic: a reader sees the whole checkpoint or none
    _fsync_dir(root)
    for old in [p for p in checkpoints(root) if _run_of(p) == run_id][:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    for stale in root.glob(f".tmp-{PREFIX}*"):
        shutil.rmtree(stale, ignore_errors=True)  # left by a killed run: never loaded
    return final


def _step_of(path: Path) -> int:
    try:
        return int(path.name[len(PREFIX) :])
    except ValueError:
        return -1


def checkpoints(root: Path) -> list[Path]:
    """The complete checkpoints in ``root`` (those with a ``trainer_state.json``), oldest step first."""
    found = [p for p in root.glob(f"{PREFIX}*") if _step_of(p) >= 0 and (p / "trainer_state.json").is_file()]
    return sorted(found, key=_step_of)


def _run_of(path: Path) -> str | None:
    try:
        value = json.loads((path / "trainer_state.json").read_text()).get("run_id")
    except (OSError, ValueError, AttributeError):
        return "(unreadable)"
    return None if value is None else str(value)


def read_checkpoint(path: Path) -> dict[str, Any]:
    """The checkpoint's parts, loaded but not applied: ``weights`` (full model or adapter),
    ``state`` (optimizer, scheduler, rng) and ``trainer_state`` (trainer_state.json)."""
    from safetensors.torch import load_file

    weights: dict[str, Any] = {}
    for file in sorted((path / "model").glob("*.safetensors")):
        weights.update(load_file(file))
    return {
        "weights": weights,
        "state": torch.load(path / "state.pt", weights_only=False),
        "trainer_state": dict(json.loads((path / "trainer_state.json").read_text())),
    }


def restore_rng(state: dict[str, Any]) -> None:
    """Set the Python, numpy and torch generators from a checkpoint's ``state["rng"]``."""
    _set_rng_state(state["rng"])
