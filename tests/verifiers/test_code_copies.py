"""In-place changes and the console across the boundary (issue: verifiers.code part 2): the
test's arguments see what the program did to them, what a call prints reaches the test's
stdout, what it reads comes from the test's input."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from verifiers.sandbox import DockerSandbox

sys.path.insert(0, str(Path(__file__).parent))
from judging import judged  # noqa: E402

pytestmark = pytest.mark.docker


class TestMutationAndOutput:
    def test_in_place_changes_to_arguments_are_copied_back(self, box: DockerSandbox) -> None:
        program = (
            "def sort_in_place(xs):\n    xs.sort()\n\ndef add_key(d):\n    d['new'] = [1]\n\n"
            "def push_inner(grid):\n    grid[0].append(9)\n\ndef enqueue(q, x):\n    q.append(x)\n"
        )
        tests = {
            "asserts": "xs = [3, 1, 2]\nsort_in_place(xs)\nassert xs == [1, 2, 3]\n"
            "d = {'a': 1}\nadd_key(d)\nassert d == {'a': 1, 'new': [1]}\n"
            "grid = [[1], [2]]\nrow = grid[0]\npush_inner(grid)\nassert row == [1, 9] and grid[0] is row\n"
            "q = []\nenqueue(q, 1)\nenqueue(q, 2)\nassert q == [1, 2]"
        }
        r = judged(box, tests, program)
        assert r.correct, r.reason
        copies = program.replace("xs.sort()", "xs = sorted(xs)")
        r = judged(box, tests, copies)
        failed = [k for k, v in r.components.items() if v == 0.0]
        assert failed == ["test_1"], r.reason  # "assert xs == [1, 2, 3]"

    def test_copy_back_writes_only_values(self, box: DockerSandbox) -> None:
        program = (
            "class Anything:\n    def __eq__(self, other):\n        return True\n\n"
            "def fill(xs):\n    xs.append(Anything())\n"
        )
        assert not judged(box, {"asserts": "xs = [1]\nfill(xs)\nassert xs == [1, 2]"}, program).correct
        checks = {"asserts": "xs = [1]\nfill(xs)\nassert len(xs) == 2 and type(xs[1]).__module__ != 'solution'"}
        assert judged(box, checks, program).correct

    PRINTS = "def show(xs):\n    for x in xs:\n        print(x)\n"

    def test_what_a_call_prints_reaches_the_tests_stdout(self, box: DockerSandbox) -> None:
        tests = """import contextlib, io, sys
from solution import show

def test_capsys(capsys):
    show([1, 2])
    assert capsys.readouterr().out == "1\\n2\\n"

def test_redirect():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        show(["a"])
    assert buf.getvalue() == "a\\n"

def test_reassigned_stdout():
    old, sys.stdout = sys.stdout, io.StringIO()
    try:
        show([3])
        text = sys.stdout.getvalue()
    finally:
        sys.stdout = old
    assert text == "3\\n"
"""
        r = judged(box, tests, self.PRINTS)
        assert r.correct, r.reason
        r = judged(box, tests, self.PRINTS.replace("print(x)", "print(x, end=' ')"))
        assert r.reward == 0.0

    def test_assert_suites_have_a_helper_for_printed_output(self, box: DockerSandbox) -> None:
        tests = {
            "asserts": "from tester import printed\nwith printed() as out:\n    show([1, 2])\n"
            "assert out.text == '1\\n2\\n'"
        }
        assert judged(box, tests, self.PRINTS).correct
        assert not judged(box, tests, self.PRINTS.replace("print(x)", "print(x + 1)")).correct

    READS = (
        "import sys\n\ndef ask():\n    name = input('name? ')\n    return f'hi {name}'\n\n"
        "def total():\n    return sum(int(line) for line in sys.stdin)\n\n"
        "def first():\n    return sys.stdin.readline().strip()\n"
    )

    def test_what_a_call_reads_comes_from_the_tests_input(self, box: DockerSandbox) -> None:
        tests = """import io, sys
import pytest
from solution import ask, total, first

def test_patched_input(monkeypatch, capsys):
    answers = iter(["ada", "bob"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert ask() == "hi ada" and ask() == "hi bob"

def test_patched_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("cy\\n"))
    assert ask() == "hi cy"
    assert capsys.readouterr().out == "name? "

def test_stdin_lines(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\\n2\\n3\\n"))
    assert total() == 6

def test_readline():
    sys.stdin = io.StringIO("x y\\nrest\\n")
    try:
        assert first() == "x y"
    finally:
        sys.stdin = sys.__stdin__

def test_no_input_is_end_of_file():
    with pytest.raises(EOFError):
        ask()
    assert total() == 0
"""
        r = judged(box, tests, self.READS)
        assert r.correct, r.reason
        r = judged(box, tests, self.READS.replace("return f'hi {name}'", "return 'hi ada'"))
        assert r.components["test_0"] == 0.0 and r.components["test_2"] == 1.0

    def test_the_output_cap_still_holds_inside_calls(self, box: DockerSandbox) -> None:
        flood = "def show(xs):\n    while True:\n        print('x' * 10000)\n"
        r = judged(box, "from solution import show\n\ndef test_a():\n    show([1])\n", flood, timeout_s=10)
        assert not r.correct and "output" in r.reason
