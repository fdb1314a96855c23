"""The run directory's rules: a run is never overwritten, and a run only ever sees its own checkpoints.

- A fresh run refuses an ``output_dir`` that already holds a run (``metrics.jsonl``,
  ``perf.jsonl``, ``eval.jsonl``, ``final/`` or a ``checkpoints/step-*``), unless it is told to
  ``resume`` or to ``overwrite``. ``overwrite`` renames the old directory to
  ``NAME.old-<timestamp>`` (one atomic rename) before anything of the new run is written, so after
  a crash at any moment either the old run or the new one is in ``NAME``, never a mix.
- Each run has an id, written to ``run.json`` when the run starts, to the first row of
  ``metrics.jsonl`` and to every checkpoint's ``trainer_state.json``. Pruning and resuming only
  consider checkpoints that carry the run's id; resuming a directory that holds another run's
  checkpoints is an error.
- Resuming needs the same config (only ``steps`` may change, the directory may have moved, and
  where verdicts and batches are made: ``verifier_executor``, ``async_workers_on``) and ``steps``
  at or above the checkpoint's step.
- A fresh run refused before it starts (a bad env, model or setting; `released`) takes back what
  it claimed: its ``run.json`` (and the folder, when that is then empty) is removed, and a run
  ``overwrite`` moved aside is moved back.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainer.errors import TrainerError
from trainer.run._checkpoint import checkpoints

__all__ = ["RunPlan", "holds_a_run", "open_run", "open_run_ranked", "released"]

log = logging.getLogger("trainer")

RUN_FILE = "run.json"
RUN_PARTS = ("metrics.jsonl", "perf.jsonl", "eval.jsonl", "final")


@dataclass(frozen=True)
class RunPlan:
    """What ``open_run`` decided: the run's id and, when resuming, the checkpoint to load."""

    run_id: str | None
    checkpoint: Path | None = None
    moved_to: Path | None = None


def holds_a_run(root: Path) -> bool:
    """Whether ``root`` holds what a run writes: metrics, an eval log, a final model or checkpoints."""
    return any((root / part).exists() for part in RUN_PARTS) or bool(checkpoints(root / "checkpoints"))


