"""What a disagreement looks like: each side's status and reason (quoted values and numbers left
out, so that one pattern is one group) and the answer's shape (the thinking format of
`verifiers.structure`, boxed or not, and the kind of answer: number, tuple, equation, ...).
`group` sorts disagreements by signature, most frequent first."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from trainer.audit._rows import AuditRow, Grade
from verifiers.structure import read_completion

__all__ = ["Group", "Signature", "answer_kind", "group", "reason_pattern", "shape", "signature"]

_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("interval", re.compile(r"^(\[[^,\[\]()]+,[^,\[\]()]+[\])]|\([^,\[\]()]+,[^,\[\]()]+\])$")),
    ("set", re.compile(r"^\\\{.*\\\}$|^\{.*,.*\}$")),
    ("tuple", re.compile(r"^\\?[(\[].*,.*[)\]]$|^[^=<>]+,\s+[^=<>]+$")),
    ("inequality", re.compile(r"<|>|\\le|\\ge|\\leq|\\geq|\\neq|≤|≥")),
    ("equation", re.compile(r"(?<![=!<>])=(?!=)")),
    ("number", re.compile(r"^-?\$?\s*[\d,]*\d(\.\d+)?\s*(\\?%)?\.?$")),
    ("fraction", re.compile(r"^-?\s*(\\d?frac\{[^{}]+\}\{[^{}]+\}|\d+\s*/\s*\d+)$")),
    ("number with words", re.compile(r"^[^\d]*\d[\d,.]*\s*[A-Za-z]{2,}|^[A-Za-z]{2,}[^\d]*\d")),
    ("text", re.compile(r"^[A-Za-z][A-Za-z\s,.'-]+$")),
)


@dataclass(frozen=True)
class Signature:
    """A disagreement's pattern: what each side said and why, and the answer's shape."""

    first: str
    """The first grader's status and reason pattern, e.g. ``no_answer: No answer: the thinking ...``."""
    second: str
    """The second grader's."""
    thinking: str
    """The completion's thinking format (``think``, ``begin_of_thought``, ...), ``none``, or the
    format with ``unclosed`` when its thinking section never closed."""
    boxed: bool
    """Whether the final section (the whole text when there is none) holds a ``\\boxed{}``."""
    kind: str
    """The extracted answer's kind: number, fraction, tuple, interval, set, equation, inequality,
    number with words, text, expression, or ``no answer``."""

    def label(self) -> str:
        """One line: ``first | second | shape``."""
        return f"{self.first} | {self.second} | {self.shape_text()}"

    def shape_text(self) -> str:
        return f"{self.thinking}, {'boxed' if self.boxed else 'not boxed'}, {self.kind}"


@dataclass(frozen=True)
class Group:
    """The samples of one signature, their count and what the label (when stored) says."""

    signature: Signature
    keys: tuple[str, ...]
    label_sides_with: tuple[int, int] = (0, 0)
    """Of the samples with a stored label: how many the label says the first, the second grader got right."""

    @property
    def count(self) -> int:
        return len(self.keys)


def reason_pattern(reason: str, limit: int = 90) -> str:
    """``reason`` with quoted values and numbers left out, cut at ``limit`` characters.

    Examples:
        >>> reason_pattern("The committed answer 'x + 1' is not readable math.")
        "The committed answer '…' is not readable math."
        >>> reason_pattern("Timed out after 5.0 s.")
        'Timed out after N s.'
    """
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", reason.strip())
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def answer_kind(answer: str | None) -> str:
    """The kind of an extracted answer.

    Examples:
        >>> [answer_kind(a) for a in ["42", "(1, 2)", "x = 3", "\\\\frac{1}{2}", "18 apples", None]]
        ['number', 'tuple', 'equation', 'fraction', 'number with words', 'no answer']
    """
    if answer is None or not answer.strip():
        return "no answer"
    text = re.sub(r"^\\boxed\{(.*)\}$", r"\1", answer.strip().strip("$").strip())
    for kind, pattern in _KINDS:
        if pattern.search(text):
            return kind
    return "expression"


def shape(completion: str, answer: str | None) -> tuple[str, bool, str]:
    """(thinking format, boxed, answer kind) of a completion and the answer read from it."""
    read = read_completion(completion)
    thinking = read.format or "none"
    if read.format is not None and read.final is None:
        thinking += " unclosed"
    final = read.final if read.final is not None else completion
    return thinking, "\\boxed" in final or "\\fbox" in final, answer_kind(answer)


def signature(row: AuditRow, first: Grade, second: Grade) -> Signature:
    """The pattern of one disagreement (the answer: the first grader's extract, else the second's)."""
    answer = first.extracted if first.extracted is not None else second.extracted
    thinking, boxed, kind = shape(row.completion, answer)
    return Signature(_side(first), _side(second), thinking, boxed, kind)


def _side(verdict: Grade) -> str:
    return f"{verdict.status}: {reason_pattern(verdict.reason)}"


def group(
    items: Sequence[tuple[AuditRow, Grade, Grade]],
) -> list[Group]:
    """The disagreements among ``items`` (both judged, ``correct`` differs) by signature, most
    frequent first (ties by label); a sample either side did not judge is never one."""
    found: dict[Signature, list[AuditRow]] = {}
    for row, first, second in items:
        if first.correct is None or second.correct is None or first.correct == second.correct:
            continue
        found.setdefault(signature(row, first, second), []).append(row)
    groups = []
    for sig, rows in found.items():
        labelled = [r for r in rows if r.label is not None]
        first_right = sum(r.label == (sig.first.startswith("correct:")) for r in labelled)
        groups.append(Group(sig, tuple(r.key for r in rows), (first_right, len(labelled) - first_right)))
    return sorted(groups, key=lambda g: (-g.count, g.signature.label()))
