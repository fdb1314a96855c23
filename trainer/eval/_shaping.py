"""The trainer's reward shaping in an evaluation: DAPO's soft overlong punishment (``sampling.overlong``,
`trainer.sampling._shaping`) applied to eval's samples as the run that trained the model applied it.

An eval of a run's model (its ``final/`` folder or a checkpoint folder) reads the run's ``[sampling]``
table (``run.json``, or the checkpoint's ``trainer_state.json``) and its ``max_new_tokens``, so the
lengths ``(L_max, L_cache)`` are the training run's, not eval's ``--max-new-tokens``; the
``--sampling-overlong*`` flags (keys of `trainer.sampling._config.SamplingConfig`) go over it (``--sampling-overlong
false`` turns it off; on a model that is no run, ``--sampling-overlong true`` turns it on with lengths
from eval's ``--max-new-tokens``). The penalty is a reward part: each sample's ``reward`` is shaped and
its ``overlong`` stored beside it; ``correct``, the status and pass@k stay the verdict's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from trainer.errors import TrainerError
from trainer.eval._backends import Backend
from trainer.sampling._config import SamplingConfig
from trainer.sampling._shaping import shape_overlong

__all__ = ["OVERLONG_KEYS", "overlong_lengths", "run_config", "shaped"]

OVERLONG_KEYS = ("overlong", "overlong_max", "overlong_buffer")
"""The `SamplingConfig` settings an evaluation reads (the rest choose training groups)."""


def run_config(model: Any) -> dict[str, Any] | None:
    """The config of the training run ``model`` comes from (a run's ``final/`` or a checkpoint folder),
    or None (a hub name, "demo", a folder no run wrote)."""
    if not isinstance(model, str | Path) or not Path(model).is_dir():
        return None
    folder = Path(model)
    for path, key in ((folder / "trainer_state.json", "config"), (folder.parent / "run.json", "config")):
        if path.is_file():
            try:
                found = json.loads(path.read_text()).get(key)
            except (ValueError, AttributeError):
                continue
            if isinstance(found, dict):
                return found
    return None


def overlong_lengths(
    model: Any, max_new_tokens: int, settings: Mapping[str, Any] | None = None
) -> tuple[int, int] | None:
    """``(L_max, L_cache)`` of the overlong shaping an eval of ``model`` applies, or None: the run's
    sampling settings (when ``model`` is a run's folder) with ``settings`` over them.

    Examples:
        >>> overlong_lengths("demo", 64), overlong_lengths("demo", 64, {"overlong": True})
        (None, (64, 12))
    """
    extra = sorted(set(settings or {}) - set(OVERLONG_KEYS))
    if extra:
        raise TrainerError(f"eval shapes rewards with {', '.join(OVERLONG_KEYS)} only, not {extra[0]!r}")
    run = run_config(model)
    table = {k: v for k, v in dict((run or {}).get("sampling") or {}).items() if k in OVERLONG_KEYS}
    cfg = SamplingConfig.from_dict({**table, **dict(settings or {})})
    if not cfg.overlong:
        return None
    return cfg.overlong_lengths(int(run.get("max_new_tokens", max_new_tokens)) if run else max_new_tokens)


def shaped(engine: Backend, lengths: tuple[int, int] | None) -> Backend:
    """``engine`` whose rollouts come back shaped by the overlong penalty at ``lengths`` (L_max,
    L_cache), as the trainer shapes them: a reward part of each judged sample's last verdict."""
    if lengths is None:
        return engine

    def run(envs: list[Any], seeds: Any, make_env: Any, seed: int) -> list[list[Any]]:
        groups = engine.run(envs, seeds, make_env, seed)
        shape_overlong(groups, max_len=lengths[0], buffer=lengths[1])
        return groups

    return replace(engine, run=run, overlong=lengths)