def _run_id(root: Path) -> str | None:
    """The directory's run id: ``run.json``, else the first row of ``metrics.jsonl``; None for a
    run written before run ids existed."""
    try:
        return str(json.loads((root / RUN_FILE).read_text())["run_id"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        with open(root / "metrics.jsonl") as f:
            first = f.readline()
        value = json.loads(first).get("run_id") if first.strip() else None
        return str(value) if value is not None else None
    except (OSError, ValueError, AttributeError):
        return None


def _write_run_file(root: Path, run_id: str, config: dict[str, Any]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".{RUN_FILE}.{os.getpid()}"
    body = {"run_id": run_id, "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "config": config}
    with open(tmp, "w") as f:
        f.write(json.dumps(body, indent=1))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, root / RUN_FILE)


def _move_aside(root: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = root.with_name(f"{root.name}.old-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = root.with_name(f"{root.name}.old-{stamp}-{n}")
    try:
        os.rename(root, target)  # atomic: NAME holds the old run or nothing
    except OSError as exc:
        raise TrainerError(
            f"--overwrite: could not move {root} aside to {target}: {exc}; "
            "move or delete it yourself, or pick another --output-dir"
        ) from exc
    return target


def _refuse_used(root: Path) -> TrainerError:
    return TrainerError(
        f"{root} already holds a run (metrics or checkpoints); pass --resume to continue it, "
        f"--overwrite to move it aside (to {root.name}.old-<timestamp>) and start afresh, "
        "or choose another --output-dir (Python: GRPOTrainer(..., resume=True) or overwrite=True)"
    )


def open_run(root: Path, *, config: dict[str, Any], resume: bool = False, overwrite: bool = False) -> RunPlan:
    """Check ``root`` against the rules above and claim it: a fresh run gets a new id (and the old
    run is moved aside first when ``overwrite``); a resumed run gets its id and its newest
    checkpoint. Raises `TrainerError` naming the directory and the way out."""
    if resume and overwrite:
        raise TrainerError("--resume and --overwrite contradict each other: pass one of them")
    if root.exists() and not root.is_dir():
        raise TrainerError(f"output_dir {root} is a file, not a directory; pass another --output-dir")
    if resume:
        return _plan_resume(root, config)
    moved = None
    if root.exists() and holds_a_run(root):
        if not overwrite:
            raise _refuse_used(root)
        moved = _move_aside(root)
    run_id = uuid.uuid4().hex[:16]
    _write_run_file(root, run_id, config)
    return RunPlan(run_id=run_id, moved_to=moved)


def _plan_resume(root: Path, config: dict[str, Any]) -> RunPlan:
    found = checkpoints(root / "checkpoints")
    if not found:
        raise TrainerError(f"--resume: no checkpoint in {root / 'checkpoints'}; start the run without --resume")
    states = {path: json.loads((path / "trainer_state.json").read_text()) for path in found}
    run_id = _run_id(root)
    if run_id is None:  # no run.json (an older run, or lost): the checkpoints must agree on one run
        ids = {s.get("run_id") for s in states.values()}
        if len(ids) > 1:
            raise TrainerError(
                f"--resume: {root / 'checkpoints'} holds checkpoints of {len(ids)} different runs "
                f"({', '.join(sorted(map(str, ids)))}); move the ones you do not want out"
            )
        run_id = ids.pop()
    foreign = [p for p, s in states.items() if s.get("run_id") != run_id]
    if foreign:
        other = states[foreign[-1]].get("run_id")
        raise TrainerError(
            f"--resume: {foreign[-1]} belongs to run {other}, not to this directory's run {run_id} "
            f"({root / RUN_FILE}); move it out of {root / 'checkpoints'}, or start afresh with --overwrite"
        )
    latest = found[-1]
    saved = states[latest]
    before, now = _as_today(json.loads(json.dumps(saved["config"]))), json.loads(json.dumps(config))
    before.pop("steps", None)
    wanted_steps = now.pop("steps", None)
    before.pop("output_dir", None), now.pop("output_dir", None)  # a run directory may be moved
    before.pop("verifier_executor", None), now.pop("verifier_executor", None)  # where verdicts come from, not what
    before.pop("async_workers_on", None), now.pop("async_workers_on", None)  # where batches are sampled, not what
    for key in _new_defaults(before, now):  # a field added since the checkpoint, at its default: as before
        now.pop(key)
    if before != now:
        changed = sorted(k for k in set(now) | set(before) if before.get(k) != now.get(k))
        raise TrainerError(
            f"--resume: {latest} was written with another config ({', '.join(changed)} differ); "
            "resume with the same one (only steps may change)"
        )
    step = int(saved["step"])
    if wanted_steps is not None and int(wanted_steps) < step:
        raise TrainerError(
            f"--resume: --steps {wanted_steps} is below the checkpoint's step {step} ({latest}); "
            f"pass --steps {step} or more"
        )
    return RunPlan(run_id=run_id, checkpoint=latest)


def _as_today(saved: dict[str, Any]) -> dict[str, Any]:
    """A saved config table as this version writes it: read back through `GRPOConfig.from_dict`
    (a run written before the typed parts, ``lora = {"r": 4}``, reads as ``{"r": 4, "alpha": 16,
    ...}``; fields added since take their defaults). One that no longer reads is compared as saved."""
    from trainer.config import GRPOConfig

    try:
        today: dict[str, Any] = json.loads(json.dumps(GRPOConfig.from_dict(saved).to_dict()))
        return today
    except (TrainerError, TypeError, ValueError):
        return saved


def _new_defaults(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The fields of ``now`` that the saved config lacks and that hold their default (``sampling``,
    added after runs were written): a run written before they existed still resumes."""
    from trainer.config import GRPOConfig

    defaults = json.loads(json.dumps(GRPOConfig().to_dict()))
    return [k for k in now if k not in before and k in defaults and now[k] == defaults[k]]


def open_run_ranked(dist: Any, root: Path, config: dict[str, Any], *, resume: bool, overwrite: bool) -> RunPlan:
    """`open_run` on rank 0 of ``dist`` (a `trainer._distributed.Dist`); every rank gets its verdict
    (the plan, or the same `TrainerError`)."""
    verdict: RunPlan | TrainerError | None = None
    if dist.main:
        try:
            verdict = open_run(root, config=config, resume=resume, overwrite=overwrite)
        except TrainerError as exc:
            verdict = exc
    verdict = dist.gather(verdict)[0]
    if isinstance(verdict, TrainerError):
        raise verdict
    assert isinstance(verdict, RunPlan)
    if verdict.moved_to is not None:
        log.info("--overwrite: the old run in %s was moved to %s", root, verdict.moved_to)
    return verdict


@contextmanager
def released(root: Path, plan: RunPlan, main: bool = True) -> Iterator[None]:
    """Around a run's set-up: when it raises, a fresh run's claim on ``root`` is taken back (see the
    module's rules); a resumed run's directory is left as it is."""
    try:
        yield
    except BaseException:
        if main and plan.checkpoint is None and _run_id(root) == plan.run_id:
            (root / RUN_FILE).unlink(missing_ok=True)
            try:
                root.rmdir()  # only when nothing else is in it
            except OSError:
                pass
            else:
                if plan.moved_to is not None:
                    os.rename(plan.moved_to, root)
                    log.info("the old run is back in %s", root)
        raise
