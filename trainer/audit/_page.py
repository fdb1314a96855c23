"""``audit.html``: an audit and its samples as one self-contained page (no server, no network:
the data is a JSON block inside it, rendered by plain JavaScript 25 samples at a time). The
groups with their counts; filters by verdict, pattern, task and each side's status (kept in the
URL's ``#`` part, so a filtered view is a link); each sample's prompt, completion (its thinking
folded, split by `verifiers.structure`) and both verdicts with their reasons."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from trainer.audit._result import AuditReport
from trainer.audit._rows import AuditRow, Grade
from verifiers.structure import read_completion

__all__ = ["page_data", "write_page"]


def _sample(row: AuditRow, a: Grade, b: Grade, group: int) -> dict[str, Any]:
    read = read_completion(row.completion)
    thinking: str | None
    final: str | None
    if read.format is None:
        thinking, final = None, row.completion
    else:
        thinking, final = read.thinking or "", read.final
    if a.correct is None or b.correct is None:
        verdict = "not judged"
    else:
        verdict = "agree" if a.correct == b.correct else "disagree"
    return {
        "k": row.key,
        "t": row.task,
        "p": row.prompt,
        "g": row.gold,
        "l": row.label,
        "fmt": read.format,
        "th": thinking,
        "f": final,
        "a": a.to_json(),
        "b": b.to_json(),
        "v": verdict,
        "grp": group,
    }


def page_data(report: AuditReport, items: Sequence[tuple[AuditRow, Grade, Grade]]) -> dict[str, Any]:
    """What the page shows, as the JSON it embeds."""
    where = {key: k for k, g in enumerate(report.groups) for key in g.keys}
    groups = [
        {
            "count": g.count,
            "shape": g.signature.shape_text(),
            "first": g.signature.first,
            "second": g.signature.second,
            "label": f"{g.label_sides_with[0]} / {g.label_sides_with[1]}" if sum(g.label_sides_with) else "",
        }
        for g in report.groups
    ]
    verb = "rescore" if report.rescore else "audit"
    return {
        "title": f"{verb}: {report.first} vs {report.second}",
        "first": report.first,
        "second": report.second,
        "rescore": report.rescore,
        "totals": {
            "samples": report.samples,
            "agree": report.agree,
            "disagree": report.disagreements,
            "not_judged_first": report.not_judged.get("first", 0),
            "not_judged_second": report.not_judged.get("second", 0),
        },
        "groups": groups,
        "samples": [_sample(row, a, b, where.get(row.key, -1)) for row, a, b in items],
    }


def write_page(report: AuditReport, items: Sequence[tuple[AuditRow, Grade, Grade]], path: Path) -> Path:
    """Write the page to ``path``; it opens from disk in any browser."""
    data = page_data(report, items)
    # "<" never ends the JSON block early ("</script>" in a completion) written as \u003c, JSON's own escape.
    embedded = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    template = resources.files("trainer.audit").joinpath("audit_page.html").read_text(encoding="utf-8")
    text = template.replace("__TITLE__", html.escape(data["title"])).replace("__DATA__", embedded)
    path.write_text(text, encoding="utf-8")
    return path
