"""A train/eval split of repair tasks that keeps near-duplicates on one side.

Tasks made from one file (several sites of one function, neighbouring functions, a combination of
two of them) are near-duplicates: a model that trained on one has half-seen the others. The split
therefore goes by each task's ``split_key`` in ``task.toml`` (the mutated file): every task of a
key lands on the same side, and the keys, not the tasks, are drawn for eval, by a hash of the
seed and the key (stable when tasks are added: a key never changes sides)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from pathlib import Path

import tomllib


def split_key(task: Path) -> str:
    """A task folder's split key (``[metadata] split_key`` of its ``task.toml``; the folder's name
    when it has none)."""
    try:
        meta = tomllib.loads((task / "task.toml").read_text()).get("metadata", {})
    except (OSError, tomllib.TOMLDecodeError):
        meta = {}
    return str(meta.get("split_key") or task.name)


def split_task_folders(
    tasks: Iterable[str | Path], *, eval_share: float = 0.2, seed: int = 0
) -> tuple[list[Path], list[Path]]:
    """The task folders as ``(train, eval)``: about ``eval_share`` of the split keys (at least one,
    and never all of them when there are two or more) go to eval with all their tasks.

    >>> split_task_folders([], eval_share=0.5)
    ([], [])
    """
    key_of = {Path(t): split_key(Path(t)) for t in tasks}
    keys = sorted(set(key_of.values()), key=lambda k: hashlib.sha256(f"{seed}:{k}".encode()).hexdigest())
    if len(keys) < 2:
        return list(key_of), []
    held = set(keys[: min(len(keys) - 1, max(1, math.ceil(eval_share * len(keys))))])
    return [t for t, k in key_of.items() if k not in held], [t for t, k in key_of.items() if k in held]
