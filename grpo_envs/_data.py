"""Loading task rows: JSONL files, Hugging Face ``datasets`` tables, or lists of dicts."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from grpo_envs._task import stable_digest
from grpo_envs.errors import GrpoEnvsError

__all__ = ["DATA_DIR", "load_rows", "split_rows"]

DATA_DIR = Path(__file__).parent / "data"


def load_rows(
    *,
    path: str | Path | None = None,
    rows: Iterable[Mapping[str, Any]] | None = None,
    hf_name: str | None = None,
    hf_config: str | None = None,
    hf_split: str = "train",
    default: str | None = None,
    required: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Rows from exactly one source (or the shipped sample ``default``); checks ``required`` keys."""
    sources = [s for s in (path, rows, hf_name) if s is not None]
    if len(sources) > 1:
        raise GrpoEnvsError("pass only one of path=, rows= or hf_name=")
    if rows is not None:
        out = [dict(r) for r in rows]
    elif hf_name is not None:
        try:
            import datasets
        except ImportError:
            raise GrpoEnvsError("hf_name= needs the `datasets` package: pip install 'grpo-envs[hf]'") from None
        out = [dict(r) for r in datasets.load_dataset(hf_name, hf_config, split=hf_split)]
    else:
        file = Path(path) if path is not None else DATA_DIR / str(default)
        if not file.is_file():
            raise GrpoEnvsError(f"no such data file: {file}")
        out = []
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise GrpoEnvsError(f"{file}:{number}: not JSON ({exc})") from None
    if not out:
        raise GrpoEnvsError("the data source has no rows")
    missing = [k for k in required if k not in out[0]]
    if missing:
        raise GrpoEnvsError(
            f"rows lack the column(s) {missing}; they have {sorted(out[0])}. "
            "Set the env's column-name arguments to match your data."
        )
    return out


def split_rows(rows: list[dict[str, Any]], split: str, key: str, eval_fraction: float) -> list[dict[str, Any]]:
    """The rows of ``split``: a stable partition by the digest of ``row[key]``.

    With ``eval_fraction == 0`` every row is in both splits (pass separate data per split).
    """
    if not 0 <= eval_fraction < 1:
        raise GrpoEnvsError(f"eval_fraction must be in [0, 1), got {eval_fraction}")
    if eval_fraction == 0:
        return rows
    cut = int(eval_fraction * 10_000)
    chosen = [r for r in rows if (int(stable_digest("split", str(r[key]))[:8], 16) % 10_000 < cut) == (split == "eval")]
    if not chosen:
        raise GrpoEnvsError(f"no rows fall in the {split!r} split; lower eval_fraction or add data")
    return chosen
