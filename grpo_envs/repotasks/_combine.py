"""Harder tasks: two already validated bugs of one file, in different entities, made one bug.

The combination is validated again like any candidate (the keep rule must hold on it: at most
``max_broken`` tests break, some still pass). Each part was kept on its own, so each alone breaks
some test: an agent that repairs one part only still fails the other's tests, and the reward
asks for every named test. Parts come from one file, so the task keeps that file's split key.

>>> from grpo_envs.repotasks import mutations
>>> source = "def add(a, b):\\n    return a + b\\n\\n\\ndef neg(a):\\n    return -a * 1\\n"
>>> a = next(m for m in mutations(source, "m.py") if m.entity == "add")
>>> b = next(m for m in mutations(source, "m.py") if m.entity == "neg")
>>> both = combine(source, a, b)
>>> both.entity, both.lines_changed
('add+neg', 4)
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterator, Sequence

from ._mutate import Mutation, unified_diff


def _changes(before: list[str], after: list[str]) -> list[tuple[int, int, list[str]]]:
    """The changed line ranges of ``before`` (start, end, replacement lines)."""
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    return [(i1, i2, after[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def combine(source: str, first: Mutation, second: Mutation) -> Mutation | None:
    """One bug made of ``first`` and ``second`` (both mutations of ``source``, the clean text of
    one file), or None when they are in one entity, touch the same or neighbouring lines, or
    together do not parse."""
    if first.path != second.path or first.entity == second.entity:
        return None
    lines = source.splitlines(keepends=True)
    edits = sorted(
        _changes(lines, first.source.splitlines(keepends=True))
        + _changes(lines, second.source.splitlines(keepends=True))
    )
    out: list[str] = []
    at, previous_end = 0, -1
    for start, end, new in edits:
        if start <= previous_end:  # overlapping or adjacent: the hunks would merge
            return None
        out += [*lines[at:start], *new]
        at = previous_end = end
    text = "".join(out + lines[at:])
    try:
        ast.parse(text)
    except SyntaxError:
        return None
    return Mutation(
        first.path,
        f"{first.entity}+{second.entity}",
        f"{first.technique}+{second.technique}",
        min(first.line, second.line),
        text,
        unified_diff(source, text, first.path),
        unified_diff(text, source, first.path),
    )


def pairs(source_of: dict[str, str], kept: Sequence[Mutation]) -> Iterator[Mutation]:
    """Combinations of validated bugs, two at a time, from one file and different entities, each
    entity in at most one combination (so the combined tasks do not repeat one another); files in
    the order their bugs were kept. ``source_of`` maps a file to its clean text."""
    used: set[tuple[str, str]] = set()
    for i, first in enumerate(kept):
        if (first.path, first.entity) in used:
            continue
        for second in kept[i + 1 :]:
            if (second.path, second.entity) in used:
                continue
            both = combine(source_of[first.path], first, second)
            if both is not None:
                used |= {(first.path, first.entity), (second.path, second.entity)}
                yield both
                break
