"""The samples an audit reads: eval's ``samples.jsonl``, the trainer's ``rollouts.jsonl``, or any
JSONL of prompt / gold / completion, as `AuditRow` values with a key of their own; and `Grade`,
one grader's grade of one sample as the audit stores it. Eval's and the trainer's rows are
`grpo_envs.RolloutRecord` rows: their stored verdict is read as one."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grpo_envs import RolloutRecord
from trainer.errors import TrainerError
from verifiers.result import STATUS_CORRECT, VerifyResult

__all__ = ["AuditRow", "Grade", "read_samples"]

GOLD_FIELDS = ("gold", "reference", "answer")
COMPLETION_FIELDS = ("completion", "response", "output")
PROMPT_FIELDS = ("prompt", "question", "problem")
TASK_FIELDS = ("task_id", "source", "task")


@dataclass(frozen=True)
class Grade:
    """One grader's grade of one sample: ``correct`` None is "not judged" (a timeout, an error,
    a judge that failed), never a disagreement."""

    status: str
    correct: bool | None
    reason: str
    extracted: str | None = None

    @classmethod
    def of(cls, result: VerifyResult) -> Grade:
        """The grade a verifier's result gives."""
        return cls(result.status, result.correct, result.reason, result.extracted)

    @classmethod
    def stored(cls, row: Mapping[str, Any]) -> Grade:
        """The verdict stored in a row: a `RolloutRecord`'s (eval's and the trainer's rows, old or
        new); a status of another tool's stays as it is, not judged."""
        try:
            return cls.of(RolloutRecord.from_json(row).judgement.result)
        except (ValueError, TypeError):  # not one of our statuses, or a field of another shape
            status, extracted = str(row.get("status")), row.get("extracted")
            reason = str(row.get("reason") or "")
            return cls(status, STATUS_CORRECT.get(status), reason, None if extracted is None else str(extracted))

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "correct": self.correct, "reason": self.reason, "extracted": self.extracted}


@dataclass(frozen=True)
class AuditRow:
    """One stored sample: its key (``id``, else eval's task seed and sample number, else its line),
    the gold answer, the completion, the prompt and task when stored, the verdict stored with it
    (eval and the trainer store one) and a human ``label`` (True: the answer is right) when given;
    ``overlong``: the overlong shaping's part of the stored reward, when the run shaped it (the
    stored verdict is before shaping)."""

    key: str
    gold: str | None
    completion: str
    prompt: str | None = None
    task: str = ""
    stored: Grade | None = None
    label: bool | None = None
    overlong: float | None = None  # the overlong penalty in the stored reward (a shaped run's rows)


def read_samples(path: str | Path) -> list[AuditRow]:
    """Every row of the JSONL file ``path`` (a torn last line is left out); raises `TrainerError`
    naming the line and the field when a row has no completion.

    Examples:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
        >>> _ = p.write_text('{"gold": "4", "completion": "2 + 2 = 4"}\\n')
        >>> read_samples(p)[0].key, read_samples(p)[0].gold
        ('line-1', '4')
    """
    path = Path(path)
    if not path.is_file():
        raise TrainerError(f"{path} not found: pass a JSONL of samples (eval's samples.jsonl, rollouts.jsonl, ...)")
    lines = path.read_text().splitlines()
    rows: list[AuditRow] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            if n == len(lines):
                break  # a torn last line: a run still writing, or one that was killed
            raise TrainerError(f"{path}:{n} is not JSON; every line must be one sample") from None
        rows.append(_row(data, n, path))
    _unique(rows)
    return rows


def _first(data: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    return next((data[name] for name in names if data.get(name) is not None), None)


def _row(data: Any, n: int, path: Path) -> AuditRow:
    if not isinstance(data, dict):
        raise TrainerError(f"{path}:{n} is not a JSON object")
    completion = _first(data, COMPLETION_FIELDS)
    if not isinstance(completion, str):
        names = ", ".join(COMPLETION_FIELDS)
        raise TrainerError(f"{path}:{n} has no completion: each row needs one of the fields {names}")
    gold = _first(data, GOLD_FIELDS)
    prompt = _first(data, PROMPT_FIELDS)
    label = data.get("label")
    return AuditRow(
        key=_key(data, n),
        gold=None if gold is None else str(gold),
        completion=completion,
        prompt=None if prompt is None else str(prompt),
        task=str(_first(data, TASK_FIELDS) or ""),
        stored=Grade.stored(data) if isinstance(data.get("status"), str) else None,
        label=label if isinstance(label, bool) else None,
        overlong=float(data["overlong"]) if isinstance(data.get("overlong"), int | float) else None,
    )


def _key(data: Mapping[str, Any], n: int) -> str:
    if data.get("id") is not None:
        return str(data["id"])
    if data.get("task_seed") is not None and data.get("sample") is not None:
        step = f"{data['step']}/" if data.get("step") is not None else ""
        return f"{step}{data['task_seed']}/{data['sample']}"
    return f"line-{n}"


def _unique(rows: list[AuditRow]) -> None:
    seen: dict[str, int] = {}
    for row in rows:
        seen[row.key] = seen.get(row.key, 0) + 1
    twice = [key for key, count in seen.items() if count > 1]
    if twice:
        raise TrainerError(
            f"{len(twice)} keys occur more than once (e.g. {twice[0]!r}): an audit resumes by key, so each sample "
            "needs its own (an 'id' field, or leave 'id' out to key rows by their line)"
        )
