"""An audit's report as files (its terminal table is `_audit_result`'s): ``report.jsonl`` (one
group a line, most frequent first, with two short examples each: a person reads it with
``less``), ``summary.json``, and ``groups.png`` (a bar chart of the groups, with matplotlib; the
groups and counts are also in the PNG's ``Description`` text). The page (`_page`) is written
beside them."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from trainer.audit._result import AuditReport
from trainer.audit._rows import AuditRow, Grade
from trainer.audit._signature import Group

__all__ = ["examples", "plot_groups", "write"]

EXAMPLES = 2
TAIL = 160


def examples(g: Group, by_key: Mapping[str, tuple[AuditRow, Grade, Grade]]) -> tuple[dict[str, Any], ...]:
    """The group's first two samples, short: key, task, gold, both extracts and the completion's tail."""
    shown = []
    for key in g.keys[:EXAMPLES]:
        row, a, b = by_key[key]
        tail = " ".join(row.completion.split())
        shown.append(
            {
                "key": key,
                "task": row.task,
                "gold": row.gold,
                "first_extracted": a.extracted,
                "second_extracted": b.extracted,
                "label": row.label,
                "tail": tail if len(tail) <= TAIL else "…" + tail[-TAIL:],
            }
        )
    return tuple(shown)


def _group_json(rank: int, g: Group, report: AuditReport) -> dict[str, Any]:
    s = g.signature
    return {
        "rank": rank,
        "count": g.count,
        report.first: s.first,
        report.second: s.second,
        "thinking": s.thinking,
        "boxed": s.boxed,
        "answer": s.kind,
        "label_says_right": {report.first: g.label_sides_with[0], report.second: g.label_sides_with[1]},
        "examples": list(report.examples.get(s.label(), ())),
        "keys": list(g.keys),
    }


def write(report: AuditReport, items: Sequence[tuple[AuditRow, Grade, Grade]], folder: Path) -> None:
    """``report.jsonl``, ``summary.json``, ``groups.png`` and ``audit.html`` in ``folder``."""
    from trainer.audit._page import write_page

    lines = [_group_json(rank, g, report) for rank, g in enumerate(report.groups, 1)]
    (folder / "report.jsonl").write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    summary = {
        "first": report.first,
        "second": report.second,
        "rescore": report.rescore,
        "samples": report.samples,
        "agree": report.agree,
        "disagree": report.disagreements,
        "not_judged": dict(report.not_judged),
        "groups": [[g.count, g.signature.label()] for g in report.groups],
        "reward/overlong": dict(report.overlong) or None,  # the rows' shaping (the verdicts are before it)
    }
    (folder / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    plot_groups(report, folder / "groups.png")
    write_page(report, items, folder / "audit.html")


def plot_groups(report: AuditReport, path: Path, top: int = 20) -> bool:
    """The ``top`` groups as horizontal bars, most frequent on top, as a PNG whose ``Description``
    holds every group's count and label (False without matplotlib: ``pip install matplotlib``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return False
    shown = list(report.groups[:top])
    labels = [_wrapped(rank, g, report) for rank, g in enumerate(shown, 1)]
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.75 * max(len(shown), 1)))
    ax.barh(range(len(shown)), [g.count for g in shown], color="tab:red")
    ax.set_yticks(range(len(shown)), labels, fontsize=7)
    ax.invert_yaxis()
    for k, g in enumerate(shown):
        ax.text(g.count, k, f" {g.count}", va="center", fontsize=8)
    verb = "changed verdicts" if report.rescore else "disagreements"
    ax.set_title(f"{report.first} vs {report.second}: {report.disagreements} {verb} of {report.samples}", fontsize=9)
    ax.set_xlabel("samples")
    if not shown:
        ax.text(0.5, 0.5, "no disagreements", transform=ax.transAxes, ha="center")
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    fig.subplots_adjust(left=0.42, right=0.97, top=1 - 0.5 / fig.get_figheight(), bottom=0.6 / fig.get_figheight())
    described = "\n".join(f"{g.count}\t{g.signature.label()}" for g in report.groups)
    fig.savefig(path, dpi=110, metadata={"Description": described})
    plt.close(fig)
    return True


def _wrapped(rank: int, g: Group, report: AuditReport) -> str:
    s = g.signature
    text = f"{rank}. {s.shape_text()}\n{report.first}: {s.first}\n{report.second}: {s.second}"
    return "\n".join(textwrap.shorten(line, 64, placeholder="…") for line in text.splitlines())
