"""`AuditReport`: what an audit found, and its terminal table."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trainer.audit._signature import Group

__all__ = ["AuditReport", "table"]


@dataclass(frozen=True)
class AuditReport:
    """What an audit found: the graders' names, how many samples agree, how many each side left
    not judged, and the disagreements grouped by signature, most frequent first.

    Examples:
        >>> r = AuditReport("ours", "math-verify", samples=3, agree=3, not_judged={"first": 0, "second": 0}, groups=())
        >>> r.disagreements
        0
        >>> print(r.table().splitlines()[0])
        audit: ours vs math-verify: 3 samples, 3 agree, 0 disagree, not judged: 0 by ours, 0 by math-verify
    """

    first: str
    second: str
    samples: int
    agree: int
    not_judged: Mapping[str, int]
    groups: tuple[Group, ...]
    out: Path | None = None
    rescore: bool = False
    examples: Mapping[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    """Up to two short examples per group, by the group's label."""
    second_failure: str = ""
    """Why the second opinion left a sample not judged (the first such reason; "" when none)."""
    overlong: Mapping[str, float] = field(default_factory=dict)
    """The rows' overlong shaping (a shaped run's): ``samples``, ``penalized`` and ``mean`` of the
    penalty in their stored reward; empty when none was shaped. The verdicts compared are before it."""

    @property
    def disagreements(self) -> int:
        return sum(g.count for g in self.groups)

    def table(self) -> str:
        """The report as a terminal table, with the examples under each group."""
        return table(self)


def table(report: AuditReport) -> str:
    """Totals, then one block per group: count, both sides, the shape, two examples."""
    verb = "changed" if report.rescore else "disagree"
    nj = report.not_judged
    lines = [
        f"audit: {report.first} vs {report.second}: {report.samples} samples, {report.agree} agree, "
        f"{report.disagreements} {verb}, not judged: {nj.get('first', 0)} by {report.first}, "
        f"{nj.get('second', 0)} by {report.second}",
        f"{'#':>3} {'count':>6}  pattern ({report.first} | {report.second} | thinking, boxed, answer)",
    ]
    for rank, g in enumerate(report.groups, 1):
        s = g.signature
        right = f"  [label: {g.label_sides_with[0]} {report.first}, {g.label_sides_with[1]} {report.second}]"
        lines.append(f"{rank:>3} {g.count:>6}  {s.shape_text()}{right if sum(g.label_sides_with) else ''}")
        lines.append(f"{'':>12}{report.first}: {s.first}")
        lines.append(f"{'':>12}{report.second}: {s.second}")
        for ex in report.examples.get(s.label(), ()):
            head = f"e.g. {ex['key']}: gold {ex['gold']!r}, {ex['first_extracted']!r} / {ex['second_extracted']!r}"
            lines.append(" " * 12 + textwrap.shorten(f"{head}: {ex['tail']}", 138, placeholder=" …"))
    if not report.groups:
        lines.append(f"{'':>12}(none: every sample both judged agrees)")
    if report.overlong:
        o = report.overlong
        lines.append(
            f"reward/overlong {o['mean']:.3f} over {o['samples']:.0f} shaped samples, {o['penalized']:.0f} penalized "
            "(in the stored reward; the verdicts above are before it)"
        )
    if report.out is not None:
        lines.append(f"report: {report.out / 'report.jsonl'}, {report.out / 'groups.png'}, {report.out / 'audit.html'}")
    return "\n".join(lines)
