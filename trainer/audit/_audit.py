"""`audit`: stored samples re-judged by a second opinion, the disagreements grouped by pattern.

The first opinion is the verdict stored with each sample (eval's ``samples.jsonl``, the trainer's
``rollouts.jsonl``), else our math verifier now; the second is an LLM judge, our verifier with
another `MathConfig`, or Math-Verify (`_opinions.second`). ``rescore=True`` compares the stored
verdicts with the current verifier: what an upgrade changed. Each judged chunk is appended to
``progress.jsonl`` in ``out`` (keyed by sample) at once, so a killed audit resumes where it was;
a sample a grader could not judge is judged again on resume, and is "not judged" in the report,
never a disagreement.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainer.audit._opinions import Opinion, OursOpinion, StoredOpinion, second
from trainer.audit._result import AuditReport
from trainer.audit._rows import AuditRow, Grade, read_samples
from trainer.audit._signature import group
from trainer.errors import TrainerError

if TYPE_CHECKING:
    from verifiers.judges import Judge

__all__ = ["AuditReport", "audit"]

log = logging.getLogger("trainer")
CHUNK = 32


def audit(
    samples: str | Path,
    *,
    out: str | Path | None = None,
    judge: Judge | None = None,
    config: str | Mapping[str, Any] | None = None,
    rescore: bool = False,
    restart: bool = False,
    show_progress: bool = True,
) -> AuditReport:
    """Re-judge the samples in the JSONL file ``samples`` with a second opinion and group where the
    verdicts disagree. ``judge``: an LLM judge (`verifiers.judges.LLMJudge`, or any
    `verifiers.judges.Judge`); ``config``: our math verifier with these `MathConfig` fields (a
    mapping, a JSON object or a .json/.toml file); with neither, Math-Verify (installed
    separately). ``rescore``: the stored verdicts against the current verifier (with ``config``
    when given). ``out`` (default: ``audit/`` beside ``samples``) gets ``progress.jsonl``
    (resumed unless ``restart``), ``report.jsonl``, ``summary.json``, ``groups.png`` (with
    matplotlib) and ``audit.html``.

    Examples:
        >>> r = audit("runs/eval/math/samples.jsonl", config={"last_number_fallback": True})  # doctest: +SKIP
        >>> print(r.table())  # doctest: +SKIP
    """
    from trainer.audit._report import write

    rows = read_samples(samples)
    opinion, said = second(judge=judge, config=config, rescore=rescore)
    first = _first(rows, rescore)
    log.info("%s; first opinion: %s", said, first.name)
    folder = Path(out) if out is not None else Path(samples).parent / "audit"
    folder.mkdir(parents=True, exist_ok=True)
    verdicts = _judged(rows, first, opinion, folder / "progress.jsonl", restart, show_progress)
    items = [(row, *verdicts[row.key]) for row in rows]
    report = _report(items, first.name, opinion.name, folder, rescore)
    failed = [v2.reason for _, _, v2 in items if v2.correct is None]
    report = dataclasses.replace(report, second_failure=failed[0] if failed else "", overlong=_overlong(rows))
    write(report, items, folder)
    return report


def _overlong(rows: Sequence[AuditRow]) -> dict[str, float]:
    """The overlong shaping the rows carry (eval's or the trainer's ``sampling.overlong``), or {}."""
    shaped = [row.overlong for row in rows if row.overlong is not None]
    if not shaped:
        return {}
    return {"samples": len(shaped), "penalized": sum(v < 0 for v in shaped), "mean": statistics.fmean(shaped)}


def _first(rows: Sequence[AuditRow], rescore: bool) -> Opinion:
    stored = [row.stored is not None for row in rows]
    if all(stored) and rows:
        return StoredOpinion()
    if rescore:
        raise TrainerError(
            "--rescore compares the verdicts stored with the samples to the current verifier, but "
            f"{stored.count(False)} of {len(rows)} rows have no stored verdict (a 'status' field)"
        )
    return OursOpinion()


Pair = tuple[Grade, Grade]


def _judged(
    rows: Sequence[AuditRow], first: Opinion, opinion: Opinion, path: Path, restart: bool, show_progress: bool
) -> dict[str, Pair]:
    """Both verdicts of every row: those in ``path`` kept (unless ``restart``), the rest judged in
    chunks, each chunk appended to ``path`` as it is judged."""
    from tqdm.auto import tqdm

    header = {"audit": 1, "first": first.name, "second": opinion.name}
    done = {} if restart else _progress(path, header)
    if not done:
        path.write_text(json.dumps(header) + "\n")
    elif not path.read_bytes().endswith(b"\n"):  # a line torn by a kill: the next one starts on its own
        with open(path, "a") as f:
            f.write("\n")
    again = not isinstance(first, StoredOpinion)  # a stored verdict not judged stays so: ask only the second again
    todo = [row for row in rows if not _settled(done.get(row.key), again)]
    if done:
        log.info("resuming %s: %d of %d samples already judged", path, len(rows) - len(todo), len(rows))
    with open(path, "a") as sink, tqdm(total=len(todo), unit="sample", desc="audit", disable=not show_progress) as bar:
        for start in range(0, len(todo), CHUNK):
            chunk = todo[start : start + CHUNK]
            pairs = list(zip(first.grade(chunk), opinion.grade(chunk), strict=True))
            lines = [
                {"key": row.key, "first": a.to_json(), "second": b.to_json()}
                for row, (a, b) in zip(chunk, pairs, strict=True)
            ]
            sink.write("".join(json.dumps(line) + "\n" for line in lines))
            sink.flush()
            done.update((row.key, pair) for row, pair in zip(chunk, pairs, strict=True))
            bar.update(len(chunk))
    return done


def _settled(pair: Pair | None, first_again: bool) -> bool:
    """Whether a sample's verdicts stand: both judged, or the second when the first is not asked again."""
    return pair is not None and pair[1].correct is not None and (pair[0].correct is not None or not first_again)


def _progress(path: Path, header: dict[str, Any]) -> dict[str, Pair]:
    """The verdicts already in ``path`` by key (the last line of a key wins; a torn line is left
    out); raises `TrainerError` when it is another audit's."""
    if not path.exists():
        return {}
    lines = path.read_text().splitlines()
    try:
        found = json.loads(lines[0]) if lines else None
    except ValueError:
        found = None
    if found != header:
        raise TrainerError(
            f"{path} holds another audit ({found}), not {header['first']} vs {header['second']}: pass --restart "
            "to start this one over, or another --out"
        )
    done: dict[str, Pair] = {}
    for line in lines[1:]:
        try:
            item = json.loads(line)
            done[str(item["key"])] = (Grade(**item["first"]), Grade(**item["second"]))
        except (ValueError, KeyError, TypeError):
            continue
    return done


def _report(
    items: Sequence[tuple[AuditRow, Grade, Grade]], first: str, second_name: str, folder: Path, rescore: bool
) -> AuditReport:
    from trainer.audit._report import examples

    not_judged: Counter[str] = Counter()
    for _, a, b in items:
        not_judged["first"] += a.correct is None
        not_judged["second"] += b.correct is None
    agree = sum(a.correct is not None and a.correct == b.correct for _, a, b in items)
    groups = tuple(group(items))
    by_key = {row.key: (row, a, b) for row, a, b in items}
    shown = {g.signature.label(): examples(g, by_key) for g in groups}
    return AuditReport(first, second_name, len(items), agree, dict(not_judged), groups, folder, rescore, shown)
