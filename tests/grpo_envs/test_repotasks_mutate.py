"""The mutation engine of `grpo_envs.repotasks`: every technique on small sources, byte-identical
surroundings, determinism by seed, and diffs that `patch -p1` applies both ways."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest

from grpo_envs.repotasks import TECHNIQUES, Mutation, mutations
from grpo_envs.repotasks._sites import entities, sites_of

SOURCE = '''"""A tiny module."""
import os


class Base:
    pass


class Stack(Base, object):
    """A stack."""

    def __init__(self):
        self.items = []

    def push(self, item):
        self.items.append(item)

    def top(self, n):
        return self.items[-n:]


def clip(value, low, high):  # keep this comment
    if value < low:
        return low
    elif value > high:
        return high
    else:
        return value


def total(xs):
    result = 0
    count = 0
    for x in xs:
        result += x * 2
        count = count + 1
    if count == 0 and result:
        result = -1
    return result


def head(text, n):
    with open(os.devnull) as f:
        f.read()
    try:
        name = text.strip().lower()
    except AttributeError:
        name = ""
    return max(len(name), n), name[1:n], divmod(n, 3)
'''


def _all(source: str = SOURCE, seed: int = 0) -> list[Mutation]:
    return list(mutations(source, "pkg/mod.py", seed=seed, per_entity=99))


def test_every_technique_fires_on_the_sample_and_each_bug_parses_and_differs() -> None:
    found = _all()
    assert {m.technique for m in found} == set(TECHNIQUES)
    for m in found:
        assert ast.dump(ast.parse(m.source)) != ast.dump(ast.parse(SOURCE)), m.technique
        assert m.diff.startswith("--- a/pkg/mod.py\n+++ b/pkg/mod.py\n")


def test_edits_leave_every_other_line_byte_identical() -> None:
    by = {m.technique: m for m in _all()}
    operator = by["change_operator"]
    assert operator.lines_changed == 2  # one line out, one line in
    assert "# keep this comment" in by["swap_operands"].source
    chain = [m for m in _all() if m.technique == "break_chain"][0]
    assert "name = text.strip()\n" in chain.source and chain.lines_changed == 2
    swapped = [m for m in _all() if m.technique == "swap_arguments" and "divmod(3, n)" in m.source]
    assert swapped and swapped[0].lines_changed == 2


def test_removals_leave_pass_where_a_block_would_be_empty_and_keep_decorated_methods_whole() -> None:
    for m in _all():
        if m.technique == "remove_assignment" and m.entity == "Stack.__init__":
            assert "    def __init__(self):\n        pass\n" in m.source
        if m.technique == "remove_method" and m.entity == "Stack":
            assert m.source.count("    def ") == 2
    bases = [m.source for m in _all() if m.technique == "remove_base"]
    assert any("class Stack(object):" in s for s in bases) or any("class Stack(Base):" in s for s in bases)


def test_same_seed_same_bugs_other_seed_other_choice() -> None:
    first = [(m.entity, m.technique, m.diff) for m in mutations(SOURCE, "m.py", seed=3)]
    again = [(m.entity, m.technique, m.diff) for m in mutations(SOURCE, "m.py", seed=3)]
    other = [(m.entity, m.technique, m.diff) for m in mutations(SOURCE, "m.py", seed=4)]
    assert first == again and first != other
    assert max(sum(1 for e, _, _ in first if e == name) for name, _ in entities(ast.parse(SOURCE))) <= 3


def test_statements_sharing_a_line_are_left_alone_and_unparsable_files_give_nothing() -> None:
    source = "def f(x):\n    if x: return 1\n    a = 1; b = 2\n    return a\n"
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    techniques = {s.technique for name, node in entities(tree) for s in sites_of(name, node, lines)}
    assert "remove_assignment" not in techniques  # `a = 1; b = 2` shares its line
    assert "remove_conditional" in techniques  # `if x: return 1` fills its line: it may go whole
    assert list(mutations("def f(:\n", "bad.py")) == []


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs the patch tool")
def test_diff_breaks_and_reverse_repairs_with_patch_p1(tmp_path: Path) -> None:
    for m in _all()[::3]:
        target = tmp_path / "pkg" / "mod.py"
        target.parent.mkdir(exist_ok=True)
        target.write_text(SOURCE)
        subprocess.run(["patch", "-p1", "-s"], input=m.diff, text=True, cwd=tmp_path, check=True)
        assert target.read_text() == m.source
        subprocess.run(["patch", "-p1", "-s"], input=m.reverse, text=True, cwd=tmp_path, check=True)
        assert target.read_text() == SOURCE
